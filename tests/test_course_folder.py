"""A CS188 course folder grades its own ``multiAgents.py``, and every report says whose code
and which suite it graded; a folder that is no suite is refused; the leaderboard ranks code
that did not load last.

The course folder is built as a student has it: CS188's ``test_cases/`` and ``layouts/``, the
student's ``multiAgents.py``, the project's ``autograder.py`` copied in, and stand-ins for
CS188's own ``pacman.py``, ``game.py`` and ``util.py`` that fail if anything imports them.
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from grading_submissions import HONEST, apply_changes
from test_grading_leaderboard import ANCHOR, CONTEST

from pacman.grade_cli import main
from pacman.grading.gradescope import gradescope_results
from pacman.grading.leaderboard import RANKING
from pacman.grading.session import RunResult
from pacman.grading.suite import QuestionResult

REPO = Path(__file__).resolve().parents[1]
#: The console script beside this interpreter, as a student runs it.
PACMAN = Path(sys.executable).with_name("pacman")
#: A MinimaxAgent that never searches: CS188's autograder gives it q2 0/5.
STOP_MINIMAX = [("MinimaxAgent", ANCHOR, 'return "Stop"')]
SHADOWS = ("pacman.py", "game.py", "util.py")
#: The ghosts' secret of the evaluation games: the same games on every run of the tests.
SECRET = ("--game-secret", "the tests' own")


@pytest.fixture
def course(berkeley: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "course"
    folder.mkdir()
    shutil.copytree(berkeley / "test_cases", folder / "test_cases")
    shutil.copytree(berkeley / "layouts", folder / "layouts")
    shutil.copy(REPO / "autograder.py", folder / "autograder.py")
    for name in SHADOWS:
        (folder / name).write_text(
            f'raise SystemExit("the course folder\'s {name} was imported")\n'
        )
    return folder


def heading(course: Path) -> str:
    return (
        f"Grading multiAgents.py ({course}/multiAgents.py) against test_cases ({course}/test_cases)"
    )


def grade_in(course: Path, way: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """``pacman autograde FLAGS`` or ``python autograder.py FLAGS``, run in the course folder."""
    if way == "pacman autograde":
        if not PACMAN.is_file():
            pytest.skip(f"no console script {PACMAN} (the project is not installed here)")
        command = [str(PACMAN), "autograde", *flags]
    else:
        command = [sys.executable, "autograder.py", *flags]
    done = subprocess.run(command, cwd=course, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


WAYS = ["pacman autograde", "python autograder.py"]


@pytest.mark.parametrize("way", WAYS)
def test_the_folders_own_minimax_that_stops_gets_q2_zero(course, way):
    (course / "multiAgents.py").write_text(apply_changes("stop", "always stops", STOP_MINIMAX))
    out = grade_in(course, way, "-q", "q2").stdout
    lines = out.splitlines()
    assert lines[0] == heading(course)
    assert "### Question q2: 0/5 ###" in out
    assert [line for line in lines if line.strip()][-1] == "Total: 0/5"


@pytest.mark.parametrize("way", WAYS)
def test_a_full_marks_file_gets_25_of_25_and_every_report_names_it(course, way):
    shutil.copy(HONEST, course / "multiAgents.py")
    flags = ("--results", "results.json", "--gradescope-output", "--edx-output", *SECRET)
    out = grade_in(course, way, *flags).stdout
    lines = out.splitlines()
    assert lines[0] == heading(course)
    assert [line for line in lines if line.strip()][-1] == "Total: 25/25"
    assert out.count("*** PASS: ") == 87 and "*** FAIL" not in out
    graded = {
        "code": [f"{course}/multiAgents.py"],
        "project_agents": False,
        "suite": f"{course}/test_cases",
    }
    for name in ("results.json", "gradescope_response.json"):
        data = json.loads((course / name).read_text())
        assert data["graded"] == graded and data["score"] == 25
        assert data["output"].splitlines()[0] == heading(course)
    page = (course / "edx_response.html").read_text()
    assert page.splitlines()[1] == f'  <p class="graded">{html.escape(heading(course))}</p>'


def test_the_html_report_names_the_file_first(course, capsys, monkeypatch):
    (course / "multiAgents.py").write_text(apply_changes("stop", "always stops", STOP_MINIMAX))
    monkeypatch.chdir(course)
    assert main(["-t", "test_cases/q2/0-small-tree", "--html-report", "pages"]) == 0
    test = f"{course}/test_cases/q2/0-small-tree.test"
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        f"Grading multiAgents.py ({course}/multiAgents.py) against 0-small-tree.test ({test})"
    )
    page = (course / "pages" / "q2-0-small-tree.html").read_text()
    title = f"{first}: FAIL: test_cases/q2/0-small-tree.test"
    assert f'<h1 id="title">{html.escape(title)}</h1>' in page


def test_the_project_agents_are_graded_when_asked_by_name_or_where_no_file_is(
    course, capsys, monkeypatch
):
    (course / "multiAgents.py").write_text(apply_changes("stop", "always stops", STOP_MINIMAX))
    monkeypatch.chdir(course)
    assert main(["-q", "q2", "--project-agents"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        f"Grading the project's own agents ({REPO}/agents) against test_cases ({course}/test_cases)"
    )
    assert "### Question q2: 5/5 ###" in out
    # The project's checkout holds no multiAgents.py: its own agents, against its own suite.
    monkeypatch.chdir(REPO)
    assert main(["-t", "test_cases/q2/1-one-ghost-depth1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        f"Grading the project's own agents ({REPO}/agents) against 1-one-ghost-depth1.test "
        f"({REPO}/test_cases/q2/1-one-ghost-depth1.test)"
    )
    assert "*** PASS: test_cases/q2/1-one-ghost-depth1.test" in out
    for flags in (["--student-code", "multiAgents.py"], ["--code-directory", "."]):
        assert main(["--project-agents", *flags]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err == (
            f"autograder: --project-agents grades the project's own agents, {flags[0]} a "
            "student's code: leave out one or the other\n"
        )


def test_the_bundles_results_name_the_file_first():
    questions = [QuestionResult("q2", 5.0, 5, [])]
    run = RunResult(questions, 1.0, "namespaces", {"separate_uid": True, "uid": 2100000001})
    graded = {
        "code": ["/autograder/submission/multiAgents.py"],
        "project_agents": False,
        "suite": "/autograder/source/test_cases",
    }
    results = gradescope_results(run, None, {}, False, graded)
    assert results["output"].splitlines() == [
        "Grading multiAgents.py (/autograder/submission/multiAgents.py) against test_cases "
        "(/autograder/source/test_cases)",
        "Total: 5/5 (isolation: namespaces, uid 2100000001)",
    ]
    assert results["extra_data"]["graded"] == graded


# ------------------------------------------------------------------------------ not a suite

EMPTY_WHY = (
    'no CONFIG and no question folder (a suite has a CONFIG, order: "q1 q2", and a folder '
    "per question with a CONFIG and its tests)"
)
SUBMISSIONS_WHY = (
    "no CONFIG and no question folder, but Python files (submissions? --submissions DIR "
    "grades them against a suite)"
)


def _not_suites(root: Path) -> list[tuple[Path, str]]:
    empty = root / "empty"
    empty.mkdir()
    handed_in = root / "handed_in"
    for student in ("ada", "bob"):
        (handed_in / student).mkdir(parents=True)
        shutil.copy(HONEST, handed_in / student / "multiAgents.py")
    no_questions = root / "no_questions"
    no_questions.mkdir()
    (no_questions / "CONFIG").write_text('order: ""\n')
    return [
        (empty, f"{empty}: not a test suite: {EMPTY_WHY}"),
        (handed_in, f"{handed_in}: not a test suite: {SUBMISSIONS_WHY}"),
        (
            no_questions,
            f"{no_questions}/CONFIG line 1: no questions: order names none and no folder here "
            'has a CONFIG (a suite lists its questions: order: "q1 q2")',
        ),
    ]


@pytest.mark.parametrize(
    "flags",
    [[], ["-q", "q2"], ["--gradescope-bundle", "e.zip"], ["--submissions", "."]],
    ids=["grade", "one question", "bundle", "batch"],
)
def test_a_folder_without_questions_is_refused_in_one_line(capsys, tmp_path, monkeypatch, flags):
    monkeypatch.chdir(tmp_path)
    for folder, why in _not_suites(tmp_path):
        assert main(["--test-directory", str(folder), *flags]) == 2
        captured = capsys.readouterr()
        assert (captured.out, captured.err) == ("", f"autograder: {why}\n")
    assert not (tmp_path / "e.zip").exists() and not (tmp_path / "grades.csv").exists()


# ------------------------------------------------------------------------------ the leaderboard


FIRST, CRASH = "return gameState.getLegalActions(0)[0]", "return 1 / 0"


def test_submissions_that_did_not_load_rank_below_every_one_that_did(tmp_path):
    suite = tmp_path / "suite"
    (suite / "contest").mkdir(parents=True)
    (suite / "CONFIG").write_text('order: "contest"\n')
    (suite / "contest" / "CONFIG").write_text('max_points: "4"\nclass: "PartialCreditQuestion"\n')
    (suite / "contest" / "grade-agent.test").write_text(CONTEST)
    hand_ins = tmp_path / "submissions"
    texts = {
        "weak": apply_changes("weak", "plays its first move", [("ExpectimaxAgent", ANCHOR, FIRST)]),
        "crasher": apply_changes("crasher", "crashes", [("ExpectimaxAgent", ANCHOR, CRASH)]),
        "broken": "def broken(:\n",
        "missing": None,  # a folder without multiAgents.py
    }
    for name, text in texts.items():
        (hand_ins / name).mkdir(parents=True)
        if text is not None:
            (hand_ins / name / "multiAgents.py").write_text(text)
    prefix = tmp_path / "grades"
    flags = ["--test-directory", str(suite), "--submissions", str(hand_ins)]
    flags += ["--summary", str(prefix), "--leaderboard", "-j", "2", "--game-secret", "ranks"]
    done = subprocess.run(
        [sys.executable, str(REPO / "autograder.py"), *flags],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[0] == (
        f"Grading multiAgents.py ({hand_ins}/*/multiAgents.py) against suite ({suite})"
    )
    grades = json.loads(Path(f"{prefix}.json").read_text())
    assert grades["graded"] == {
        "code": [f"{hand_ins}/*/multiAgents.py"],
        "project_agents": False,
        "suite": str(suite),
    }
    board = json.loads(Path(f"{prefix}-leaderboard.json").read_text())
    rows = [
        (r["submission"], r["games"], r["crashes"], bool(r["error"])) for r in board["submissions"]
    ]
    # Before, broken and missing (no game, so no failed game) ranked above the crasher.
    assert rows == [
        ("weak", 2, 0, False),
        ("crasher", 2, 2, False),
        ("broken", 0, 0, True),
        ("missing", 0, 0, True),
    ]
    assert board["ranking"] == RANKING
    assert board["submissions"][3]["error"] == f"{hand_ins}/missing/multiAgents.py: no such file"
    page = Path(f"{prefix}-leaderboard.html").read_text()
    assert f"<p>{html.escape(RANKING)} A game link" in page
    assert [
        line.split("</td><td>")[1] for line in page.splitlines() if line.startswith("<tr><td>")
    ] == [
        "weak",
        "crasher",
        "broken",
        "missing",
    ]
