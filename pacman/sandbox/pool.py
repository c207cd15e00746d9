"""Reusable workers for one submission (or one sandboxed agent): one per thread, replaced
when one dies.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from typing import Any

from pacman.sandbox.config import MachineBusy, SandboxConfig, SandboxError
from pacman.sandbox.ids import allocate_uid
from pacman.sandbox.isolation import forget_probe, resolve_isolation
from pacman.sandbox.process import WorkerProcess, start_worker


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
