"""Suites and questions in CS188's format, and how a question is scored.

A suite is a folder with a ``CONFIG`` (``order: "q1 q2 ..."``) and one folder
per question, each with its own ``CONFIG`` (``max_points``, ``class``) and
``*.test``/``*.solution`` pairs.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

from pacman.grading.kinds import make_test
from pacman.grading.testcase import TestCase, TestResult, display
from pacman.testfile import TestFile, TestFileError, read_test_file

QUESTION_KINDS = ("PassAllTestsQuestion", "PartialCreditQuestion", "NumberPassedQuestion")


@dataclass
class Question:
    name: str
    kind: str
    max_points: int
    tests: list[tuple[TestCase, str]] = field(default_factory=list)  # (test, solution path)
    #: Solutions held in memory, by path (trees drawn for one submission have no files).
    solutions: dict[str, TestFile] = field(default_factory=dict)


@dataclass
class QuestionResult:
    name: str
    points: float
    max_points: int
    tests: list[TestResult]
    messages: list[str] = field(default_factory=list)


def _test_files(folder: str) -> list[str]:
    names = [
        n for n in os.listdir(folder) if n.endswith(".test") and not n.startswith(("#", "~", "."))
    ]
    return sorted(names)


def _shown(path: str, display_root: str | None) -> str:
    return os.path.relpath(path, display_root) if display_root else display(path)


def load_question(folder: str, name: str, display_root: str | None = None) -> Question:
    config = read_test_file(os.path.join(folder, "CONFIG"))
    kind = config.get("class", "").strip()
    if kind not in QUESTION_KINDS:
        raise TestFileError(
            f"{config.where('class')}: unknown question class {kind!r} (known: {', '.join(QUESTION_KINDS)})"
        )
    try:
        max_points = int(config.get("max_points", "").strip())
    except ValueError:
        raise TestFileError(
            f"{config.where('max_points')}: max_points must be a whole number"
        ) from None
    question = Question(name, kind, max_points)
    for test_name in _test_files(folder):
        path = os.path.join(folder, test_name)
        question.tests.append(
            (
                make_test(path, read_test_file(path), _shown(path, display_root)),
                path[: -len(".test")] + ".solution",
            )
        )
    return question


def _not_a_suite(folder: str) -> str:
    """Why ``folder``, without a CONFIG, is no suite; a folder of submissions is named so."""
    held: list[str] = []
    # The folder and its subfolders only: a mistaken --test-directory / is not walked.
    for top in [folder, *(os.path.join(folder, name) for name in os.listdir(folder))]:
        with contextlib.suppress(OSError):
            held += os.listdir(top) if os.path.isdir(top) else []
    if any(name.endswith(".py") for name in held):
        return (
            "no CONFIG and no question folder, but Python files (submissions? "
            "--submissions DIR grades them against a suite)"
        )
    return (
        'no CONFIG and no question folder (a suite has a CONFIG, order: "q1 q2", and a '
        "folder per question with a CONFIG and its tests)"
    )


def load_suite(
    test_dir: str, only_question: str | None = None, display_root: str | None = None
) -> list[Question]:
    """The questions of a suite, in CONFIG order (or just ``only_question``).

    Tests are named relative to ``display_root`` when given, else to the working directory.
    """
    if not os.path.isdir(test_dir):
        raise TestFileError(f"{test_dir}: no such test directory")
    config_path = os.path.join(test_dir, "CONFIG")
    config = read_test_file(config_path) if os.path.isfile(config_path) else None
    # CS188's rule: the questions ``order`` names, else every question folder, by name.
    order = (config.get("order", "") if config else "").split() or sorted(
        n for n in os.listdir(test_dir) if os.path.isfile(os.path.join(test_dir, n, "CONFIG"))
    )
    if not order and config is None:
        raise TestFileError(f"{test_dir}: not a test suite: {_not_a_suite(test_dir)}")
    if not order and config is not None:
        raise TestFileError(
            f"{config.where('order')}: no questions: order names none and no folder here has "
            'a CONFIG (a suite lists its questions: order: "q1 q2")'
        )
    if only_question is not None:
        if only_question not in order and not os.path.isdir(os.path.join(test_dir, only_question)):
            raise TestFileError(
                f"{test_dir}: no question {only_question!r} (questions: {' '.join(order)})"
            )
        order = [only_question]
    questions = []
    for name in order:
        folder = os.path.join(test_dir, name)
        if not os.path.isdir(folder):
            raise TestFileError(f"{config_path}: question {name!r} has no folder {folder}")
        questions.append(load_question(folder, name, display_root))
    return questions


def load_single_test(path: str) -> Question:
    """``-t test_cases/q2/0-small-tree``: one test, as a question of its own."""
    base = path[: -len(".test")] if path.endswith(".test") else path
    test_path = base + ".test"
    if not os.path.isfile(test_path):
        raise TestFileError(f"{test_path}: no such test")
    question = Question(
        os.path.basename(os.path.dirname(os.path.abspath(test_path))), "PassAllTestsQuestion", 0
    )
    question.tests.append(
        (make_test(test_path, read_test_file(test_path), display(test_path)), base + ".solution")
    )
    return question


def score_question(question: Question, results: list[TestResult]) -> QuestionResult:
    """CS188's question kinds: all-or-nothing, points from the tests, or one point per test passed."""
    if question.kind == "PassAllTestsQuestion":
        ok = all(r.passed for r in results)
        points = float(question.max_points) if ok else 0.0
        messages = [] if ok else ["Tests failed."]
    elif question.kind == "NumberPassedQuestion":
        points = float(sum(1 for r in results if r.passed))
        messages = []
    else:
        # Point-giving tests add their points; any other test that fails zeroes the question.
        plain_failed = any(not r.passed for r in results if r.max_points == 0)
        points = 0.0 if plain_failed else sum(r.points for r in results)
        messages = ["Tests failed."] if plain_failed else []
    points = min(points, float(question.max_points)) if question.max_points else points
    return QuestionResult(question.name, points, question.max_points, results, messages)
