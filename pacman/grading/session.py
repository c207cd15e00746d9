"""One grading session: a suite's questions run against one submission's code.

Tests run in parallel on reused student workers (one per thread); the questions are
reported in order. The session knows nothing of how it was asked for (a command line, a
batch, a Gradescope bundle): it takes the questions, the sandbox's configuration and the
ghosts' secret, and returns the scored run.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from pacman.grading.suite import Question, QuestionResult, score_question
from pacman.grading.testcase import Budget, Context, TestCase, TestResult, display, worker_problem
from pacman.sandbox.config import Limits, SandboxConfig, SandboxError, WorkerDied, WorkerTimeout
from pacman.sandbox.pool import SpareWorker, WorkerPool
from pacman.sandbox.process import WorkerProcess
from pacman.testfile import TestFile, TestFileError, read_test_file


@dataclass
class RunResult:
    questions: list[QuestionResult]
    seconds: float
    isolation: str
    protections: dict[str, Any] = field(default_factory=dict)
    #: Why the student's files could not be imported (then no question was graded).
    load_error: str | None = None
    budget_seconds: float | None = None  # the submission's CPU budget
    import_output: str = ""  # what the student's files printed while being imported

    @property
    def total(self) -> float:
        return sum(q.points for q in self.questions)

    @property
    def max_total(self) -> int:
        return sum(q.max_points for q in self.questions)


def _read_solution(path: str) -> TestFile:
    if not os.path.exists(path):
        raise TestFileError(f"{path}: no such solution file (run with --generate-solutions?)")
    return read_test_file(path)


NOT_IMPORTED = "Not graded: the student's file does not import (see the error above)."


def submission_budget(
    questions: list[Question], solutions: dict[str, TestFile], limits: Limits
) -> float:
    """The CPU seconds a submission may use in all: what its tests allow, added up.

    Never below what the tests themselves allow, so a submission within every per-move
    and per-game limit is never cut; ``--submission-timeout`` may set it lower.
    """
    if limits.submission_seconds is not None:
        return limits.submission_seconds
    total = 0.0
    for question in questions:
        for test, path in question.tests:
            allowed = test.max_seconds(limits, solutions[path])
            if limits.test_seconds is not None:
                allowed = min(allowed, limits.test_seconds)
            total += allowed
    return total


def _check_import(ctx: Context) -> tuple[str | None, str]:
    """The student files' import error, once for the whole run (None: they import), and
    what they printed meanwhile."""
    worker = ctx.pool.get()
    worker.mark_output()
    try:
        reply = ctx.call(worker, "load", "importing the student files")
    except (WorkerDied, WorkerTimeout) as error:
        return worker_problem(error), worker.output()
    import_error = reply.get("error")
    if import_error is None:
        return None, worker.output()
    return f"Your code could not be imported: {str(import_error)[:2000]}", worker.output()


def _safe_run(test: TestCase, ctx: Context, solution: TestFile, skip: str | None) -> TestResult:
    if skip is not None:
        return test.result(False, [skip])
    try:
        return test.run(ctx.for_test(), solution)
    except (TestFileError, SandboxError):
        raise
    except Exception as error:  # a grader bug must cost a test, not the whole run
        return test.result(False, [f"Grader error: {type(error).__name__}: {error}"])


def grade(
    questions: list[Question],
    config: SandboxConfig,
    *,
    jobs: int = 2,
    on_question: Callable[[Question, QuestionResult], None] | None = None,
    on_start: Callable[[str | None, str], None] | None = None,
    first_worker: WorkerProcess | None = None,
    game_secret: str | None = None,
    spare: SpareWorker | None = None,
) -> RunResult:
    """Run every test of ``questions`` against the code ``config`` describes.

    ``game_secret`` is what the ghosts of graded games draw with (:mod:`pacman.seeding`),
    the course's; None: each test's own, derived from the test (:mod:`.kind_eval`). Never
    drawn per run or per submission, so a regrade repeats.

    ``on_start`` hears, before the first question, why the student's files do not
    import (None when they do) and what they printed meanwhile; ``on_question`` hears
    each question as it is scored. ``first_worker`` (already started with ``config``,
    as the protections were checked) is put to use instead of being started again, and
    ``spare`` (started meanwhile) is handed to the next thread that needs a worker.
    """
    started = time.monotonic()
    solutions = {
        path: q.solutions.get(path)
        or (_read_solution(path) if test.needs_solution or os.path.exists(path) else TestFile(path))
        for q in questions
        for test, path in q.tests
    }
    budget_seconds = submission_budget(questions, solutions, config.limits)
    pool = WorkerPool(config)
    if first_worker is not None:
        pool.adopt(first_worker)
    if spare is not None:
        pool.expect(spare)
    ctx = Context(pool, config.limits, Budget(budget_seconds), game_secret=game_secret or "")
    heard = on_question or (lambda question, outcome: None)
    results: list[QuestionResult] = []
    load_error, import_output = None, ""
    try:
        if config.student_files:
            load_error, import_output = _check_import(ctx)
            pool.release()  # the first test reuses the worker that has imported the files
        if on_start is not None:
            on_start(load_error, import_output)
        if load_error is not None:
            for question in questions:
                skipped = [test.result(False, [NOT_IMPORTED]) for test, _ in question.tests]
                results.append(QuestionResult(question.name, 0.0, question.max_points, skipped))
                heard(question, results[-1])
        else:
            results = _run_questions(questions, ctx, solutions, jobs, heard)
    finally:
        pool.close()
    return RunResult(
        results,
        time.monotonic() - started,
        pool.isolation,
        pool.protections,
        load_error,
        budget_seconds,
        import_output,
    )


def _run_questions(
    questions: list[Question],
    ctx: Context,
    solutions: dict[str, TestFile],
    jobs: int,
    heard: Callable[[Question, QuestionResult], None],
) -> list[QuestionResult]:
    """Every test, ``jobs`` at a time, the longest first; the questions scored in order."""
    everything = [(q, test, path) for q in questions for test, path in q.tests]
    order = sorted(range(len(everything)), key=lambda i: -everything[i][1].cost())
    # A question all of whose tests must pass is lost once one test ran out of time:
    # its tests not yet started are reported, not run (an infinite loop would otherwise
    # cost every test its full limit).
    lost: dict[str, str] = {}
    lost_lock = threading.Lock()

    def run_one(index: int) -> TestResult:
        question, test, path = everything[index]
        with lost_lock:
            skip = lost.get(question.name)
        result = _safe_run(test, ctx, solutions[path], skip)
        if result.timed_out and question.kind == "PassAllTestsQuestion":
            with lost_lock:
                lost.setdefault(
                    question.name,
                    f"Not run: {result.path} ran out of time, so this question scores 0 "
                    "whatever this test does.",
                )
        return result

    results = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as executor:
        futures: dict[int, Future[TestResult]] = {i: executor.submit(run_one, i) for i in order}
        index = 0
        for question in questions:
            test_results = []
            for _ in question.tests:
                test_results.append(futures[index].result())
                index += 1
            results.append(score_question(question, test_results))
            heard(question, results[-1])
    return results


def generate_solutions(
    questions: list[Question], config: SandboxConfig, log: Callable[[str], None]
) -> int:
    """Write each test's .solution from the code under test; returns how many were written."""
    from pacman.testfile import write_test_file

    pool = WorkerPool(config)
    ctx = Context(pool, config.limits)
    written = 0
    try:
        for question in questions:
            for test, path in question.tests:
                fields: dict[str, Any] = test.generate(ctx.for_test())
                header = (
                    f"Solution for {os.path.basename(test.path)}, written by --generate-solutions."
                )
                if not fields:
                    header += "\nThis test needs no solution data."
                write_test_file(path, fields, header)
                written += 1
                log(f"Wrote {display(path)}")
    finally:
        pool.close()
    return written
