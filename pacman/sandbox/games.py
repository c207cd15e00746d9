"""Ordinary games of untrusted agents: ``pacman --isolation sandbox`` and the runner's
``GameSpec(isolation="sandbox")``.

Each agent whose code is not the project's (a ``file.py:Class``, a class of the course
folder's ``*gents.py``) plays from a worker of the grader's sandbox
(:mod:`pacman.sandbox.process`): its own uid, namespaces or Landlock, seccomp, limits,
the walls proved before its file is imported, and a refusal where they cannot be. The
game stays here: before each move the worker is sent the state whole and answers with an
action, so an agent cannot change the game, the score or another agent (there is nothing
of them in its process to change). The grader's process never imports the agent's file.

Seeds: each agent draws from a stream of its own (:mod:`pacman.seeding`); a sandboxed
agent's worker is told that stream's seed alone and seeds its side with it (Python's
``random``, the agent's ``rng``), so with the same seed and secret the game is the one
in-process play gives, and no agent can learn the ghosts' streams. The project's agents
and ghosts are trusted and play in the game's process.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pacman.errors import AgentError, UsageError
from pacman.sandbox.cleanup import at_every_end, remove_tree, temporary_root
from pacman.sandbox.config import Limits, SandboxConfig, SandboxError
from pacman.sandbox.ids import allocate_uid
from pacman.sandbox.pool import WorkerPool
from pacman.sandbox.remote import GameLink, RemoteAgent
from pacman.sandbox.staging import stage_files

#: CPU seconds one move may use when the game sets no ``--timeout`` (the grader's default).
DEFAULT_MOVE_SECONDS = Limits().move_seconds

_lock = threading.Lock()
_pools: dict[tuple[int, str, str], _Hosted] = {}


# ------------------------------------------------------------------------------ which code


def _defines(source: str, class_name: str) -> bool:
    return re.search(rf"^\s*class\s+{re.escape(class_name)}\b", source, re.MULTILINE) is not None


def untrusted_agent(
    name: str, role: str, agent_files: tuple[tuple[str, str], ...] = ()
) -> tuple[str, str, str] | None:
    """``(file name, source, class name)`` of an agent that is not the project's, found the
    way ``-p``/``-g`` find it but without importing anything; None for the project's own."""
    files = dict(agent_files)
    file_name, _, class_name = name.rpartition(":")
    if file_name:
        source = files.get(file_name)
        if source is None:
            path = Path(file_name)
            if not path.is_file():
                raise AgentError(f"{role} {name!r}: no file {file_name}")
            source = path.read_text(encoding="utf-8", errors="replace")
        if not _defines(source, class_name):
            raise AgentError(f"{role} {name!r}: {file_name} has no class {class_name}")
        return os.path.basename(file_name), source, class_name
    if "." in name:
        if name.split(".", 1)[0] in ("agents", "pacman"):
            return None
        raise UsageError(
            f"{role} {name!r}: --isolation sandbox plays agent files; give it as FILE.py:Class"
        )
    for path in sorted(Path.cwd().glob("*gents.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        if _defines(source, name):
            return path.name, source, name
    return None


# ------------------------------------------------------------------------------ workers


class _Hosted:
    """One untrusted agent's staged file and the pool of its workers."""

    def __init__(self, file_name: str, source: str, timeout: float | None) -> None:
        self.private = tempfile.mkdtemp(prefix="pacman-sandboxed-")
        uid = allocate_uid()
        stage, staged = stage_files(self.private, {file_name: source.encode("utf-8")}, uid)
        move = timeout if timeout is not None else DEFAULT_MOVE_SECONDS
        config = SandboxConfig(
            student_files=staged,
            code_dir=stage,
            limits=Limits(move_seconds=move),
            uid=uid,
        )
        self.pool = WorkerPool(config)

    def close(self) -> None:
        self.pool.close()
        remove_tree(self.private)


def _hosted(index: int, file_name: str, source: str, timeout: float | None) -> _Hosted:
    """The pool of agent ``index`` playing ``file_name``: one per agent and file, its workers
    reused from game to game (a worker's start and proof cost about 0.1 s)."""
    key = (index, file_name, hashlib.sha256(source.encode("utf-8")).hexdigest())
    with _lock:
        hosted = _pools.get(key)
        if hosted is None:
            hosted = _pools[key] = _Hosted(file_name, source, timeout)
        return hosted


def close_all() -> None:
    """Stop every sandboxed worker of this process and remove their files."""
    with _lock:
        pools = list(_pools.values())
        _pools.clear()
    for hosted in pools:
        hosted.close()


@contextlib.contextmanager
def sandboxed_run() -> Iterator[None]:
    """A run of games with sandboxed agents: their workers and files live in one temporary
    folder, stopped and removed when the run ends, however it ends (a pool worker killed
    by an interruption cannot clean up after its own workers)."""
    with temporary_root("pacman-games-"):
        try:
            yield
        finally:
            close_all()


def _forget_in_child() -> None:
    """A forked process (a --jobs pool worker) starts its own workers: those in the pools
    are the parent's, talking over the parent's pipes."""
    global _lock
    _lock = threading.Lock()
    _pools.clear()


at_every_end(close_all, _forget_in_child)


# ------------------------------------------------------------------------------ the stand-in


def sandboxed_agent(
    found: tuple[str, str, str],
    role: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    timeout: float | None = None,
) -> RemoteAgent:
    """A stand-in playing the untrusted agent ``found`` (:func:`untrusted_agent`) from a
    sandboxed worker, named as its class."""
    file_name, source, class_name = found
    index = int(args[0]) if args else int(kwargs.pop("index", 0))
    if role == "ghost":
        kwargs = {"index": index, **kwargs}
    hosted = _hosted(index, file_name, source, timeout)
    try:
        hosted.pool.get()  # started (its walls proved) before the game: a refusal stops the run
    except SandboxError as error:
        raise UsageError(f"--isolation sandbox: {error}") from None
    link = GameLink(hosted.pool, hosted.pool.config.limits.move_seconds, class_name)
    return RemoteAgent(index, class_name, dict(kwargs), link)
