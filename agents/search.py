"""Minimax, alpha-beta and expectimax: one search routine, three thin agents.

CS188's conventions throughout. Agent 0 (Pac-Man) maximises; every other agent
is a MIN layer (a chance layer for expectimax), in index order. One unit of
``depth`` is a move by every agent. A won or lost state, a state with no legal
action, and every state reached once ``depth`` rounds are played are scored by
the evaluation function. Children are generated in legal-action order, ties go
to the first action, and alpha-beta prunes only on strict inequality, so the
expansion sequence is exactly CS188's. Expectimax averages uniformly over a
ghost's legal actions.

Only the public state API is used (``get_legal_actions``,
``generate_successor``, ``is_win``, ``is_lose``, ``get_num_agents``), so a
recording wrapper (:mod:`pacman.recording`) sees every successor call.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from agents.evaluation import EvalSpec, resolve_evaluation
from pacman.agent import Agent
from pacman.errors import AgentError

__all__ = [
    "ALPHABETA",
    "EXPECTIMAX",
    "MINIMAX",
    "AlphaBetaAgent",
    "ExpectimaxAgent",
    "MinimaxAgent",
    "MultiAgentSearchAgent",
    "SearchResult",
    "SearchStats",
    "search",
]

MINIMAX = "minimax"
ALPHABETA = "alphabeta"
EXPECTIMAX = "expectimax"
_KINDS = (MINIMAX, ALPHABETA, EXPECTIMAX)


class SearchResult(NamedTuple):
    """What one search found and what it cost: the public result an agent keeps as ``last_result``.

    ``values`` maps each root action to the value the search gave it (for alpha-beta, an
    action other than the best may have a bound: it was cut off once it could not win).
    ``pv`` is the principal variation: the actions, every agent's in turn, along which the
    best value was found.
    """

    action: str
    value: float
    nodes: int  # successor calls
    evaluations: int  # evaluation-function calls
    values: dict[str, float] = {}  # noqa: RUF012 - a NamedTuple default, never mutated
    pv: tuple[str, ...] = ()
    depth: int = 0


def search(
    state: Any, depth: int, evaluate: Callable[[Any], float], kind: str = MINIMAX
) -> SearchResult:
    """Pac-Man's best action in ``state``, searching ``depth`` rounds of every agent's moves.

    ``kind`` is :data:`MINIMAX`, :data:`ALPHABETA` or :data:`EXPECTIMAX`.
    """
    if kind not in _KINDS:
        raise AgentError(f"search: unknown kind {kind!r}; expected one of {', '.join(_KINDS)}")
    if depth < 1:
        raise AgentError(f"search: depth must be at least 1, got {depth}")
    last = state.get_num_agents() - 1
    prune = kind == ALPHABETA
    chance = kind == EXPECTIMAX
    inf = math.inf
    nodes = 0
    evaluations = 0
    # lines[p]: the best line found below the node being searched at ply p. Kept as a linked
    # pair (action, rest) so that improving a line costs one tuple, not a copy of the line.
    lines: list[Any] = [None] * (depth * (last + 1) + 2)

    def value(s: Any, agent: int, d: int, alpha: float, beta: float, ply: int) -> float:
        # d: rounds left to play, counting the current one.
        nonlocal nodes, evaluations
        lines[ply] = None
        if d == 0 or s.is_win() or s.is_lose():
            evaluations += 1
            return evaluate(s)
        actions = s.get_legal_actions(agent)
        if not actions:
            evaluations += 1
            return evaluate(s)
        successor = s.generate_successor
        if agent == last:
            following, next_d = 0, d - 1
        else:
            following, next_d = agent + 1, d
        below = ply + 1
        if agent == 0:
            best = -inf
            for action in actions:
                nodes += 1
                v = value(successor(agent, action), following, next_d, alpha, beta, below)
                if v > best:
                    best = v
                    lines[ply] = (action, lines[below])
                    if prune:
                        if best > beta:
                            return best
                        if best > alpha:
                            alpha = best
            return best
        if chance:
            total = 0.0
            for action in actions:
                nodes += 1
                total += value(successor(agent, action), following, next_d, alpha, beta, below)
            # No single line is principal under a chance node; the line stops here.
            return total / len(actions)
        best = inf
        for action in actions:
            nodes += 1
            v = value(successor(agent, action), following, next_d, alpha, beta, below)
            if v < best:
                best = v
                lines[ply] = (action, lines[below])
                if prune:
                    if best < alpha:
                        return best
                    if best < beta:
                        beta = best
        return best

    actions = state.get_legal_actions(0)
    if not actions:
        raise AgentError(f"search: Pac-Man has no legal action in state {state}")
    following, next_d = (1, depth) if last > 0 else (0, depth - 1)
    best_value, best_action, alpha = -inf, actions[0], -inf
    values: dict[str, float] = {}
    line = None
    for action in actions:
        nodes += 1
        v = value(state.generate_successor(0, action), following, next_d, alpha, inf, 1)
        values[action] = v
        if v > best_value:
            best_value, best_action = v, action
            line = lines[1]
            if prune and v > alpha:
                alpha = v
    pv = [best_action]
    while line is not None:
        pv.append(line[0])
        line = line[1]
    return SearchResult(best_action, best_value, nodes, evaluations, values, tuple(pv), depth)


class SearchStats:
    """Totals over the moves an agent made: the ``--stats`` line."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Start counting afresh (the runner calls it before each game)."""
        self.moves = 0
        self.nodes = 0
        self.evaluations = 0
        self.seconds = 0.0
        self.max_seconds = 0.0
        self.depths: list[int] = []

    def add(self, nodes: int, evaluations: int, seconds: float, depth: int | None = None) -> None:
        """Count one move; ``depth`` is the depth reached, for agents whose depth varies."""
        self.moves += 1
        self.nodes += nodes
        self.evaluations += evaluations
        self.seconds += seconds
        self.max_seconds = max(self.max_seconds, seconds)
        if depth is not None:
            self.depths.append(depth)

    def summary(self) -> str:
        moves = max(self.moves, 1)
        rate = self.nodes / self.seconds if self.seconds > 0 else 0.0
        text = (
            f"{self.moves} moves, {self.nodes} nodes ({self.nodes / moves:.0f}/move), "
            f"{self.evaluations} evaluations, {self.seconds / moves * 1000:.1f} ms/move "
            f"(max {self.max_seconds * 1000:.1f} ms), {rate:.0f} nodes/s"
        )
        if self.depths:
            mean = sum(self.depths) / len(self.depths)
            text += f", depth {mean:.1f} on average ({min(self.depths)}-{max(self.depths)})"
        return text


