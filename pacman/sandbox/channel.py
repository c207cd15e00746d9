"""The call channel to one worker: its requests and replies over two private pipes
(:mod:`pacman.sandbox.protocol`), each request's CPU accounting and deadlines, and the idle
watcher that keeps the footprint caps between requests."""

from __future__ import annotations

import threading
import time
from typing import Any, Protocol

from pacman import untrusted
from pacman.sandbox import procfs, protocol
from pacman.sandbox.config import Limits, MachineBusy, WorkerDied, WorkerTimeout, backstop, seconds
from pacman.sandbox.footprint import Footprint, OverLimit
from pacman.sandbox.lifeline import Lifeline


class Stoppable(Protocol):
    """The worker process as the channel stops it."""

    @property
    def alive(self) -> bool: ...

    def kill(self) -> None: ...

    def fail(self, why: str) -> None: ...


class CallChannel:
    """Requests to one worker, charged in its CPU seconds."""

    #: Seconds between looks at a busy worker's CPU time and disk use.
    POLL = 0.05

    def __init__(
        self, worker: Stoppable, limits: Limits, lifeline: Lifeline, footprint: Footprint
    ) -> None:
        self.worker = worker
        self.limits = limits
        self.lifeline = lifeline
        self.footprint = footprint
        self.wfd = self.rfd = -1  # the pipes, once the worker is started
        self.pid = -1  # the worker's own process, as the grader sees it
        self.last_cpu = 0.0  # CPU seconds the last request used
        self._cpu_mark: float | None = None  # the worker's CPU time when it last answered
        self._next_id = 0

    def cpu_seconds(self) -> float | None:
        """CPU time the worker has used in all (None where /proc cannot tell)."""
        return procfs.cpu_seconds(self.pid) if self.pid > 0 else None

    def watch_idle(self) -> None:
        """Start the idle watcher's thread."""
        try:
            threading.Thread(target=self._watch_idle, name="pacman-footprint", daemon=True).start()
        except RuntimeError as error:  # no thread could be made: a pids limit is full
            raise MachineBusy(f"could not watch a student worker: {error}") from None

    def _watch_idle(self) -> None:
        """Between requests, threads the student left running may go on writing files or
        starting threads: look twice a second, and stop a worker over its caps."""
        while not self.lifeline.closed.wait(0.5):
            if self.lifeline.busy.is_set() or not self.worker.alive:
                continue
            try:
                self.check_footprint(time.monotonic())
            except protocol.Timeout:
                self.worker.kill()
                return

    def check_footprint(self, now: float) -> None:
        """Stop a worker over its thread cap or its scratch quota (:class:`.Footprint`)."""
        try:
            self.footprint.check(self.pid, now)
        except OverLimit as error:
            self.lifeline.end(str(error))
            raise

    def call(
        self, op: str, cpu_limit: float, what: str, limit_name: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        """Send one request; return the reply dict, or raise WorkerTimeout / WorkerDied
        (see :meth:`.WorkerProcess.call`)."""
        if not self.worker.alive:
            raise WorkerDied(self.lifeline.why or "is not running")
        self.lifeline.busy.set()
        try:
            return self._call(op, cpu_limit, what, limit_name, fields)
        finally:
            self.lifeline.busy.clear()

    def _call(
        self, op: str, cpu_limit: float, what: str, limit_name: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        self._next_id += 1
        request = {"op": op, "id": self._next_id, **fields}
        cpu_limit = max(0.0, cpu_limit)
        started = time.monotonic()
        # The worker is idle between requests: where the last one ended, this one starts.
        cpu_start = self._cpu_mark if self._cpu_mark is not None else self.cpu_seconds()
        # Where /proc cannot tell the CPU time (not Linux), the limit is wall-clock time.
        wall_limit = backstop(cpu_limit) if cpu_start is not None else cpu_limit
        deadline = started + wall_limit

        def watch() -> None:
            now = time.monotonic()
            if cpu_start is not None:
                used = (self.cpu_seconds() or cpu_start) - cpu_start
                if used > cpu_limit:
                    self.last_cpu = used
                    why = (
                        f"{what} used more than {seconds(cpu_limit)} of CPU time "
                        f"({limit_name}; {seconds(used)} measured)"
                    )
                    raise protocol.Timeout(self.lifeline.end(why))
            self.check_footprint(now)

        try:
            protocol.write_frame(self.wfd, request, deadline, watch, self.POLL)
            while True:
                reply = protocol.read_frame(
                    self.rfd, deadline, watch, self.POLL, self.limits.reply_bytes
                )
                # Replies to other requests (forged or stale) are ignored.
                if isinstance(reply, dict) and reply.get("id") == self._next_id:
                    break
            reply = untrusted.data(reply)  # every string of it is the student's from here on
        except OverLimit:
            self.worker.kill()
            raise WorkerDied(self.lifeline.why or "") from None
        except protocol.Timeout:
            why = self.lifeline.why
            if why is None:
                used = (self.cpu_seconds() or 0.0) - (cpu_start or 0.0)
                why = self.lifeline.end(
                    f"{what} did not answer within {seconds(wall_limit)} of wall-clock time "
                    f"(the backstop for {limit_name} of {seconds(cpu_limit)} of CPU; it used "
                    f"{seconds(used)} of CPU, so it was mostly sleeping or blocked)"
                )
            self.worker.kill()
            raise WorkerTimeout(why) from None
        except protocol.PipeClosed:
            self.worker.fail("closed its pipe")
            raise WorkerDied(self.lifeline.why or "") from None
        except protocol.ProtocolError as error:
            self.worker.fail(f"broke the protocol ({error})")
            raise WorkerDied(self.lifeline.why or "") from None
        try:
            # What the request left behind counts too (importing is where files get made).
            if op == "load":
                self.footprint.look_at_disk_next()
            self.check_footprint(time.monotonic())
        except protocol.Timeout:
            self.worker.kill()
            raise WorkerDied(self.lifeline.why or "") from None
        self.footprint.mark_alive(time.monotonic())
        if cpu_start is not None:
            self._cpu_mark = self.cpu_seconds()
            self.last_cpu = max(0.0, (self._cpu_mark or cpu_start) - cpu_start)
        else:
            self.last_cpu = time.monotonic() - started
        return reply
