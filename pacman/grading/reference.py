"""Solutions for PacmanGameTreeTest (``--generate-solutions``).

Each Pac-Man turn of the recorded game gets:

- ``optimalActions``: for the search as asked, and for the same search with
  Stop removed from Pac-Man's actions, the set of best actions (ties included)
  and the number of states the agent under test explored;
- ``altDepthActions``: the best-action sets one round shallower and one round
  deeper (with and without Stop);
- ``partialPlyBugActions``: the best-action sets of a search whose last round
  ends right after Pac-Man's move, before the ghosts reply (with and without Stop).

Best-action sets come from the one search (:func:`agents.search.search`) with the test's
configuration (:func:`agents.search_config.config_from_test`, expectiminimax included)
searched without pruning, so every root action's value is exact (values compared exactly);
the explored counts come from the agent itself, observed through the recording wrapper in
a worker, like any graded run.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

import agents.search as engine
from agents.evaluation import scoreEvaluationFunction
from agents.search_config import MINIMAX, SearchConfig, config_from_test
from pacman.compat import Twinned
from pacman.directions import STOP

if TYPE_CHECKING:
    from collections.abc import Callable

    from agents.search_state import SearchState
    from pacman.game import GameResult
    from pacman.grading.testcase import Context
    from pacman.state import GameState


class RecordedTest(Protocol):
    """What a solution needs of a PacmanGameTreeTest (a layer above, so named by shape): its
    search, its path, and its game played with a referee at each of Pac-Man's turns."""

    alg: str
    depth: int
    path: str

    def _play(
        self,
        ctx: Context,
        pacman_moves: list[str] | None,
        ask: Callable[[int, GameState, str, int, object], str],
    ) -> tuple[GameResult, str | None, bool, str]: ...


def root_values(
    state: SearchState, config: SearchConfig, *, no_stop: bool = False
) -> dict[str, float]:
    """Pac-Man's value for each root action (without Stop, with ``no_stop``), the game's score
    as the evaluation: the one search as ``config`` says, but without pruning."""
    exact = replace(config, algorithm=MINIMAX) if config.prunes else config
    start = NoStop(state) if no_stop else state
    if not start.get_legal_actions(0):
        return {}  # Stop was Pac-Man's only move
    return engine.search(start, exact, scoreEvaluationFunction).values


def best_actions(values: dict[str, float]) -> list[str]:
    if not values:
        return []
    top = max(values.values())
    return [
        a for a, v in values.items() if v == top or math.isclose(v, top, rel_tol=0, abs_tol=1e-9)
    ]


def game_solution(test: RecordedTest, ctx: Context) -> dict[str, str]:
    """Play the test's game with the agent under test choosing Pac-Man's moves; record each turn."""
    config = config_from_test(test.alg, test.depth)
    shallower = replace(config, depth=max(1, config.depth - 1))
    deeper = replace(config, depth=config.depth + 1)
    partial_ply = replace(config, partial_ply=True)
    optimal: list[str] = []
    alt: list[str] = []
    partial: list[str] = []

    def both(state: GameState, searched: SearchConfig) -> list[list[str]]:
        """The best actions with Stop and without it."""
        return [
            best_actions(root_values(state, searched)),
            best_actions(root_values(state, searched, no_stop=True)),
        ]

    def ask(step: int, state: GameState, action: str, explored: int, channel: object) -> str:
        with_stop, without = both(state, config)
        explored_no_stop = _explored_without_stop(ctx, state, test)
        optimal.append(json.dumps([[with_stop, explored], [without, explored_no_stop]]))
        alt.append(json.dumps([*both(state, shallower), *both(state, deeper)]))
        partial.append(json.dumps(both(state, partial_ply)))
        return with_stop[0] if action not in with_stop else action

    _result, failure, _, _ = test._play(ctx, None, ask)
    if failure is not None:
        from pacman.testfile import TestFileError

        raise TestFileError(f"{test.path}: cannot generate a solution: {failure}")
    return {
        "optimalActions": "\n".join(optimal),
        "altDepthActions": "\n".join(alt),
        "partialPlyBugActions": "\n".join(partial),
    }


def _explored_without_stop(ctx: Context, state: GameState, test: RecordedTest) -> int:
    """How many states the agent explores when Pac-Man's Stop is hidden from it (in-process)."""
    import agents
    from pacman.recording import ExpansionLog

    agent = getattr(agents, test.alg)(**config_from_test(test.alg, test.depth).agent_args())
    log = ExpansionLog()
    agent.get_action(log.wrap(NoStop(state)))
    return log.explored_count()


class NoStop(Twinned):
    """A state whose Pac-Man never lists Stop; children are wrapped too."""

    __slots__ = ("_state",)

    def __init__(self, state: SearchState) -> None:
        self._state = state

    def get_legal_actions(self, agent_index: int = 0) -> list[str]:
        actions = self._state.get_legal_actions(agent_index)
        return [a for a in actions if a != STOP] if agent_index == 0 else actions

    getLegalActions = get_legal_actions

    def generate_successor(self, agent_index: int, action: str) -> NoStop:
        return NoStop(self._state.generate_successor(agent_index, action))

    generateSuccessor = generate_successor

    # Untyped: it forwards whatever else the wrapped state has (get_score, positions, ...).
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
