"""``--submissions DIR``: grade every subfolder of DIR (one submission each) in parallel.

Each submission travels as a :class:`~pacman.grading.submission.SubmissionTask`
(its files and the suite, as bytes), so it is graded with its own private copy
and its own student workers, in a grading process of a local pool or on a Dask
worker (:mod:`pacman.execution`, the path game batches take too); the other
submissions and the suite are never in its view. Each graded submission adds a
row to the CSV and JSON summaries at once and moves the progress bar (on a terminal); an
interruption keeps every graded submission.

This module sits below the command line (:mod:`pacman.grade_cli`) and never imports it.
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any, TextIO

from pacman import untrusted
from pacman.errors import UsageError
from pacman.execution import (
    Interrupted,
    TaskRun,
    interruption_handled,
    progress_bar,
    signals_deferred,
)
from pacman.grading.options import GradingOptions
from pacman.grading.similarity_report import SimilarityRequest, flag_similar
from pacman.grading.submission import SubmissionTask, grade_submission
from pacman.outputs import StreamedJsonList, StreamedLines, prepare_output_file
from pacman.sandbox.cleanup import temporary_root
from pacman.sandbox.staging import SubmissionError, read_submission


def submission_folders(root: str) -> list[str]:
    """The subfolders of ``root`` to grade, in name order: every one, dot folders and names
    that are not UTF-8 included, so that no submission goes without a row."""
    if not os.path.isdir(root):
        raise UsageError(f"--submissions {untrusted.line(root)}: no such folder")
    folders = sorted(
        os.path.join(root, name)
        for name in os.listdir(root)
        if os.path.isdir(os.path.join(root, name))
    )
    if not folders:
        raise UsageError(f"--submissions {untrusted.line(root)}: no subfolders to grade")
    return folders


def make_task(
    folder: str,
    names: list[str],
    suite: dict[str, bytes],
    options: GradingOptions,
    questions: tuple[tuple[str, int], ...] = (),
) -> SubmissionTask:
    """The task for one submission folder; unreadable files become the task's error."""
    name = untrusted.name(os.path.basename(folder))  # shown in every report, CSV and JSON
    try:
        files = read_submission(folder, names)
    except SubmissionError as error:
        error_text = untrusted.line(error)
        return SubmissionTask(name, {}, suite, options, error=error_text, questions=questions)
    return SubmissionTask(name, files, suite, options, questions=questions)


def grade_on_worker(task: SubmissionTask) -> dict[str, Any]:
    """Grade one submission where this runs (a pool process, a Dask worker); say where and how."""
    record = grade_submission(task)
    # Its "isolation" and "protections" are what held on that machine (each worker
    # resolves --isolation itself).
    record["host"] = socket.gethostname()
    return record


class GradesFiles:
    """``PREFIX.csv`` and ``PREFIX.json``, a row each as each submission is graded.

    Both files are valid at every instant; when the run ends (or is interrupted)
    they are rewritten in submission-name order.
    """

    def __init__(
        self,
        prefix: str,
        question_names: list[str],
        graded: dict[str, Any] | None = None,
        similar: dict[str, str] | None = None,
    ) -> None:
        self.question_names = question_names
        self.similar = similar  # --similarity: each submission's most similar other side
        columns = ["submission", *question_names, "total", "max_total", "isolation", "error"]
        header = untrusted.csv_row(columns + (["most_similar"] if similar is not None else []))
        self.csv = StreamedLines(prefix + ".csv", header)
        head = {**({"graded": graded} if graded else {}), "questions": question_names}
        self.json = StreamedJsonList(prefix + ".json", head, "submissions")

    def add(self, record: dict[str, Any]) -> None:
        questions = record["questions"]
        row = [
            record["submission"],
            *(f"{questions[name]['points']:g}" for name in self.question_names),
            f"{record['total']:g}",
            record["max_total"],
            record.get("isolation") or "",
            record["error"] or "",
        ]
        if self.similar is not None:
            row.append(self.similar.get(record["submission"], ""))
        self.csv.add(record["submission"], untrusted.csv_row(row))
        self.json.add(record["submission"], record)

    def finish(self) -> None:
        self.csv.finish()
        self.json.finish()


