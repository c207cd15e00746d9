"""What every test kind shares: its result, the context it runs in (the student's workers,
the limits, the CPU budgets), the field readers, and the base class.

Each kind runs in the grader (the parent) and asks a student worker for observations
only; the solution stays here and the verdict is made here.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any

from pacman.sandbox.config import Limits, WorkerDied, WorkerTimeout, seconds
from pacman.sandbox.pool import WorkerPool
from pacman.testfile import TestFile, TestFileError

MAX_NAME = 200


class ReplyError(Exception):
    """A worker reply that does not have the expected shape."""


@dataclass
class TestResult:
    """The verdict on one test, decided by the grader."""

    path: str
    passed: bool
    points: float = 0.0  # points earned (tests of partial-credit questions)
    max_points: float = 0.0
    messages: list[str] = field(default_factory=list)
    output: str = ""
    timed_out: bool = False  # a time limit ended it (later tests of its question may be moot)
    #: A failed tree test's data for its HTML report (:mod:`pacman.grading.tree_report`).
    tree_report: dict[str, Any] | None = None
    #: The games an EvalAgentTest played (see :func:`game_stats`), for leaderboards.
    games: dict[str, Any] | None = None

    __test__ = False


class Budget:
    """CPU seconds left for a whole submission, shared by the tests running in parallel."""

    def __init__(self, seconds: float | None) -> None:
        self.total = seconds
        self.left = float("inf") if seconds is None else seconds
        self._lock = threading.Lock()

    def charge(self, used: float) -> None:
        with self._lock:
            self.left -= used


@dataclass
class Context:
    """What a test needs to run: the student's workers, the limits, the time left."""

    pool: WorkerPool
    limits: Limits
    budget: Budget = field(default_factory=lambda: Budget(None))
    test_left: float = float("inf")
    #: What the ghosts' streams of graded games are derived with (:mod:`pacman.seeding`);
    #: it never reaches the student's worker. "": each test's own (``EvalAgentTest``).
    game_secret: str = ""

    def for_test(self) -> Context:
        """A copy for one test, with the test's own CPU allowance (``--test-timeout``)."""
        allowed = self.limits.test_seconds
        return Context(
            self.pool,
            self.limits,
            self.budget,
            float("inf") if allowed is None else allowed,
            self.game_secret,
        )

    def call(
        self,
        worker: Any,
        op: str,
        what: str,
        move_seconds: float | None = None,
        game_left: float | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """One request, limited by the tightest of the move's (or game's), test's and
        submission's CPU allowances, each charged with the CPU time the request used.

        ``game_left`` is what is left of a game's ``maxTime``, which CS188 applies to each
        move and to the whole game alike.
        """
        if game_left is not None:
            own = (game_left, "test's maxTime (per move and per game)", move_seconds)
        elif move_seconds is not None:
            own = (move_seconds, "test's maxTime (per move)", move_seconds)
        else:
            own = (self.limits.move_seconds, "per-move limit", self.limits.move_seconds)
        allowances = [
            own,
            (self.test_left, "test's limit", self.limits.test_seconds),
            (self.budget.left, "submission's time budget", self.budget.total),
        ]
        limit, name, total = min(allowances, key=lambda entry: entry[0])
        worker.last_cpu = 0.0
        if limit <= 0:
            of = f" of {seconds(total)}" if total is not None else ""
            raise WorkerTimeout(f"the {name}{of} of CPU time was used up before {what}")
        try:
            return worker.call(op, limit, what, f"the {name}", **fields)
        finally:
            self.test_left -= worker.last_cpu
            self.budget.charge(worker.last_cpu)


def short_name(value: Any, what: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_NAME:
        raise ReplyError(f"{what} is not a short string")
    return value


def int_field(test: TestFile, key: str, default: int | None = None) -> int:
    raw = test.get(key)
    if raw is None:
        if default is None:
            raise TestFileError(f"{test.path}: field {key!r} is missing")
        return default
    try:
        return int(raw.strip())
    except ValueError:
        raise TestFileError(
            f"{test.where(key)}: {key} must be a whole number, got {raw!r}"
        ) from None


def required(test: TestFile, key: str) -> str:
    value = test.get(key)
    if value is None:
        raise TestFileError(f"{test.path}: field {key!r} is missing")
    return value


def worker_problem(error: Exception) -> str:
    if isinstance(error, WorkerTimeout):
        return f"Your code timed out: {error}."
    if isinstance(error, WorkerDied):
        return f"Your code's process {error}."
    return f"Your code's process sent an unusable reply ({error})."


class TestCase:
    """Base class of the test kinds."""

    kind = "TestCase"
    #: Whether a missing .solution file is an error (EvalAgentTest needs none).
    needs_solution = True
    #: The test's text where no file holds it (a tree drawn for one submission), for ``-p``.
    text: str | None = None

    def __init__(self, path: str, test: TestFile, display_path: str) -> None:
        self.path = path
        self.test = test
        self.display_path = display_path
        self.check()

    def check(self) -> None:
        """Raise TestFileError if the test's fields are unusable (before anything runs)."""

    def cost(self) -> float:
        """Rough relative cost, so long tests start first."""
        return 1.0

    def max_seconds(self, limits: Limits, solution: TestFile) -> float:
        """The most CPU time this test lets the student's code use (one move, by default)."""
        return limits.move_seconds

    def run(self, ctx: Context, solution: TestFile) -> TestResult:
        raise NotImplementedError

    def generate(self, ctx: Context) -> dict[str, str]:
        """The solution fields, computed with the code under test (``--generate-solutions``)."""
        raise NotImplementedError

    def result(
        self,
        passed: bool,
        messages: list[str],
        output: str = "",
        points: float = 0.0,
        max_points: float = 0.0,
        timed_out: bool = False,
    ) -> TestResult:
        return TestResult(
            self.display_path, passed, points, max_points, messages, output, timed_out
        )


def display(path: str) -> str:
    """A test path as CS188 prints it: relative to the working directory when inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative
