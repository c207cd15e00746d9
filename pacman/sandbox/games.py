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

import atexit
import contextlib
import hashlib
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from pacman.errors import AgentError, UsageError
from pacman.sandbox import protocol, untrusted
from pacman.sandbox.config import Limits, SandboxConfig, SandboxError, WorkerDied, WorkerTimeout
from pacman.sandbox.ids import allocate_uid
from pacman.sandbox.process import WorkerProcess

#: CPU seconds one move may use when the game sets no ``--timeout`` (the grader's default).
DEFAULT_MOVE_SECONDS = Limits().move_seconds

_lock = threading.Lock()
_slots: dict[tuple[int, str, str], _Slot] = {}


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


def sandbox_class(name: str, role: str) -> type:
    """The class ``-p``/``-g`` name under ``--isolation sandbox``: the project's own, or a
    stand-in named like the untrusted one (whose file is not imported here)."""
    found = untrusted_agent(name, role)
    if found is None:
        from pacman.runner import agent_class

        return agent_class(name, role)
    return type(found[2], (SandboxedAgent,), {})


def portable(spec: Any) -> Any:
    """``runner.portable`` for a sandboxed game: the layout's text and the untrusted agents'
    files travel with the spec, found without importing them."""
    from pacman.runner import _loaded_layout

    layout = _loaded_layout(spec.layout) if spec.layout_text is None else None
    files = dict(spec.agent_files)
    names = []
    for role, name in (("agent", spec.pacman), ("ghost", spec.ghost)):
        found = untrusted_agent(name, role, spec.agent_files)
        if found is not None:
            file_name, source, class_name = found
            files.setdefault(file_name, source)
            name = f"{file_name}:{class_name}"
        names.append(name)
    return replace(
        spec,
        layout=layout.name if layout is not None else spec.layout,
        layout_text="\n".join(layout.rows) if layout is not None else spec.layout_text,
        pacman=names[0],
        ghost=names[1],
        agent_files=tuple(sorted(files.items())),
    )


# ------------------------------------------------------------------------------ workers


class _Slot:
    """One agent's sandboxed worker (restarted when it dies) and its staged file."""

    def __init__(self, file_name: str, source: str, timeout: float | None) -> None:
        from pacman.grading.submission import stage_files

        self.private = tempfile.mkdtemp(prefix="pacman-sandboxed-")
        uid = allocate_uid()
        stage, staged = stage_files(self.private, {file_name: source.encode("utf-8")}, uid)
        move = timeout if timeout is not None else DEFAULT_MOVE_SECONDS
        self.config = SandboxConfig(
            student_files=staged,
            code_dir=stage,
            limits=Limits(move_seconds=move),
            uid=uid,
        )
        self.worker: WorkerProcess | None = None

    def get(self) -> tuple[WorkerProcess, bool]:
        """The live worker, and whether it was just started (its agent must be built)."""
        if self.worker is not None and self.worker.alive:
            return self.worker, False
        if self.worker is not None:
            self.worker.close()
        try:
            self.worker = WorkerProcess(self.config)
        except SandboxError as error:
            raise UsageError(f"--isolation sandbox: {error}") from None
        self.worker.mark_output()  # what building its sandbox printed is not the agent's
        return self.worker, True

    def close(self) -> None:
        from pacman.sandbox.cleanup import remove_tree

        if self.worker is not None:
            self.worker.close()
            self.worker = None
        remove_tree(self.private)


def _slot(index: int, file_name: str, source: str, timeout: float | None) -> _Slot:
    """The worker slot of agent ``index`` playing ``file_name``: one per agent and file,
    reused from game to game (a worker's start and proof cost about 0.1 s)."""
    key = (index, file_name, hashlib.sha256(source.encode("utf-8")).hexdigest())
    with _lock:
        slot = _slots.get(key)
        if slot is None:
            slot = _slots[key] = _Slot(file_name, source, timeout)
        return slot


def close_all() -> None:
    """Stop every sandboxed worker of this process and remove their files."""
    with _lock:
        slots = list(_slots.values())
        _slots.clear()
    for slot in slots:
        slot.close()


@contextlib.contextmanager
def sandboxed_run() -> Iterator[None]:
    """A run of games with sandboxed agents: their workers and files live in one temporary
    folder, stopped and removed when the run ends, however it ends (a pool worker killed
    by an interruption cannot clean up after its own workers)."""
    from pacman.execution import temporary_root

    with temporary_root("pacman-games-"):
        try:
            yield
        finally:
            close_all()


