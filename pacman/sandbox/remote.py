"""An agent that plays from a worker: the game asks, the agent in the worker answers.

One class serves every game an untrusted agent plays: a graded game (the grader's test
kinds), an ordinary game of ``pacman --isolation sandbox``, a leaderboard's. Before each
move the worker is sent the state whole (:func:`pacman.sandbox.protocol.state_fields`) and
answers with an action; nothing of the game, the score or the other agents is in its
process, so no agent can change them. What differs between those games is how the agent
reaches its worker: a :class:`Link` says which worker, under which limit, and what a
failure becomes (:class:`GameLink` here for ordinary games; the grader has its own, which
charges the test's and the submission's CPU budgets).
"""

from __future__ import annotations

import sys
from typing import Any, Protocol

from pacman import untrusted
from pacman.errors import AgentError
from pacman.sandbox import protocol
from pacman.sandbox.config import SandboxError, WorkerDied, WorkerTimeout
from pacman.sandbox.pool import WorkerPool
from pacman.sandbox.process import WorkerProcess

#: An action name longer than this is not one.
MAX_ACTION = 200


class RemoteFailure(AgentError):
    """The agent in the worker failed (crashed, timed out, died, sent nonsense): the game
    ends as that agent's crash, with this message."""

    def __init__(self, message: str, timeout: bool = False) -> None:
        super().__init__(message)
        self.timeout = timeout


class Link(Protocol):
    """How a remote agent reaches its worker."""

    def worker(self) -> tuple[WorkerProcess, bool]:
        """The live worker, and whether it is fresh (it must build the agent first)."""

    def built(self, worker: WorkerProcess) -> None:
        """``worker`` holds the agent now (it is kept from game to game, as CS188 keeps it)."""

    def call(self, worker: WorkerProcess, op: str, method: str, **fields: Any) -> dict[str, Any]:
        """One request for the agent's ``method``; raises :class:`RemoteFailure`."""


class RemoteAgent:
    """Plays agent ``class_name(**kwargs)`` of the worker's files; holds nothing it can reach.

    ``record``: the worker counts the states the agent's search expands on each move
    (recorded-game tests read ``explored`` from the reply). Subclasses add fields to the
    requests (:meth:`start_fields`, :meth:`move_fields`) and read more of each reply
    (:meth:`choose`).
    """

    def __init__(
        self, index: int, class_name: str, kwargs: dict[str, Any], link: Link, record: bool = False
    ) -> None:
        self.index = index
        self.class_name = class_name
        self.kwargs = kwargs
        self.link = link
        self.record = record
        self.agent_seed: int | None = None

    @property
    def display_name(self) -> str:
        """The student's class, as the game, its record and reports name this agent."""
        return self.class_name

    def use_game_seed(self, seed: int) -> None:
        """Called by :func:`pacman.seeding.seed_game` with this agent's own stream: the
        worker seeds its side with it (the game's secret stays here)."""
        self.agent_seed = seed

    def start_fields(self) -> dict[str, Any]:
        """More fields for the game's first request."""
        return {}

    def move_fields(self) -> dict[str, Any]:
        """More fields for each move's request."""
        return {}

    def choose(self, state: Any, reply: dict[str, Any]) -> str:
        """The move to play, from the worker's reply."""
        return self.action(reply)

    def action(self, reply: dict[str, Any]) -> str:
        action = reply.get("action")
        if not isinstance(action, str) or len(action) > MAX_ACTION:
            shown = untrusted.line(action)[:MAX_ACTION]
            raise RemoteFailure(f"returned {shown}, not an action name")
        return action

    def register_initial_state(self, state: Any) -> None:
        worker, fresh = self.link.worker()
        layout = state.layout
        self.link.call(
            worker,
            "game_start",
            "registerInitialState",
            layout_text="\n".join(layout.rows),
            layout_name=layout.name,
            num_ghosts=state.get_num_agents() - 1,
            agent=self.class_name,
            kwargs=self.kwargs,
            new_agent=fresh,
            agent_seed=self.agent_seed,
            record=self.record,
            **self.start_fields(),
        )
        self.link.built(worker)

    def get_action(self, state: Any) -> str:
        worker, fresh = self.link.worker()
        if fresh:
            raise RemoteFailure("its process was restarted in the middle of a game")
        reply = self.link.call(
            worker,
            "act",
            "getAction",
            state=protocol.state_fields(state),
            **self.move_fields(),
        )
        return self.choose(state, reply)

    def final(self, state: Any) -> None:
        worker, fresh = self.link.worker()
        if not fresh:
            self.link.call(worker, "game_end", "final", state=protocol.state_fields(state))


class GameLink:
    """An ordinary game's link: one worker per agent (from its own pool), a CPU limit per
    move, what the agent prints shown on stderr (escaped: it cannot pass for the game's)."""

    def __init__(self, pool: WorkerPool, move_seconds: float, class_name: str) -> None:
        self.pool = pool
        self.move_seconds = move_seconds
        self.class_name = class_name
        self._holding: WorkerProcess | None = None  # the worker that built the agent

    def worker(self) -> tuple[WorkerProcess, bool]:
        try:
            worker = self.pool.get()
        except SandboxError as error:
            raise AgentError(f"--isolation sandbox: {error}") from None
        if worker is not self._holding:
            worker.mark_output()  # what building its sandbox printed is not the agent's
        return worker, worker is not self._holding

    def built(self, worker: WorkerProcess) -> None:
        self._holding = worker

    def call(self, worker: WorkerProcess, op: str, method: str, **fields: Any) -> dict[str, Any]:
        what = f"{self.class_name}.{method}"
        try:
            reply = worker.call(op, self.move_seconds, what, "the per-move limit", **fields)
        except WorkerTimeout as error:
            raise RemoteFailure(f"timed out in its sandbox: {error}", timeout=True) from None
        except WorkerDied as error:
            raise RemoteFailure(f"its sandboxed process {error}") from None
        except BaseException:
            # The game's own time limit interrupted the wait: the worker is mid-move.
            worker.kill()
            worker.lifeline.end("was stopped by the game's time limit")
            raise
        finally:
            self._forward_output(worker)
        if reply.get("error") is not None:
            raise RemoteFailure(str(reply["error"])[:2000])
        return reply

    @staticmethod
    def _forward_output(worker: WorkerProcess) -> None:
        printed = worker.output()
        if printed:
            worker.mark_output()
            sys.stderr.write(printed if printed.endswith("\n") else printed + "\n")
            sys.stderr.flush()