def parse_depth(depth: int | str) -> int:
    """``depth`` as given on the command line (``-a depth=3``), checked."""
    try:
        value = int(depth)
    except (TypeError, ValueError):
        raise AgentError(f"depth must be a whole number, got {depth!r}") from None
    if value < 1:
        raise AgentError(f"depth must be at least 1, got {value}")
    return value


class MultiAgentSearchAgent(Agent):
    """Pac-Man searching ``depth`` rounds ahead, scoring leaves with ``evalFn``.

    ``depth`` and ``evalFn`` (a callable or a name such as
    ``scoreEvaluationFunction`` or ``better``) may be strings, as from
    ``-a depth=3,evalFn=better``.
    """

    kind = MINIMAX

    def __init__(
        self, evalFn: EvalSpec = "scoreEvaluationFunction", depth: int | str = 2, index: int = 0
    ) -> None:
        super().__init__(index)
        self.evaluation_function = resolve_evaluation(evalFn)
        self.depth = parse_depth(depth)
        self.stats = SearchStats()
        #: The last move's :class:`SearchResult` (root values, principal variation, cost),
        #: ``None`` before the first move: what the board overlay shows.
        self.last_result: SearchResult | None = None

    def get_action(self, state: Any) -> str:
        started = time.perf_counter()
        result = search(state, self.depth, self.evaluation_function, self.kind)
        self.stats.add(result.nodes, result.evaluations, time.perf_counter() - started)
        self.last_result = result
        return result.action


class MinimaxAgent(MultiAgentSearchAgent):
    """Full-width minimax: every ghost minimises Pac-Man's evaluation."""

    kind = MINIMAX


class AlphaBetaAgent(MultiAgentSearchAgent):
    """Minimax with alpha-beta pruning (same action, fewer states)."""

    kind = ALPHABETA


class ExpectimaxAgent(MultiAgentSearchAgent):
    """Ghosts move uniformly at random among their legal actions."""

    kind = EXPECTIMAX
