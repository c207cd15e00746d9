"""What the Gradescope bundle adds around grading: the name a student shows on the class
leaderboard, and a results.json written before the platform's time limit kills the run.

The leaderboard name is the student's own choice (a ``pseudonym.txt`` handed in with the
code), checked here; otherwise one derived from the bundle's secret and Gradescope's
submission id, which nobody without the secret can tie to a student. Never a login or a
name from ``submission_metadata.json``.

The time limit: Gradescope kills ``run_autograder`` at its limit, and a student then sees
"autograder failed to execute correctly" and nothing else. :class:`PlatformTimer` fires a
margin before it, writes the questions finished so far with a note saying why the rest got
nothing, and stops the grading as a Ctrl-C does (SIGTERM to itself; a second one, half the
margin later, ends it at once with its workers when a game holds the first back).
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from pacman.grading.options import PLATFORM_TIME_LIMIT
from pacman.sandbox.staging import SubmissionError, read_plain_file

PSEUDONYM_FILE = "pseudonym.txt"
PSEUDONYM_CHARS = 24
DEFAULT_PLATFORM_LIMIT = PLATFORM_TIME_LIMIT


def derived_pseudonym(secret: str, student_id: str) -> str:
    """``player-3f9a1c2e``: an HMAC of the student's id under the bundle's secret."""
    digest = hmac.new(secret.encode(), b"leaderboard\0" + student_id.encode(), hashlib.sha256)
    return "player-" + digest.hexdigest()[:8]


def pseudonym_problem(text: str) -> str | None:
    """Why ``text`` cannot be shown as a leaderboard name (None: it can)."""
    if not text:
        return "it is empty"
    if len(text) > PSEUDONYM_CHARS:
        return f"it is {len(text)} characters long (at most {PSEUDONYM_CHARS})"
    if not text.isprintable():
        return "it holds characters that do not print (write letters, digits, spaces)"
    return None


def _read_small(path: str, limit: int = 4096, *, students: bool = True) -> bytes | None:
    """The plain file ``path`` if it holds at most ``limit`` bytes, read as a student's files
    are (:func:`read_plain_file`: never through a link or a special file, nor a hard link
    where the file is the ``students``); None where there is no such file."""
    try:
        return read_plain_file(path, limit, one_name=students)
    except SubmissionError:
        return None


def student_id(root: str) -> str:
    """Gradescope's number for the student who submitted (``submission_metadata.json``'s
    first user; the submission's own id where it names none), or "" when absent. The user's
    number, not the submission's, so a resubmission keeps its name on the leaderboard; never
    the email or the name."""
    raw = _read_small(os.path.join(root, "submission_metadata.json"), 1 << 20, students=False)
    try:
        metadata = json.loads(raw or b"{}")
        users = metadata.get("users")
        first = users[0] if isinstance(users, list) and users else {}
        found = first.get("id") if isinstance(first, dict) else None
        found = metadata.get("id") if found is None else found
    except (ValueError, AttributeError):
        return ""
    return str(found) if isinstance(found, (int, str)) else ""


def leaderboard_name(root: str, secret: str, beside: str = "") -> tuple[str, str | None]:
    """The submission's leaderboard name and, when its ``pseudonym.txt`` (at the top of the
    submission, or in its folder ``beside`` the student's files) could not be used, a line
    saying why (shown to the student)."""
    fallback = derived_pseudonym(secret, student_id(root) or "no student id")
    folder = os.path.join(root, "submission")
    raw = _read_small(os.path.join(folder, PSEUDONYM_FILE))
    if raw is None and beside:
        raw = _read_small(os.path.join(folder, beside, PSEUDONYM_FILE))
    if raw is None:
        return fallback, None
    try:
        lines = raw.decode("utf-8").strip().splitlines()
    except UnicodeDecodeError:
        lines = None
    chosen = lines[0].strip() if lines else ""
    problem = "it is not UTF-8 text" if lines is None else pseudonym_problem(chosen)
    if problem is None:
        return chosen, None
    return fallback, (
        f"{PSEUDONYM_FILE} was not used ({problem}): the leaderboard shows you as {fallback}"
    )


# ------------------------------------------------------------------------------ time limit


class ReportCopy(io.StringIO):
    """The grader's report as it is printed, kept to say which questions were finished."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self.out = out

    def write(self, text: str) -> int:
        super().write(text)
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()

    def text(self) -> str:
        return self.getvalue()


