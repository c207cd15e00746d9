"""``--submissions DIR``: grade every subfolder of DIR (one submission each) in parallel.

Each submission travels as a :class:`~pacman.grading.submission.SubmissionTask`
(its files and the suite, as bytes), so it is graded with its own private copy
and its own workers; the other submissions and the suite are never in its view.
The run writes one CSV and one JSON summary, per submission and question, and
shows a progress bar.
"""

from __future__ import annotations

import csv
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TextIO

from pacman.errors import UsageError
from pacman.grading.report import write_json
from pacman.grading.submission import (
    GradingOptions,
    SubmissionError,
    SubmissionTask,
    grade_submission,
    read_submission,
)


def submission_folders(root: str) -> list[str]:
    """The subfolders of ``root`` to grade, in name order."""
    if not os.path.isdir(root):
        raise UsageError(f"--submissions {root}: no such folder")
    folders = sorted(
        os.path.join(root, name)
        for name in os.listdir(root)
        if not name.startswith(".") and os.path.isdir(os.path.join(root, name))
    )
    if not folders:
        raise UsageError(f"--submissions {root}: no subfolders to grade")
    return folders


def make_task(
    folder: str, names: list[str], suite: dict[str, bytes], options: GradingOptions
) -> SubmissionTask:
    """The task for one submission folder; unreadable files become the task's error."""
    name = os.path.basename(folder)
    try:
        files = read_submission(folder, names)
    except SubmissionError as error:
        return SubmissionTask(name, {}, suite, options, error=str(error))
    return SubmissionTask(name, files, suite, options)


def write_summary(prefix: str, question_names: list[str], records: list[dict[str, Any]]) -> None:
    with open(prefix + ".csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["submission", *question_names, "total", "max_total", "error"])
        for record in records:
            writer.writerow(
                [
                    record["submission"],
                    *(f"{record['questions'][n]['points']:g}" for n in question_names),
                    f"{record['total']:g}",
                    record["max_total"],
                    record["error"] or "",
                ]
            )
    write_json(prefix + ".json", {"questions": question_names, "submissions": records})


def run_batch(
    root: str,
    names: list[str],
    suite: dict[str, bytes],
    question_names: list[str],
    options: GradingOptions,
    summary_prefix: str,
    jobs: int,
    out: TextIO,
) -> int:
    """Grade every submission under ``root``; write ``summary_prefix``.csv/.json."""
    from tqdm import tqdm

    folders = submission_folders(root)
    tasks = [make_task(folder, names, suite, options) for folder in folders]
    records: list[dict[str, Any]] = []
    with (
        ThreadPoolExecutor(max_workers=max(1, jobs)) as executor,
        tqdm(total=len(tasks), desc="Grading", unit="submission", file=sys.stderr) as bar,
    ):
        futures = [executor.submit(grade_submission, task) for task in tasks]
        for future in futures:
            records.append(future.result())
            bar.update(1)
    write_summary(summary_prefix, question_names, records)
    print(
        f"Graded {len(records)} submissions: {summary_prefix}.csv, {summary_prefix}.json", file=out
    )
    for record in records:
        print(f"{record['submission']}: {record['total']:g}/{record['max_total']}", file=out)
    return 0
