"""A spare worker, started while the run's first worker proves its walls: it serves a later
thread, outlives the thread that started it, and is refused where it proved less than the run
requires."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from pacman.sandbox.config import SandboxConfig
from pacman.sandbox.policy import shortfalls
from pacman.sandbox.pool import SpareWorker, WorkerPool
from pacman.sandbox.staging import stage_files

HONEST = Path(__file__).parent / "fixtures" / "grading" / "cs188_style" / "multiAgents.py"


@pytest.fixture
def staged(tmp_path):
    stage, files = stage_files(str(tmp_path), {"multiAgents.py": HONEST.read_bytes()}, None)
    return stage, files, str(tmp_path / "answers")


def _spare_threads() -> int:
    return sum(thread.name == "pacman-spare" for thread in threading.enumerate())


def test_a_spare_worker_serves_the_next_thread_and_ends_with_the_pool(staged):
    stage, files, answers = staged
    config = SandboxConfig(student_files=files, code_dir=stage, deny=[answers], allow_weak=True)
    pool = WorkerPool(config)
    before = _spare_threads()
    pool.expect(SpareWorker(pool.config))
    try:
        worker = pool.get()
        # Its starting thread is still there: the worker's parent-death signal (setpriv,
        # bwrap) would end it with that thread.
        assert _spare_threads() == before + 1
        assert worker.call("load", 30.0) == {"id": 1}
        assert pool.get() is worker  # the same thread keeps it
        assert pool.protections == worker.protections
    finally:
        pool.close()
    assert worker.process is None and not worker.alive
    assert _spare_threads() == before


def test_a_spare_that_proved_less_than_the_run_requires_is_closed_not_handed_out(staged):
    stage, files, answers = staged
    config = SandboxConfig(
        student_files=files,
        code_dir=stage,
        deny=[answers],
        isolation="process",
        landlock_abi_cap=0,
    )
    spare = SpareWorker(config)
    # Started as a probe is (weak walls allowed), judged when taken by what the run allows.
    refused = spare.take(config)
    assert refused is None
    spare.close()
    allowing = SpareWorker(config)
    worker = allowing.take(dataclasses.replace(config, allow_weak=True))
    try:
        assert worker is not None and worker.isolation == "process"
        # Neither namespaces nor Landlock nor locked files hide the answers here.
        assert "answers_hidden" in shortfalls(worker.protections)
    finally:
        if worker is not None:
            worker.close()
        allowing.close()