#: A finished question's last line in the report (student output is always behind "***").
_QUESTION_DONE = re.compile(r"^### Question (\S+): ([0-9.]+)/([0-9]+) ###$", re.MULTILINE)


def stopped_results(
    report: str, why: str, hidden: Sequence[str] = (), when: str = "after_published"
) -> dict[str, Any]:
    """results.json for a run stopped part way: the points of the questions finished, and
    ``why`` the rest got none. A question ``hidden`` names (or one of its tests) gets the
    visibility ``when`` and no line in the output, as in a finished run."""
    done = [(m[1], float(m[2]), int(m[3])) for m in _QUESTION_DONE.finditer(report)]

    def held_back(name: str) -> bool:
        return any(entry == name or entry.startswith(name + "/") for entry in hidden)

    lines = [why]
    lines += [
        f"Finished: Question {name}: {points:g}/{most}"
        for name, points, most in done
        if not held_back(name)
    ]
    return {
        "score": sum(points for _, points, _ in done),
        "output": "\n".join(lines),
        "visibility": "visible",
        "tests": [
            {
                "name": f"Question {name}",
                "score": points,
                "max_score": most,
                "visibility": when if held_back(name) else "visible",
            }
            for name, points, most in done
        ],
        "extra_data": {"stopped": why},
    }


def time_limit_note(limit: float) -> str:
    return (
        f"autograder: grading stopped at the platform's time limit ({limit:g} s): the "
        "questions finished below kept their points, the others got none. Your agents "
        "took too long: make them faster (a smaller depth, a cheaper evaluation) and submit again"
    )


def firing_time(limit: float) -> float:
    """When to write the results: 30 s before ``limit``, or a tenth of it when shorter."""
    return limit - min(30.0, limit / 10)


class PlatformTimer:
    """Writes ``stopped_results`` with :func:`time_limit_note` shortly before ``limit``
    seconds have passed, then stops the process's grading with SIGTERM."""

    def __init__(self, write: Callable[[dict[str, Any]], None], report: ReportCopy) -> None:
        self.write = write
        self.report = report
        self.fired: dict[str, Any] | None = None
        self._timer: threading.Timer | None = None
        self.started = time.monotonic()
        self.hidden: list[str] = []
        self.when = "hidden"

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def start(self, limit: float, hidden: Sequence[str] = (), when: str = "hidden") -> None:
        """Fire a margin before ``limit`` seconds from the start; ``hidden`` questions and
        tests and their visibility ``when``, as the bundle holds them."""
        self.hidden, self.when = list(hidden), when
        wait = max(0.0, firing_time(limit) - self.elapsed())
        self._timer = threading.Timer(wait, self._fire, [limit])
        self._timer.daemon = True
        self._timer.start()

    def _fire(self, limit: float) -> None:
        self.fired = self.stopped(time_limit_note(limit))
        self.write(self.fired)
        os.kill(os.getpid(), signal.SIGTERM)
        # A test thread may be in the middle of a game the grader waits for: half the margin
        # later, a second SIGTERM kills the workers and ends the process (status 143), its
        # results written.
        time.sleep((limit - firing_time(limit)) / 2)
        os.kill(os.getpid(), signal.SIGTERM)

    def stopped(self, why: str) -> dict[str, Any]:
        """The results of the grading so far, stopped for ``why``."""
        return stopped_results(self.report.text(), why, self.hidden, self.when)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


def stopped_by_signal_note() -> str:
    return (
        "autograder: grading was stopped by the platform before it finished (a time "
        "limit or a restart): the questions finished below kept their points; if your "
        "agents are slow, make them faster and submit again"
    )


def check_bundle_suite(test_root: str) -> None:
    """Load the bundle's suite once before grading: a file of it that cannot be read is the
    course's problem, said so to the student, never blamed on their code."""
    from pacman.errors import PacmanError, UsageError
    from pacman.grading.suite import load_suite

    try:
        load_suite(test_root)
    except PacmanError as error:
        raise UsageError(
            f"the course's autograder is broken, not your code ({error}): nothing was "
            "graded; please tell the course staff"
        ) from None
