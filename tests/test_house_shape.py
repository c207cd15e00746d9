"""tools/house_shape.py finds each kind of problem it checks, once, on a tiny tree made for it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parent.parent / "tools" / "house_shape.py"


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def fake_tree(root: Path) -> None:
    """One problem of each kind, and a shims folder whose repeated names must not count."""
    write(root, "pacman/__init__.py", "")
    write(root, "agents/__init__.py", "")
    write(root, "pacman/big.py", "x = 1\n" * 601)
    write(root, "pacman/long.py", "def long():\n" + "    pass\n" * 80)
    write(root, "pacman/board.py", "class Board:\n    pass\n")
    write(root, "agents/board_copy.py", "class Board:\n    pass\n")
    write(root, "agents/helpers.py", "")
    write(root, "pacman/view/helpers.py", "")
    write(root, "agents/reach.py", "from pacman.board import _cell, __version__\n")
    # 10 modules of 560 lines: 5,600 lines, over grading/'s budget, each module short enough.
    for part in range(10):
        write(root, f"pacman/grading/part{part}.py", "y = 2\n" * 560)
    write(root, "pacman/shims/game.py", "class Board:\n    pass\n")
    write(root, "pacman/shims/helpers.py", "")


def test_each_kind_of_problem_is_found_once(tmp_path: Path) -> None:
    fake_tree(tmp_path)
    done = subprocess.run(
        [sys.executable, str(TOOL), "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr == ""
    assert done.stdout.splitlines() == [
        "pacman/big.py: module has 601 lines (limit 600)",
        "pacman/long.py:1: function long has 81 lines (limit 80)",
        "agents/reach.py:1: imports the private name pacman.board._cell",
        "class Board is defined 2 times: pacman/board.py, agents/board_copy.py",
        "module name helpers.py is defined 2 times: pacman/view/helpers.py, agents/helpers.py",
        "pacman/grading: 5600 lines in all (budget 5500)",
        "6 findings; grading/ has 5600 lines",
    ]


def test_a_clean_tree_passes(tmp_path: Path) -> None:
    write(tmp_path, "pacman/__init__.py", "")
    write(tmp_path, "agents/search.py", "def short():\n    return 1\n")
    done = subprocess.run(
        [sys.executable, str(TOOL), "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "0 findings; grading/ has 0 lines\n")


def test_a_root_without_the_packages_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(TOOL), "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr == f"house_shape: --root {tmp_path} has no pacman and agents folders\n"
