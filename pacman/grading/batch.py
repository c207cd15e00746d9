"""``--submissions DIR``: grade every subfolder of DIR (one submission each) in parallel.

Each submission gets its own staged copy of its files and its own workers; the
other submissions and the suite are hidden from it. The run writes one CSV
and one JSON summary, per submission and question, and shows a progress bar.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TextIO

from pacman.errors import UsageError
from pacman.grading.runner import Question, grade, load_suite


def _grade_one(
    args: argparse.Namespace, questions: list[Question], folder: str, root: str
) -> dict[str, Any]:
    from pacman.grading.cli import (
        format_test,
        make_config,
        stage_student_code,
        student_names,
    )

    names = student_names(args) or ["multiAgents.py"]
    record: dict[str, Any] = {"submission": os.path.basename(folder), "error": None}
    with tempfile.TemporaryDirectory(prefix="pacman-grade-") as stage:
        os.chmod(stage, 0o755)
        try:
            staged = stage_student_code(folder, names, stage)
        except UsageError as error:
            record.update(
                error=str(error), total=0.0, max_total=sum(q.max_points for q in questions)
            )
            record["questions"] = {
                q.name: {"points": 0.0, "max_points": q.max_points} for q in questions
            }
            return record
        config = make_config(args, stage, staged, [root])
        run = grade(questions, config, jobs=1)
    record["total"] = run.total
    record["max_total"] = run.max_total
    record["seconds"] = round(run.seconds, 3)
    record["questions"] = {
        q.name: {
            "points": q.points,
            "max_points": q.max_points,
            "tests": [
                {
                    "test": r.path,
                    "passed": r.passed,
                    "report": "\n".join(format_test(r, args.mute)),
                }
                for r in q.tests
            ],
        }
        for q in run.questions
    }
    return record


def run_batch(args: argparse.Namespace, out: TextIO) -> int:
    from tqdm import tqdm

    from pacman.grading.cli import _test_root, write_json

    root = os.path.abspath(args.submissions)
    if not os.path.isdir(root):
        raise UsageError(f"--submissions {args.submissions}: no such folder")
    folders = sorted(
        os.path.join(root, name)
        for name in os.listdir(root)
        if os.path.isdir(os.path.join(root, name)) and not name.startswith(".")
    )
    if not folders:
        raise UsageError(f"--submissions {args.submissions}: no subfolders to grade")
    questions = load_suite(_test_root(args), args.question)
    jobs = args.jobs or os.cpu_count() or 1
    records: list[dict[str, Any]] = []
    with (
        ThreadPoolExecutor(max_workers=jobs) as executor,
        tqdm(total=len(folders), desc="Grading", unit="submission", file=sys.stderr) as bar,
    ):
        futures = [executor.submit(_grade_one, args, questions, f, root) for f in folders]
        for future in futures:
            records.append(future.result())
            bar.update(1)
    prefix = args.summary or os.path.join(root, "grades")
    names = [q.name for q in questions]
    with open(prefix + ".csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["submission", *names, "total", "max_total", "error"])
        for record in records:
            writer.writerow(
                [
                    record["submission"],
                    *(f"{record['questions'][n]['points']:g}" for n in names),
                    f"{record['total']:g}",
                    record["max_total"],
                    record["error"] or "",
                ]
            )
    write_json(prefix + ".json", {"questions": names, "submissions": records})
    print(f"Graded {len(records)} submissions: {prefix}.csv, {prefix}.json", file=out)
    for record in records:
        print(f"{record['submission']}: {record['total']:g}/{record['max_total']}", file=out)
    return 0
