"""CS188's own autograder grades a generated suite as this project's grader does, test by test.

It needs a CS188 multiagent folder (``autograder.py``, ``multiagentTestClasses.py``, ``util.py``,
``game.py``, ``pacman.py``, ...): ``PACMAN_CS188_DIR`` names it; without it the module is skipped.
Each run copies that folder, puts a generated suite (q2-q4: CS188's questions) in its
``test_cases`` and a CS188-style ``multiAgents.py`` beside it (the honest file, or the honest
file making one known mistake of the diagnosis), and runs ``python autograder.py
--no-graphics`` there; the same files are graded here in one ``--submissions`` batch.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from grading_submissions import (
    CORRECT,
    FIXTURES,
    HONEST,
    MISTAKES,
    mistake_text,
    mistaken_questions,
    student_runtime,
    tree_passes,
)
from test_fresh_trees import CS188_KINDS, SEEDS, fresh_suites

from pacman.grade_cli import main
from pacman.grading.suitegen import KINDS, files_of
from pacman.testfile import format_test_file

CS188 = os.environ.get("PACMAN_CS188_DIR", "")
if not CS188 or not Path(CS188, "multiagentTestClasses.py").is_file():
    pytest.skip(
        "set PACMAN_CS188_DIR to a CS188 multiagent folder (with autograder.py and "
        "multiagentTestClasses.py) to compare with CS188's own autograder",
        allow_module_level=True,
    )

QUESTIONS = ("q2", "q3", "q4")
VERDICT = re.compile(r"^\*\*\* (PASS|FAIL): (\S+\.test)$")
POINTS = re.compile(r"^### Question (q\d): (\d+)/(\d+) ###$")


def _cs188(suite: Path, text: str, run: Path) -> tuple[dict[str, bool], dict[str, int]]:
    """CS188's verdicts (``q2/name.test`` -> passed) and points (question -> points).

    Where a test raises, CS188's question stops there ("FAIL: Exception raised", no path):
    that test is a failure, and the question's later tests get no verdict.
    """
    shutil.copytree(CS188, run, ignore=shutil.ignore_patterns("test_cases", "__pycache__"))
    shutil.copytree(suite, run / "test_cases")
    (run / "multiAgents.py").write_text(text)
    done = subprocess.run(
        [sys.executable, "autograder.py", "--no-graphics"],
        cwd=run,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Total:" in done.stdout, done.stdout + done.stderr
    verdicts: dict[str, bool] = {}
    points: dict[str, int] = {}
    for question in QUESTIONS:
        names = sorted(p.name for p in (suite / question).glob("*.test"))
        block = done.stdout.split(f"Question {question}\n", 1)[1].split("### Question", 1)[0]
        said = dict(
            (m.group(2).rsplit("/", 1)[-1], m.group(1) == "PASS")
            for m in map(VERDICT.match, block.splitlines())
            if m
        )
        for name in names:
            if name in said:
                verdicts[f"{question}/{name}"] = said[name]
            elif "FAIL: Exception raised" in block:
                verdicts[f"{question}/{name}"] = False  # it raised; the rest never ran
                break
    for match in map(POINTS.match, done.stdout.splitlines()):
        if match:
            points[match.group(1)] = int(match.group(2))
    return verdicts, points


def test_cs188s_autograder_grades_a_generated_suite_as_the_project_does(tmp_path, capsys):
    suite = tmp_path / "suite"
    kinds = "minimax,alphabeta,expectimax"
    generate = ["--generate-suite", str(suite), "--kinds", kinds, "--trees", "8"]
    assert main([*generate, "--seed", "compared with CS188"]) == 0
    capsys.readouterr()
    files = {"honest": HONEST.read_text()}
    files.update({name.replace(" ", "_"): mistake_text(name) for name in MISTAKES})
    submissions = tmp_path / "submissions"
    for name, text in files.items():
        (submissions / name).mkdir(parents=True)
        (submissions / name / "multiAgents.py").write_text(text)
    prefix = tmp_path / "grades"
    batch = ["--submissions", str(submissions), "--test-directory", str(suite)]
    status = main([*batch, "--summary", str(prefix), "--game-secret", "parity", "-j", "2"])
    assert status == 0
    rows = json.loads(prefix.with_suffix(".json").read_text())["submissions"]
    ours = {row["submission"]: row for row in rows}

    compared = 0
    for name, text in files.items():
        verdicts, points = _cs188(suite, text, tmp_path / "cs188" / name)
        row = ours[name]
        assert {q: int(row["questions"][q]["points"]) for q in QUESTIONS} == points, name
        mine = {
            "/".join(t["test"].split("/")[-2:]): t["passed"]
            for q in QUESTIONS
            for t in row["questions"][q]["tests"]
        }
        assert {test: mine[test] for test in verdicts} == verdicts, name
        if name != "a_search_one_round_too_shallow":  # (its depth-1 trees raise in CS188's)
            assert len(verdicts) == len(list(suite.glob("q*/*.test"))), name
        compared += len(verdicts)
        print(f"{name}: CS188 {points}, here the same; {len(verdicts)} verdicts alike")
        if name == "honest":
            assert points == {"q2": 5, "q3": 5, "q4": 5}
        else:
            lost = {q for q, p in points.items() if p == 0}
            assert lost == mistaken_questions(name.replace("_", " ")), name
    print(f"{len(files)} files, {compared} test verdicts compared with CS188's autograder")


def test_cs188s_autograder_gives_a_lookup_table_full_marks_on_its_suite_alone(tmp_path, capsys):
    from grading_submissions import BERKELEY, cs188_questions
    from test_fresh_trees import LOOKUP, lookup_table

    if not BERKELEY.is_dir():
        pytest.skip("shared/berkeley not present")
    public = cs188_questions(tmp_path)
    fresh = tmp_path / "fresh"
    kinds = ["--kinds", "minimax,alphabeta,expectimax", "--trees", "8"]
    assert main(["--generate-suite", str(fresh), *kinds, "--seed", "lookup"]) == 0
    capsys.readouterr()
    table = lookup_table()
    assert _cs188(public, table, tmp_path / "a")[1] == {"q2": 5, "q3": 5, "q4": 5}
    # Fresh trees: only its honest part scores, as it does with empty tables.
    assert _cs188(fresh, table, tmp_path / "b")[1] == {"q2": 5, "q3": 0, "q4": 0}
    assert _cs188(fresh, LOOKUP.read_text(), tmp_path / "c")[1] == {"q2": 5, "q3": 0, "q4": 0}


#: Right files that use the snake_case state API, which CS188's tree states do not have.
SNAKE_CASE = {"other_style", "memo_snake"}


def _ten_seeds(folder: Path) -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """One suite of CS188's questions holding the trees of all ten seeds (``3-05-...``: seed
    3's fifth tree), written in ``folder``; each test's fields and solution by name."""
    written = {}
    questions = [KINDS[kind].question for kind in CS188_KINDS]
    folder.mkdir()
    (folder / "CONFIG").write_text(format_test_file({"order": " ".join(questions)}))
    for kind in CS188_KINDS:
        question = folder / KINDS[kind].question
        question.mkdir()
        points = {"max_points": str(KINDS[kind].points), "class": "PassAllTestsQuestion"}
        (question / "CONFIG").write_text(format_test_file(points))
        for number, seed in enumerate(SEEDS):
            for test in fresh_suites(kind)[seed]:
                text, solution = files_of(kind, test)
                name = f"{number}-{test.name}"
                (question / f"{name}.test").write_text(text)
                (question / f"{name}.solution").write_text(solution)
                written[f"{question.name}/{name}.test"] = (test.test, test.solution)
    return written


def test_cs188s_autograder_agrees_on_ten_fresh_suites_for_right_files_and_mistakes(tmp_path):
    """Right files written differently get full marks from CS188's autograder on the trees of
    ten seeds (reversed_order loses q3 there too), every known mistake loses its questions,
    and each test CS188 grades gets the verdict this project's grader gives it."""
    suite = tmp_path / "suite"
    tests = _ten_seeds(suite)
    files = {
        name: (FIXTURES / name / "multiAgents.py").read_text()
        for name, questions in CORRECT.items()
        if name not in SNAKE_CASE and "q2" in questions
    }
    files.update({name: mistake_text(name) for name in MISTAKES})
    for index, (name, text) in enumerate(files.items()):
        verdicts, points = _cs188(suite, text, tmp_path / f"cs188-{index}")
        (tmp_path / f"own-{index}").mkdir()
        path = tmp_path / f"own-{index}" / "multiAgents.py"
        path.write_text(text)
        with student_runtime(path) as runtime:
            ours = {test: tree_passes(runtime, *tests[test]) for test in verdicts}
        assert ours == verdicts, name
        if name in MISTAKES:
            assert {q for q, p in points.items() if p == 0} == mistaken_questions(name), name
        else:
            wanted = {q: 5 for q in QUESTIONS if q in CORRECT[name]}
            assert {q: p for q, p in points.items() if q in wanted} == wanted, name
        print(f"{name}: CS188 {points}; {len(verdicts)} verdicts, the same here")
