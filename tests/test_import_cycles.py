"""tools/import_cycles.py finds a circle closed by an import inside a function, and only that."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parent.parent / "tools" / "import_cycles.py"


def run(tmp_path: Path, *packages: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    return subprocess.run(
        [sys.executable, str(TOOL), *packages],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )


def test_a_circle_through_an_import_inside_a_function_is_listed(tmp_path: Path) -> None:
    package = tmp_path / "circlepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text("from circlepkg import page\n")
    (package / "page.py").write_text("def draw():\n    from circlepkg import model\n")
    (package / "above.py").write_text("import circlepkg.model\n")  # points down: no circle
    done = run(tmp_path, "circlepkg")
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "circle 1: circlepkg.model circlepkg.page",
        "  circlepkg.model:1 -> circlepkg.page",
        "  circlepkg.page:2 -> circlepkg.model",
        "1 import circles among 4 modules",
    ]


def test_a_package_without_circles_passes(tmp_path: Path) -> None:
    package = tmp_path / "linepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("")
    (package / "high.py").write_text("def f():\n    from linepkg import low\n")
    done = run(tmp_path, "linepkg")
    assert (done.returncode, done.stdout) == (0, "0 import circles among 3 modules\n")


def test_a_package_that_is_not_there_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = run(tmp_path, "nosuchpackage")
    assert done.returncode == 2
    assert done.stderr == (
        "import_cycles: Could not find package 'nosuchpackage' in your Python path.\n"
    )
