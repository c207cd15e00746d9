"""What every worker of one submission gets (:class:`SandboxConfig`, :class:`Limits`), and
how a worker can fail (:class:`SandboxError`, :class:`WorkerDied`, :class:`WorkerTimeout`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from pacman.errors import PacmanError

ISOLATION_MODES = ("auto", "namespaces", "bwrap", "process")


#: The wall-clock backstop for a request is this multiple of its CPU limit, plus
#: BACKSTOP_SLACK seconds: it only catches code that sleeps or blocks, since busy code
#: meets its CPU limit first, whatever else the machine is doing.
BACKSTOP_FACTOR = 5.0


BACKSTOP_SLACK = 5.0


def backstop(cpu_seconds: float) -> float:
    """Wall-clock seconds a request may take when it is allowed ``cpu_seconds`` of CPU."""
    return BACKSTOP_FACTOR * cpu_seconds + BACKSTOP_SLACK


@dataclass(frozen=True)
class Limits:
    """Resource limits for student code. Times are CPU seconds of the student's process."""

    move_seconds: float = 30.0  # one getAction in a tree or recorded-game test
    test_seconds: float | None = None  # everything one test asks (None: the test's own limits)
    submission_seconds: float | None = None  # the whole submission (None: derived from the suite)
    memory_mb: int = 2048
    output_bytes: int = 20_000  # student output kept per test
    fsize_mb: int = 16  # one file written by student code
    disk_mb: int = 64  # everything written in the worker's scratch folder
    reply_bytes: int = 4 * 1024 * 1024  # one reply from the worker


@dataclass(frozen=True)
class SandboxConfig:
    """What every worker of one submission gets (a variant: ``dataclasses.replace``)."""

    student_files: list[str] = field(default_factory=list)  # staged copies; empty: project agents
    code_dir: str | None = None  # the staged folder holding them (on sys.path, cwd)
    deny: list[str] = field(default_factory=list)  # folders the worker must not see
    #: The submission as handed in (one of ``deny``): never locked by file permissions, as
    #: it may be a read-only mount and is the student's (the worker reads its staged copy).
    submission_folder: str | None = None
    limits: Limits = field(default_factory=Limits)
    isolation: str = "auto"
    audit: bool = True
    #: Use at most this Landlock ABI (0: none), to try the grader as on an older kernel.
    landlock_abi_cap: int | None = None
    uid: int | None = None  # the submission's own uid (root graders); None: allocate one
    #: Run student code even where the proof finds a protection missing (the caller warns).
    allow_weak: bool = False
    #: ``deny`` and the project's copies are every copy of the answers: lock them by file
    #: permissions, which then hide them where Landlock and namespaces cannot (Policy).
    lock_answers: bool = False


def seconds(value: float) -> str:
    """A duration for a report: ``0.2 s``, ``3.4 s``, ``42 s``."""
    if value < 10:
        return f"{max(value, 0.0):.1f} s"
    return f"{value:.0f} s"


class SandboxError(PacmanError):
    """A worker could not be started at all: the grader itself cannot run."""


class MachineBusy(SandboxError):
    """No process or thread could be made for a worker just now (a pids cgroup or the
    user's process limit is full): another worker's end frees room, so try again soon."""


#: How a worker's start says the machine could make no process or thread just now.
BUSY_SIGNS = ("Resource temporarily unavailable", "Cannot fork", "can't start new thread")


Result = TypeVar("Result")


def retried(
    attempt: Callable[[], Result], passing: Callable[[Exception], bool], wait: float
) -> Result:
    """``attempt()``, tried again for up to ``wait`` seconds while what it raises is
    ``passing`` (the machine short of something another run is about to give back)."""
    deadline = time.monotonic() + wait
    pause = 0.1
    while True:
        try:
            return attempt()
        except Exception as error:
            if not passing(error) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(1.0, pause * 2)


class WorkerDied(Exception):
    """The worker process ended or broke the protocol; the message says how."""


class WorkerTimeout(Exception):
    """The worker went over a time limit; the message says which, and the time measured."""