def _forget_in_child() -> None:
    """A forked process (a --jobs pool worker) starts its own workers: those in the dict
    are the parent's, talking over the parent's pipes."""
    global _lock
    _lock = threading.Lock()
    _slots.clear()


atexit.register(close_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
with contextlib.suppress(ImportError):
    # Pool processes of --jobs end without atexit; multiprocessing runs its finalizers.
    from multiprocessing import util as _mp_util

    _mp_util.Finalize(None, close_all, exitpriority=10)


# ------------------------------------------------------------------------------ the stand-in


class SandboxedAgent:
    """Plays a move by asking the agent in its worker; holds nothing the agent can reach."""

    def __init__(self, slot: _Slot, class_name: str, kwargs: dict[str, Any], index: int) -> None:
        self.index = index
        self._slot = slot
        self._class_name = class_name
        self._kwargs = kwargs
        self._seed: int | None = None
        self._built = False  # the worker holds this agent (it is kept from game to game)

    def use_game_seed(self, seed: int) -> None:
        """Called by :func:`pacman.seeding.seed_game` with this agent's own stream: the
        worker seeds its side with it (the game's secret stays here)."""
        self._seed = seed

    def _call(self, op: str, method: str, worker: WorkerProcess, **fields: Any) -> dict[str, Any]:
        what = f"{self._class_name}.{method}"
        limits = self._slot.config.limits
        try:
            reply = worker.call(op, limits.move_seconds, what, "the per-move limit", **fields)
        except WorkerTimeout as error:
            raise AgentError(f"timed out in its sandbox: {error}") from None
        except WorkerDied as error:
            raise AgentError(f"its sandboxed process {error}") from None
        except BaseException:
            # The game's own time limit interrupted the wait: the worker is mid-move.
            worker.kill()
            worker.dead = worker.dead or "was stopped by the game's time limit"
            raise
        finally:
            self._forward_output(worker)
        if reply.get("error") is not None:
            raise AgentError(str(reply["error"])[:2000])
        return reply

    @staticmethod
    def _forward_output(worker: WorkerProcess) -> None:
        """What the agent printed, shown on stderr (escaped: it cannot pass for the game's)."""
        printed = worker.output()
        if printed:
            worker.mark_output()
            sys.stderr.write(printed if printed.endswith("\n") else printed + "\n")
            sys.stderr.flush()

    def register_initial_state(self, state: Any) -> None:
        worker, started = self._slot.get()
        layout = state.layout
        self._call(
            "game_start",
            "registerInitialState",
            worker,
            layout_text="\n".join(layout.rows),
            layout_name=layout.name,
            num_ghosts=state.get_num_agents() - 1,
            agent=self._class_name,
            kwargs=self._kwargs,
            new_agent=started or not self._built,
            agent_seed=self._seed,
            record=False,
        )
        self._built = True

    def get_action(self, state: Any) -> str:
        worker, started = self._slot.get()
        if started:
            raise AgentError("its sandboxed process was restarted in the middle of a game")
        reply = self._call("act", "getAction", worker, state=protocol.state_fields(state))
        action = reply.get("action")
        if not isinstance(action, str) or len(action) > 200:
            raise AgentError(f"returned {untrusted.line(action)[:200]}, not an action name")
        return action

    def final(self, state: Any) -> None:
        worker, started = self._slot.get()
        if not started:
            self._call("game_end", "final", worker, state=protocol.state_fields(state))


def sandboxed_agent(
    name: str, role: str, args: tuple[Any, ...], kwargs: dict[str, Any], spec: Any
) -> SandboxedAgent | None:
    """A stand-in playing agent ``name`` from a sandboxed worker, or None when ``name`` is
    the project's own (built in-process as usual)."""
    found = untrusted_agent(name, role, spec.agent_files)
    if found is None:
        return None
    file_name, source, class_name = found
    index = int(args[0]) if args else int(kwargs.pop("index", 0))
    if role == "ghost":
        kwargs = {"index": index, **kwargs}
    slot = _slot(index, file_name, source, spec.timeout)
    slot.get()  # started (and its walls proved) before the game, so a refusal stops the run
    cls = type(class_name, (SandboxedAgent,), {})
    return cls(slot, class_name, dict(kwargs), index)
