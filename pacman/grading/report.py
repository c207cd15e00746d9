"""The grader's report: CS188's lines for tests and questions, and the JSON results."""

from __future__ import annotations

import json
import os
import time
from typing import Any, TextIO

from pacman import untrusted
from pacman.grading.session import RunResult
from pacman.grading.suite import Question, QuestionResult

PREFIX = "***     "


def _printed(output: str) -> list[str]:
    lines = [PREFIX + "Your code printed (shown with '| ' so it cannot pass for grader output):"]
    shown = untrusted.text(output, untrusted.REPORT_CHARS)
    return lines + [PREFIX + "| " + line for line in shown.splitlines()]


def _message_lines(messages: list[Any]) -> list[str]:
    """A test's or an import's messages, escaped and capped (one padded log cannot make a
    report of megabytes)."""
    shown = untrusted.text("\n".join(str(message) for message in messages), untrusted.REPORT_CHARS)
    return [PREFIX + line for line in shown.split("\n")] if messages else []


def import_report(load_error: str | None, printed: str, mute: bool) -> list[str]:
    """The lines about importing the student's files: why it failed, what they printed."""
    lines = _message_lines(load_error.splitlines()) if load_error else []
    if printed.strip() and not mute:
        lines += _printed(printed)
    return lines


def format_test(result: Any, mute: bool) -> list[str]:
    verdict = "PASS" if result.passed else "FAIL"
    lines = _message_lines(result.messages)
    if result.output and not mute:
        lines += _printed(result.output)
    if result.max_points:
        head = f"*** {verdict}: {result.path} ({result.points:g} of {result.max_points:g} points)"
    else:
        head = f"*** {verdict}: {result.path}"
    # CS188 prints a test's messages before a points line, and after a plain verdict.
    return [*lines, head] if result.max_points else [head, *lines]


def test_listing(test: Any) -> list[str]:
    """``-p``: the test file as written, each line behind the report's prefix."""
    text = test.text
    if text is None:
        try:
            with open(test.path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            text = ""
    return [f"*** Test {test.display_path}:", *(PREFIX + line for line in text.splitlines())]


def question_block(
    question: Question, outcome: QuestionResult, mute: bool, print_tests: bool = False
) -> str:
    lines = [f"Question {question.name}", "=" * (9 + len(question.name)), ""]
    for (test, _), result in zip(question.tests, outcome.tests, strict=True):
        if print_tests:
            lines += test_listing(test)
        lines += format_test(result, mute)
    for message in outcome.messages:
        lines.append(f"*** {message}")
    lines += [
        "",
        f"### Question {question.name}: {outcome.points:g}/{outcome.max_points} ###",
        "",
        "",
    ]
    return "\n".join(lines)


def summary_block(run: RunResult) -> str:
    lines = [
        f"Finished at {time.strftime('%H:%M:%S')}",
        "",
        "Provisional grades",
        "==================",
    ]
    for q in run.questions:
        lines.append(f"Question {q.name}: {q.points:g}/{q.max_points}")
    lines += ["------------------", f"Total: {run.total:g}/{run.max_total}", ""]
    return "\n".join(lines)


def graded_line(graded: dict[str, Any]) -> str:
    """``Grading multiAgents.py (/abs/multiAgents.py) against test_cases (/abs/test_cases)``:
    the first line of every report (``graded`` from :meth:`GradingJob.graded`)."""
    if graded["project_agents"]:
        code = f"the project's own agents ({graded['code'][0]})"
    else:
        code = ", ".join(f"{os.path.basename(path)} ({path})" for path in graded["code"])
    suite = graded["suite"]
    # A handed-in file's path may hold anything: the line stays one line.
    return untrusted.line(f"Grading {code} against {os.path.basename(suite)} ({suite})")


def heading(graded: dict[str, Any], warning: str | None, out: TextIO) -> None:
    """The report's first lines, once no refusal can come: what is graded, against which
    suite (:meth:`GradingJob.graded`); then the weak sandbox's warning, if any."""
    print(graded_line(graded), file=out, flush=True)
    if warning is not None:
        print(warning, file=out, flush=True)


def results_json(
    run: RunResult,
    mute: bool = False,
    graded: dict[str, Any] | None = None,
    warning: str | None = None,
) -> dict[str, Any]:
    """Gradescope's response format (score, per-question tests with output); with
    ``graded``, what was graded, named in a field of its own and in the output's first
    line; with ``warning`` (a weak sandbox), that too, next."""
    tests = []
    for q in run.questions:
        text = "\n".join(line for r in q.tests for line in format_test(r, mute))
        tests.append(
            {
                "name": f"Question {q.name}",
                "score": q.points,
                "max_score": q.max_points,
                "output": text,
            }
        )
    return {
        **({"graded": graded} if graded else {}),
        **({"warning": warning} if warning is not None else {}),
        "score": run.total,
        "max_score": run.max_total,
        "execution_time": round(run.seconds, 3),
        "output": "\n".join(
            [
                *([graded_line(graded)] if graded else []),
                *([warning] if warning is not None else []),
                *import_report(run.load_error, run.import_output, mute),
                f"Total: {run.total:g}/{run.max_total} (isolation: {protection_summary(run)})",
            ]
        ),
        "tests": tests,
        "protections": run.protections,
    }


def protection_summary(run: RunResult) -> str:
    """``namespaces, uid 2100000257, Landlock v7, seccomp``: what held the student's code."""
    found = run.protections
    parts = [run.isolation]
    if found.get("separate_uid"):
        parts.append(f"uid {found.get('uid')}")
    if found.get("landlock"):
        parts.append(f"Landlock v{found['landlock']}")
    if found.get("seccomp"):
        parts.append("seccomp")
    return ", ".join(parts)


def write_edx(data: dict[str, Any], folder: str = ".") -> None:
    """CS188's ``--edx-output`` from the results: ``edx_response.html``, a section a question
    (its points, correct or not, and its report), and ``edx_grade``, the total points."""
    from html import escape

    from pacman.outputs import write_atomically

    def mark(score: float, most: float) -> str:
        return '<span class="correct"/>' if score >= most else '<span class="incorrect"/>'

    parts = ["<div>"]
    if "graded" in data:
        parts.append(f'  <p class="graded">{escape(graded_line(data["graded"]))}</p>')
    parts += [
        f"  <h3>Total score ({data['score']:g} / {data['max_score']:g}) "
        f"{mark(data['score'], data['max_score'])}</h3>",
    ]
    for test in data["tests"]:
        parts += [
            '  <div class="test"><section>',
            f'    <div class="shortform">{escape(test["name"])} '
            f"({test['score']:g}/{test['max_score']:g}) {mark(test['score'], test['max_score'])}"
            "</div>",
            f'    <div class="longform"><pre>{escape(test["output"])}</pre></div>',
            "  </section></div>",
        ]
    parts.append("</div>")
    write_atomically(os.path.join(folder, "edx_response.html"), "\n".join(parts) + "\n")
    write_atomically(os.path.join(folder, "edx_grade"), f"{data['score']:g}")


def write_json(path: str, data: Any) -> None:
    """``data`` as indented JSON, written whole or not at all, with the user's umask."""
    from pacman.outputs import write_atomically

    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_atomically(path, json.dumps(data, indent=2) + "\n")
