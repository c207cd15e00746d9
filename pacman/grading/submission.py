"""One submission as a self-contained task: its files, the suite and the options travel together.

A :class:`SubmissionTask` holds the bytes of the student's files and of the test
suite, so it can be graded in another process or on another machine (a Dask
worker) with no shared file system: :func:`grade_submission` unpacks both into
private temporary folders, grades, removes them and returns a plain record.

Reading a submission refuses anything that is not a plain file inside the
submission's own folder (symlinks, hard links, devices): a student must not
be able to hand in another student's file.
"""

from __future__ import annotations

import os
import socket
import tempfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pacman import untrusted
from pacman.errors import UsageError
from pacman.grading.options import GradingJob, GradingOptions
from pacman.sandbox.cleanup import remove_tree
from pacman.sandbox.config import retried
from pacman.sandbox.staging import (
    ROOM_WAIT,
    SubmissionError,
    short_of_room,
    stage_files,
    write_tree,
)

if TYPE_CHECKING:
    from pacman.grading.suite import Question

#: The suite's files are read up to this size in all.
MAX_SUITE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class SubmissionTask:
    """Everything needed to grade one submission, with no reference to the grader's files."""

    name: str
    files: dict[str, bytes]  # student file name -> contents, in lookup order
    suite: dict[str, bytes]  # path inside the suite ("q2/0-small-tree.test") -> contents
    options: GradingOptions = field(default_factory=GradingOptions)
    error: str | None = None  # why the files could not be read: graded 0 with this reason
    #: (question, max points) in order: a record's rows, even where the suite cannot be
    #: unpacked (a full disk) to read them from.
    questions: tuple[tuple[str, int], ...] = ()


def suite_to_send(
    job: GradingJob, options: GradingOptions
) -> tuple[list[Question], dict[str, bytes]]:
    """The suite's questions, checked (a broken suite fails here, before anything is graded
    or packed), and its files as bytes for graders elsewhere (a batch's workers, a bundle)."""
    from pacman.grading.suite import load_suite
    from pacman.grading.suitegen import fresh_questions

    questions = load_suite(job.test_root, options.question)
    # Fresh trees are drawn now, for no one, so a wrong --fresh-trees fails before anything.
    fresh_questions(questions, options.fresh_trees, "", {}, every=options.question is None)
    if job.leaderboard and not any(
        test.kind == "EvalAgentTest" for q in questions for test, _ in q.tests
    ):
        raise UsageError(
            "--leaderboard ranks by the suite's EvalAgentTest games, and the questions "
            "graded have none (choose them with -q, or leave out --leaderboard)"
        )
    try:
        suite = read_suite(job.test_root)
    except SubmissionError as error:
        raise UsageError(f"--test-directory {error}") from None
    return questions, suite


def read_suite(test_dir: str) -> dict[str, bytes]:
    """Every file of a suite folder (CONFIG, question folders), keyed by relative path."""
    if not os.path.isdir(test_dir):
        raise SubmissionError(f"{test_dir}: no such test directory")
    suite: dict[str, bytes] = {}
    total = 0
    for top, folders, names in os.walk(test_dir):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            path = os.path.join(top, name)
            if not os.path.isfile(path):
                continue
            with open(path, "rb") as handle:
                data = handle.read()
            total += len(data)
            if total > MAX_SUITE_BYTES:
                raise SubmissionError(
                    f"{test_dir}: the suite is larger than {MAX_SUITE_BYTES} bytes"
                )
            suite[os.path.relpath(path, test_dir)] = data
    return suite


def _zero_record(task: SubmissionTask, error: str) -> dict[str, Any]:
    return {
        "submission": task.name,
        "error": error,
        "isolation": None,  # no student code ran
        "total": 0.0,
        "max_total": sum(points for _, points in task.questions),
        "seconds": 0.0,
        "questions": {
            name: {"points": 0.0, "max_points": points} for name, points in task.questions
        },
    }


def _weakness(protections: dict[str, Any]) -> str | None:
    """What the sandbox could not prove for this submission (graded so by --unsafe-weak-sandbox)."""
    from pacman.sandbox.policy import describe_shortfalls, shortfalls

    missing = shortfalls(protections)
    return describe_shortfalls(missing) if missing else None


def grade_submission(task: SubmissionTask) -> dict[str, Any]:
    """Grade one submission end to end; return its record (see docs/grading.md, grades.json).

    Whatever goes wrong for this submission alone (its files, a full disk while they are
    staged, a machine that cannot grade) is its record's ``error``, never the batch's end.
    """
    if task.error is not None:
        return _zero_record(task, task.error)
    where = socket.gethostname()
    try:
        return _grade_staged(task)
    except OSError as error:
        reason = untrusted.line(error.strerror or error)
        return _zero_record(
            task, f"not graded on {where}: its files could not be staged here ({reason})"
        )
    except Exception as error:  # the grader's trouble must not stop a batch
        return _zero_record(task, f"not graded on {where}: {untrusted.line(error)}")


def _staged(private: str, task: SubmissionTask, uid: int | None) -> tuple[str, str, list[str]]:
    """The suite and the student's files written in ``private`` (what an attempt before
    left is removed first): ``(suite folder, staged folder, staged files)``."""
    suite_dir = os.path.join(private, "test_cases")
    for folder in (suite_dir, os.path.join(private, "code")):
        remove_tree(folder)
    os.mkdir(suite_dir, 0o700)
    write_tree(suite_dir, task.suite)
    return (suite_dir, *stage_files(private, task.files, uid))


def _grade_staged(task: SubmissionTask) -> dict[str, Any]:
    from pacman.grading.report import format_test, import_report
    from pacman.grading.session import grade
    from pacman.grading.suite import load_suite
    from pacman.grading.suitegen import fresh_questions
    from pacman.sandbox.ids import allocate_uid

    options = task.options
    with tempfile.TemporaryDirectory(prefix="pacman-grade-", ignore_cleanup_errors=True) as private:
        uid = allocate_uid()
        # A disk a classmate's worker filled is given back when that worker is stopped.
        suite_dir, stage, staged = retried(
            lambda: _staged(private, task, uid), short_of_room, ROOM_WAIT
        )
        questions = load_suite(suite_dir, options.question, display_root=private)
        secret, every = options.game_secret or "", options.question is None
        questions = fresh_questions(questions, options.fresh_trees, secret, task.files, every)
        config = options.sandbox(
            staged=staged, stage=stage, hidden=[suite_dir], uid=uid, allow_weak=options.unsafe
        )
        # Each worker proves its walls before the student's code is imported; where it
        # cannot (a Dask worker may offer less than the grader's machine), SandboxError.
        run = grade(questions, config, jobs=options.jobs or 1, game_secret=options.game_secret)
    return {
        "submission": task.name,
        "error": run.load_error,
        "total": run.total,
        "max_total": run.max_total,
        "seconds": round(run.seconds, 3),
        "isolation": run.isolation,
        "protections": run.protections,
        "warning": _weakness(run.protections),
        "budget_seconds": run.budget_seconds,
        "import_report": "\n".join(import_report(run.load_error, run.import_output, options.mute)),
        "questions": {
            q.name: {
                "points": q.points,
                "max_points": q.max_points,
                "tests": [
                    {
                        "test": r.path,
                        "passed": r.passed,
                        "report": "\n".join(format_test(r, options.mute)),
                        **({"games": r.games} if r.games is not None else {}),
                    }
                    for r in q.tests
                ],
            }
            for q in run.questions
        },
    }
