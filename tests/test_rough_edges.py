"""What a newcomer met (issue 34): each rough edge, said in one line or fixed."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from pacman.cli import main
from pacman.errors import LayoutError, PacmanError
from pacman.layout import load_layout

ROOT = Path(__file__).resolve().parent.parent


def test_a_tree_too_large_to_draw_says_how_far_it_got_and_stops_in_one_line(capsys):
    assert main(["tree", "-a", "depth=9", "-l", "originalClassic"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[:-1] == [
        f"pacman tree: searching, {count:,} successor calls so far (stops at 100,000)"
        for count in range(10_000, 100_000, 10_000)
    ]
    assert lines[-1] == (
        "pacman tree: AlphaBetaAgent depth=9 from originalClassic's start: the search passed "
        "100,000 successor calls, more than a page can show; use a smaller depth (-a depth=N), "
        "fewer ghosts (-k) or a smaller layout"
    )


def test_the_env_ids_example_in_the_docs_runs_and_says_what_it_prints():
    docs = (ROOT / "docs" / "envs.md").read_text(encoding="utf-8")
    block = docs.split("`pacman.envs.env_ids()` maps each", 1)[1].split("```python\n", 1)[1]
    lines = block.split("```", 1)[0].splitlines()
    namespace: dict = {}
    exec(lines[0], namespace)  # the import
    for line in lines[1:]:
        if not line.strip():
            continue
        code, said = (part.strip() for part in line.split("#", 1))
        assert eval(code, namespace) == ast.literal_eval(said), line


def test_agent_args_without_a_value_are_refused_in_one_line(capsys):
    assert main(["-p", "AlphaBetaAgent", "-a", "depth", "-l", "minimaxClassic", "-q"]) == 2
    assert capsys.readouterr().err == "pacman: -a 'depth': depth has no value; write depth=VALUE\n"
    assert main(["tree", "-a", "evalFn=better,depth"]) == 2
    assert capsys.readouterr().err == (
        "pacman tree: -a 'evalFn=better,depth': depth has no value; write depth=VALUE (or "
        "evalFn=better:depth: -a splits on commas)\n"
    )


def test_student_code_that_is_not_python_is_refused_in_one_line(capsys):
    assert main(["autograde", "--student-code", "multiAgents.py,odd.lay", "-q", "q2"]) == 2
    assert capsys.readouterr().err == (
        "autograder: --student-code odd.lay: not a Python file (a name ending .py)\n"
    )


def test_a_folder_given_as_a_layout_is_said_to_be_a_folder(tmp_path, monkeypatch, capsys):
    (tmp_path / "adir.lay").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["-l", "adir.lay", "-p", "GreedyAgent", "-q"]) == 2
    assert capsys.readouterr().err == (
        "pacman: layout 'adir.lay': adir.lay is a folder, not a layout file\n"
    )
    with pytest.raises(LayoutError) as refused:
        load_layout("adir")  # the name without .lay finds the folder too
    assert str(refused.value) == "layout 'adir': adir.lay is a folder, not a layout file"


def test_show_names_a_record_it_cannot_read_as_the_caller_gave_it(tmp_path):
    import pacman

    missing = tmp_path / "nope.json"
    with pytest.raises(PacmanError) as refused:
        pacman.show(str(missing), live=False)
    assert str(refused.value) == (
        f"pacman.show({str(missing)!r}): cannot read (No such file or directory)"
    )


def test_the_readme_offers_pacman_not_python_m_pacman_in_a_cs188_folder(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "or `python -m pacman" not in readme
    assert "(not `python -m pacman` there: in a CS188 folder Python finds the folder's own" in (
        readme
    )
    # Why: Python puts the current folder first, so CS188's pacman.py shadows the package.
    (tmp_path / "pacman.py").write_text("print('the folder s own pacman.py')\n")
    ran = subprocess.run(
        [sys.executable, "-m", "pacman", "--help"], cwd=tmp_path, capture_output=True, text=True
    )
    assert ran.stdout == "the folder s own pacman.py\n"
