"""Solutions for PacmanGameTreeTest (``--generate-solutions``).

Each Pac-Man turn of the recorded game gets:

- ``optimalActions``: for the search as asked, and for the same search with
  Stop removed from Pac-Man's actions, the set of best actions (ties included)
  and the number of states the agent under test explored;
- ``altDepthActions``: the best-action sets one round shallower and one round
  deeper (with and without Stop);
- ``partialPlyBugActions``: the best-action sets of a search whose last round
  ends right after Pac-Man's move, before the ghosts reply (with and without Stop).

Best-action sets come from the small reference search below (values compared
exactly); the explored counts come from the agent itself, observed through
the recording wrapper in a worker, like any graded run.
"""

from __future__ import annotations

import json
import math
from typing import Any

from pacman.compat import Twinned
from pacman.directions import STOP

_GHOSTS = {"MinimaxAgent": "min", "AlphaBetaAgent": "min", "ExpectimaxAgent": "avg"}


def root_values(
    state: Any, depth: int, ghost: str, *, no_stop: bool = False, partial_ply: bool = False
) -> dict[str, float]:
    """Pac-Man's value for each root action; game score as the evaluation."""
    agents = state.get_num_agents()

    def actions_of(s: Any, agent: int) -> list[str]:
        actions = s.get_legal_actions(agent)
        if no_stop and agent == 0:
            actions = [a for a in actions if a != STOP]
        return actions

    def value(s: Any, agent: int, rounds_left: int) -> float:
        if rounds_left == 0 or s.is_win() or s.is_lose():
            return s.get_score()
        if partial_ply and rounds_left == 1 and agent != 0:
            return s.get_score()
        actions = actions_of(s, agent)
        if not actions:
            return s.get_score()
        following = (agent + 1) % agents
        next_left = rounds_left - 1 if following == 0 else rounds_left
        values = [value(s.generate_successor(agent, a), following, next_left) for a in actions]
        if agent == 0:
            return max(values)
        if ghost == "avg":
            return sum(values) / len(values)
        return min(values)

    following = 1 % agents
    left = depth - 1 if following == 0 else depth
    return {a: value(state.generate_successor(0, a), following, left) for a in actions_of(state, 0)}


def best_actions(values: dict[str, float]) -> list[str]:
    if not values:
        return []
    top = max(values.values())
    return [
        a for a, v in values.items() if v == top or math.isclose(v, top, rel_tol=0, abs_tol=1e-9)
    ]


def game_solution(test: Any, ctx: Any) -> dict[str, str]:
    """Play the test's game with the agent under test choosing Pac-Man's moves; record each turn."""
    if test.alg == "ExpectiminimaxAgent":
        from pacman.grading.testfile import TestFileError

        # The reference below knows only all-MIN and all-chance ghosts; a wrong solution
        # written silently would be worse than none.
        raise TestFileError(
            f"{test.path}: PacmanGameTreeTest cannot generate solutions for "
            "ExpectiminimaxAgent; use GraphGameTreeTest with a layers field"
        )
    ghost = _GHOSTS.get(test.alg, "min")
    depth = test.depth
    optimal: list[str] = []
    alt: list[str] = []
    partial: list[str] = []

    def ask(step: int, state: Any, action: str, explored: int, channel: Any) -> str:
        with_stop = best_actions(root_values(state, depth, ghost))
        without = best_actions(root_values(state, depth, ghost, no_stop=True))
        explored_no_stop = _explored_without_stop(ctx, state, test)
        optimal.append(json.dumps([[with_stop, explored], [without, explored_no_stop]]))
        shallower = max(1, depth - 1)
        alt.append(
            json.dumps(
                [
                    best_actions(root_values(state, shallower, ghost)),
                    best_actions(root_values(state, shallower, ghost, no_stop=True)),
                    best_actions(root_values(state, depth + 1, ghost)),
                    best_actions(root_values(state, depth + 1, ghost, no_stop=True)),
                ]
            )
        )
        partial.append(
            json.dumps(
                [
                    best_actions(root_values(state, depth, ghost, partial_ply=True)),
                    best_actions(root_values(state, depth, ghost, no_stop=True, partial_ply=True)),
                ]
            )
        )
        return with_stop[0] if action not in with_stop else action

    _result, failure, _, _ = test._play(ctx, None, ask)
    if failure is not None:
        from pacman.grading.testfile import TestFileError

        raise TestFileError(f"{test.path}: cannot generate a solution: {failure}")
    return {
        "optimalActions": "\n".join(optimal),
        "altDepthActions": "\n".join(alt),
        "partialPlyBugActions": "\n".join(partial),
    }


def _explored_without_stop(ctx: Any, state: Any, test: Any) -> int:
    """How many states the agent explores when Pac-Man's Stop is hidden from it (in-process)."""
    import agents
    from pacman.recording import ExpansionLog

    agent = getattr(agents, test.alg)(depth=test.depth)
    log = ExpansionLog()
    agent.get_action(log.wrap(NoStop(state)))
    return log.explored_count()


class NoStop(Twinned):
    """A state whose Pac-Man never lists Stop; children are wrapped too."""

    __slots__ = ("_state",)

    def __init__(self, state: Any) -> None:
        self._state = state

    def get_legal_actions(self, agent_index: int = 0) -> list[str]:
        actions = self._state.get_legal_actions(agent_index)
        return [a for a in actions if a != STOP] if agent_index == 0 else actions

    getLegalActions = get_legal_actions

    def generate_successor(self, agent_index: int, action: str) -> NoStop:
        return NoStop(self._state.generate_successor(agent_index, action))

    generateSuccessor = generate_successor

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_state":
            raise AttributeError(name)
        return getattr(self._state, name)

    def __eq__(self, other: object) -> bool:
        inner = other._state if isinstance(other, NoStop) else other
        return self._state == inner

    def __hash__(self) -> int:
        return hash(self._state)

    def __str__(self) -> str:
        return str(self._state)