def run_batch(
    root: str,
    names: list[str],
    suite: dict[str, bytes],
    questions: list[tuple[str, int]],
    options: GradingOptions,
    summary_prefix: str,
    jobs: int,
    out: TextIO,
    scheduler: str | None = None,
    leaderboard: bool = False,
    graded: dict[str, Any] | None = None,
    warning: str | None = None,
    baselines: list[SubmissionTask] | None = None,
    similarity: SimilarityRequest | None = None,
) -> int:
    """Grade every submission under ``root`` in ``jobs`` grading processes (or on the Dask
    ``scheduler``); write ``summary_prefix``.csv/.json as each submission is graded, and
    with ``leaderboard`` the ranking by the EvalAgentTest games (:mod:`.leaderboard`), with
    ``similarity`` the similar pairs first (:mod:`.similarity_report`, here, once);
    ``graded`` (what is graded: :meth:`GradingJob.graded`) heads the report and the JSON,
    with the weak sandbox's ``warning`` next; ``baselines``: fixed agents graded alongside,
    on the leaderboard only (:mod:`.baselines`); ``questions``: names and points, in order.

    Returns 0, or 130/143 when interrupted (the graded submissions are kept).
    """
    _prepare_outputs(summary_prefix, leaderboard, similarity is not None)
    folders = submission_folders(root)
    if graded is not None:
        from pacman.grading.report import heading

        heading(graded, warning, out)
    tasks = [make_task(folder, names, suite, options, tuple(questions)) for folder in folders]
    fixed = {task.name for task in baselines or []}
    similar = flag_similar(tasks, similarity, summary_prefix, out) if similarity else None
    records: list[dict[str, Any]] = []
    fixed_records: list[dict[str, Any]] = []
    files = f"{summary_prefix}.csv, {summary_prefix}.json"
    stopped: Interrupted | None = None
    with interruption_handled(), temporary_root("pacman-batch-"):
        grades = GradesFiles(summary_prefix, [name for name, _ in questions], graded, similar)
        # On a terminal only: a log (CI, Gradescope, a file) would keep every redraw of the bar.
        bar = progress_bar(len(tasks) + len(fixed), "submission", shown=sys.stderr.isatty())
        every = [*tasks, *(baselines or [])]
        try:
            with TaskRun(grade_on_worker, every, jobs=jobs, scheduler=scheduler) as run:
                for _, record in run:
                    with signals_deferred():
                        kept = fixed_records if record["submission"] in fixed else records
                        kept.append(record)
                        if kept is records:  # a baseline is ranked, never graded
                            grades.add(record)
                    bar.update()
        except Interrupted as stop:
            stopped = stop
        finally:
            bar.close()
            grades.finish()
    if stopped is not None:
        print(
            f"autograder: interrupted: {len(records)} of {len(tasks)} submissions; "
            f"results in {files}",
            file=sys.stderr,
        )
        return stopped.exit_code
    _summarise(records, files, out)
    if leaderboard:
        from pacman.grading.leaderboard import write_leaderboard

        written = write_leaderboard(records, summary_prefix, fixed_records if fixed else None)
        print(f"Leaderboard: {', '.join(written)}", file=out)
    return 0


def _prepare_outputs(summary_prefix: str, leaderboard: bool, similarity: bool) -> None:
    """Refuse, before grading anyone, a --summary that is a folder or files that cannot be
    written."""
    if not os.path.basename(summary_prefix) or os.path.isdir(summary_prefix):
        example = os.path.join(summary_prefix, "grades")
        raise UsageError(
            f"--summary {summary_prefix}: give a file prefix, not a folder "
            f"(--summary {example} writes {example}.csv and {example}.json)"
        )
    for extension in (".csv", ".json"):
        prepare_output_file("--summary", summary_prefix + extension)
        if leaderboard:
            prepare_output_file("--leaderboard", f"{summary_prefix}-leaderboard{extension}")
    if similarity:
        prepare_output_file("--similarity", f"{summary_prefix}-similarity.html")


def _summarise(records: list[dict[str, Any]], files: str, out: TextIO) -> None:
    """The batch's last lines: where its grades are, then each submission's total by name."""
    print(f"Graded {len(records)} submissions: {files}", file=out)
    for record in sorted(records, key=lambda record: record["submission"]):
        print(f"{record['submission']}: {record['total']:g}/{record['max_total']}", file=out)
