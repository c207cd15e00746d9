"""Reusable workers for one submission (or one sandboxed agent): one per thread, replaced
when one dies.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import threading
from typing import Any

from pacman.sandbox.config import MachineBusy, SandboxConfig, SandboxError
from pacman.sandbox.ids import allocate_uid
from pacman.sandbox.isolation import forget_probe, resolve_isolation
from pacman.sandbox.policy import shortfalls
from pacman.sandbox.process import WorkerProcess, start_worker


class SpareWorker:
    """A worker started in the background (its walls put up and proved as any worker's) while
    the run's first worker proves its own: the two starts overlap. A pool hands it out only
    if it proved as much as the run, decided from the first worker, requires."""

    def __init__(self, config: SandboxConfig) -> None:
        self._worker: WorkerProcess | None = None
        self._ready = threading.Event()
        self._released = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(config,), name="pacman-spare", daemon=True
        )
        self._thread.start()

    def _run(self, config: SandboxConfig) -> None:
        try:
            # No retry and no message: where it cannot start, the pool starts one itself as
            # before, and says why that one cannot.
            with contextlib.suppress(SandboxError):
                self._worker = WorkerProcess(dataclasses.replace(config, allow_weak=True))
        finally:
            self._ready.set()
        # The worker's parent-death signal (setpriv, bwrap) fires when the thread that
        # started it ends: this one lives as long as the worker may.
        self._released.wait()

    def take(self, config: SandboxConfig) -> WorkerProcess | None:
        """The started worker, once its start is over, if ``config`` accepts what it proved
        (else it is closed, and None)."""
        self._ready.wait()
        worker, self._worker = self._worker, None
        if worker is None:
            return None
        proved = config.allow_weak or not shortfalls(worker.protections)
        if worker.alive and proved and worker.isolation == resolve_isolation(config.isolation):
            return worker
        worker.close()
        return None

    def close(self) -> None:
        """Close the worker if no pool took it, and end the thread (after the worker's end)."""
        self._ready.wait()
        if self._worker is not None:
            self._worker.close()
        self._released.set()
        self._thread.join()


class WorkerPool:
    """Reusable workers for one submission: one per thread, replaced when one dies."""

    def __init__(self, config: SandboxConfig) -> None:
        if config.uid is None:
            # One uid for all of a submission's workers, and for no other submission.
            config = dataclasses.replace(config, uid=allocate_uid())
        self.config = config
        self._local = threading.local()
        self._all: list[WorkerProcess] = []
        self._lock = threading.Lock()
        #: What the first worker had in force (every worker of a pool gets the same).
        self.protections: dict[str, Any] = {}
        self._spare: list[WorkerProcess] = []
        self._starting: list[SpareWorker] = []  # handed out when no started worker is spare
        self._expected: list[SpareWorker] = []  # every one, closed with the pool

    @property
    def isolation(self) -> str:
        """The isolation its workers run in."""
        return self.protections.get("isolation") or resolve_isolation(self.config.isolation)

    def adopt(self, worker: WorkerProcess) -> None:
        """Take ``worker`` (started with this pool's config, e.g. by :func:`probe_protections`)
        as the first to hand out."""
        with self._lock:
            self._keep(worker)
            self._spare.append(worker)

    def expect(self, spare: SpareWorker) -> None:
        """Hand out ``spare``'s worker when a thread needs one and no other is spare."""
        with self._lock:
            self._starting.append(spare)
            self._expected.append(spare)

    def release(self) -> None:
        """Hand this thread's worker to the next thread that needs one (it stays alive)."""
        worker = getattr(self._local, "worker", None)
        self._local.worker = None
        if worker is not None and worker.alive:
            with self._lock:
                self._spare.append(worker)

    def get(self) -> WorkerProcess:
        worker = getattr(self._local, "worker", None)
        if worker is None or not worker.alive:
            if worker is not None:
                worker.close()
            with self._lock:
                spare = self._spare.pop() if self._spare else None
                starting = self._starting.pop() if spare is None and self._starting else None
            if starting is not None:
                spare = starting.take(self.config)
                if spare is not None:
                    with self._lock:
                        self._keep(spare)
            if spare is not None and spare.alive:
                self._local.worker = spare
                return spare
            worker = self._start()
            self._local.worker = worker
            with self._lock:
                self._keep(worker)
        return worker

    def _keep(self, worker: WorkerProcess) -> None:
        """Count ``worker`` among the pool's (closed with it); the first one's proof is the
        pool's. Called with the lock held."""
        self._all.append(worker)
        if not self.protections:
            self.protections = worker.protections

    def _start(self) -> WorkerProcess:
        while True:
            # The mode is fixed before the attempt: another thread may downgrade it meanwhile.
            mode = resolve_isolation(self.config.isolation)
            try:
                return start_worker(self.config, mode)
            except MachineBusy:
                raise  # no room for a process: weaker isolation would find none either
            except SandboxError as error:
                if self.config.isolation != "auto" or mode == "process":
                    raise
                # The probe passed but a real worker could not start: fall back, loudly.
                forget_probe(mode)
                print(f"autograder: warning: {error}; trying weaker isolation", file=sys.stderr)

    def close(self) -> None:
        with self._lock:
            for worker in self._all:
                worker.close()
            self._all.clear()
            for spare in self._expected:
                spare.close()
            self._starting.clear()
            self._expected.clear()
