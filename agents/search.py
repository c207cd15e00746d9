"""Minimax, alpha-beta, expectimax, expectiminimax: one search routine, four thin agents.

CS188's conventions throughout. Agent 0 (Pac-Man) maximises; every other agent
is a MIN layer (a chance layer for expectimax; either, ghost by ghost, for
expectiminimax), in index order. One unit of ``depth`` is a move by every
agent. A won or lost state, a state with no legal action, and every state
reached once ``depth`` rounds are played are scored by the evaluation
function. Children are generated in legal-action order, ties go to the first
action, and alpha-beta prunes only on strict inequality, so the expansion
sequence is exactly CS188's. A chance layer averages uniformly over a ghost's
legal actions, as CS188's expectimax does, unless a ghost model
(:mod:`agents.models`) gives the actions probabilities: then it is the notes'
``sum(p * value)``.

Only the public state API is used (``get_legal_actions``,
``generate_successor``, ``is_win``, ``is_lose``, ``get_num_agents``), so a
recording wrapper (:mod:`pacman.recording`) sees every successor call.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from agents.evaluation import EvalSpec, resolve_evaluation
from agents.models import GhostModel, resolve_ghost_model, uniform
from pacman.agent import Agent
from pacman.errors import AgentError

__all__ = [
    "ALPHABETA",
    "CHANCE",
    "EXPECTIMAX",
    "EXPECTIMINIMAX",
    "MIN",
    "MINIMAX",
    "AlphaBetaAgent",
    "ExpectimaxAgent",
    "ExpectiminimaxAgent",
    "MinimaxAgent",
    "MultiAgentSearchAgent",
    "SearchResult",
    "SearchStats",
    "parse_layers",
    "search",
]

MINIMAX = "minimax"
ALPHABETA = "alphabeta"
EXPECTIMAX = "expectimax"
EXPECTIMINIMAX = "expectiminimax"
_KINDS = (MINIMAX, ALPHABETA, EXPECTIMAX, EXPECTIMINIMAX)

MIN = "min"
CHANCE = "chance"


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


def parse_layers(layers: str | Sequence[str]) -> tuple[str, ...]:
    """``"min,chance"`` (or ``"min:chance"``, or a list) -> ``("min", "chance")``, checked.

    ``-a`` splits its text on commas, so the command line writes ``layers=min:chance``.
    """
    words = (
        layers.replace(":", ",").replace("+", ",").split(",") if isinstance(layers, str) else layers
    )
    found = tuple(str(word).strip().lower() for word in words if str(word).strip())
    for word in found:
        if word not in (MIN, CHANCE):
            raise AgentError(
                f"layers={','.join(found)}: {word!r} is neither min nor chance "
                "(one entry per ghost; on the command line write layers=min:chance)"
            )
    if not found:
        raise AgentError("layers is empty: give one entry per ghost, min or chance")
    return found


def search(
    state: Any,
    depth: int,
    evaluate: Callable[[Any], float],
    kind: str = MINIMAX,
    *,
    layers: Sequence[str] | None = None,
    ghost_model: GhostModel | None = None,
    ordered: bool = False,
) -> SearchResult:
    """Pac-Man's best action in ``state``, searching ``depth`` rounds of every agent's moves.

    ``kind`` is :data:`MINIMAX`, :data:`ALPHABETA` (every ghost a MIN layer),
    :data:`EXPECTIMAX` (every ghost a chance layer) or :data:`EXPECTIMINIMAX`, whose
    ``layers`` say, ghost by ghost, ``"min"`` or ``"chance"``. A chance node is worth
    ``sum(p * value(child))`` with ``p`` from ``ghost_model(state, ghost)``
    (:mod:`agents.models`); children of probability 0 are not generated. Without a
    model (or with :func:`agents.models.uniform`) it is the plain average of the
    children, computed as CS188 computes it, so values and ties are CS188's to the bit.

    ``ordered=True`` (for measuring what move ordering buys alpha-beta) generates every
    child of a MAX or MIN node above the last layer first and visits them best first by
    ``evaluate`` (highest for MAX, lowest for MIN; ties in legal order). ``nodes`` still
    counts successor calls, so the children generated only to be sorted are counted too.
    """
    if kind not in _KINDS:
        raise AgentError(f"search: unknown kind {kind!r}; expected one of {', '.join(_KINDS)}")
    if depth < 1:
        raise AgentError(f"search: depth must be at least 1, got {depth}")
    last = state.get_num_agents() - 1
    if kind == EXPECTIMINIMAX:
        # Without layers: MIN and chance alternate, ghost 1 MIN.
        layers = parse_layers(layers) if layers is not None else ((MIN, CHANCE) * last)[:last]
        if len(layers) != last:
            raise AgentError(
                f"layers={','.join(layers)}: {len(layers)} entries for {last} ghost(s); "
                "give one entry per ghost"
            )
    else:
        layers = (CHANCE if kind == EXPECTIMAX else MIN,) * last
    # chance[agent] for agent 1..last; Pac-Man (agent 0) is always MAX.
    chance = (False, *(layer == CHANCE for layer in layers))
    prune = kind == ALPHABETA
    weigh = None if ghost_model is None or ghost_model is uniform else ghost_model
    inf = math.inf
    nodes = 0
    evaluations = 0
    # lines[p]: the best line found below the node being searched at ply p. Kept as a linked
    # pair (action, rest) so that improving a line costs one tuple, not a copy of the line.
    lines: list[Any] = [None] * (depth * (last + 1) + 2)
    reused = 0  # visits to children generated earlier for ordering: not successor calls

    def sort_children(s: Any, agent: int, actions: list[str]) -> tuple[list[str], Any]:
        # Sorts the actions best first; returns them with a successor function that hands
        # back the children already made.
        nonlocal nodes, evaluations
        made = {action: s.generate_successor(agent, action) for action in actions}
        keys = {action: evaluate(child) for action, child in made.items()}
        nodes += len(made)
        evaluations += len(made)

        def successor(_agent: int, action: str) -> Any:
            nonlocal reused
            reused += 1
            return made[action]

        return sorted(actions, key=keys.__getitem__, reverse=agent == 0), successor

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
        if ordered and not chance[agent] and not (agent == last and d == 1):
            # (Children that are leaves are not sorted: scoring them all to sort them
            # would cost what pruning saves at the last layer.)
            actions, successor = sort_children(s, agent, actions)
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
        if chance[agent]:
            total = 0.0
            if weigh is None:
                for action in actions:
                    nodes += 1
                    total += value(successor(agent, action), following, next_d, alpha, beta, below)
                # No single line is principal under a chance node; the line stops here.
                return total / len(actions)
            probabilities = _checked(weigh(s, agent), actions, s, agent)
            for action in actions:
                p = probabilities.get(action, 0.0)
                if p:
                    nodes += 1
                    v = value(successor(agent, action), following, next_d, alpha, beta, below)
                    total += p * v
            # No single line is principal under a chance node; the line stops here.
            return total
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
    root_successor = state.generate_successor
    if ordered:
        actions, root_successor = sort_children(state, 0, actions)
    best_value, best_action, alpha = -inf, actions[0], -inf
    values: dict[str, float] = {}
    line = None
    for action in actions:
        nodes += 1
        v = value(root_successor(0, action), following, next_d, alpha, inf, 1)
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
    return SearchResult(
        best_action, best_value, nodes - reused, evaluations, values, tuple(pv), depth
    )


def _checked(
    probabilities: Mapping[str, float], actions: list[str], state: Any, agent: int
) -> Mapping[str, float]:
    """A ghost model's answer, refused unless it is a distribution over legal actions."""
    total = 0.0
    for action, p in probabilities.items():
        if action not in actions or not p >= 0:
            raise AgentError(
                f"ghost model: {action!r} with probability {p!r} for agent {agent} in state "
                f"{state} (legal: {', '.join(actions)})"
            )
        total += p
    if abs(total - 1.0) > 1e-6:
        raise AgentError(
            f"ghost model: probabilities for agent {agent} in state {state} sum to {total}, not 1"
        )
    return probabilities


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
        self.simulations: list[int] = []

    def add(
        self,
        nodes: int,
        evaluations: int,
        seconds: float,
        depth: int | None = None,
        simulations: int | None = None,
    ) -> None:
        """Count one move; ``depth`` is the depth reached, for agents whose depth varies, and
        ``simulations`` the playouts of a Monte Carlo agent."""
        self.moves += 1
        self.nodes += nodes
        self.evaluations += evaluations
        self.seconds += seconds
        self.max_seconds = max(self.max_seconds, seconds)
        if depth is not None:
            self.depths.append(depth)
        if simulations is not None:
            self.simulations.append(simulations)

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
        if self.simulations:
            mean = sum(self.simulations) / len(self.simulations)
            text += (
                f", {mean:.0f} simulations/move ({min(self.simulations)}-{max(self.simulations)})"
            )
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
        result = search(state, self.depth, self.evaluation_function, self.kind, **self.options())
        self.stats.add(result.nodes, result.evaluations, time.perf_counter() - started)
        self.last_result = result
        return result.action

    def options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`search` this agent adds (layers, ghost model)."""
        return {}


class MinimaxAgent(MultiAgentSearchAgent):
    """Full-width minimax: every ghost minimises Pac-Man's evaluation."""

    kind = MINIMAX


class AlphaBetaAgent(MultiAgentSearchAgent):
    """Minimax with alpha-beta pruning (same action, fewer states)."""

    kind = ALPHABETA


class ExpectimaxAgent(MultiAgentSearchAgent):
    """Every ghost a chance layer, its moves weighted by ``ghostModel``.

    ``ghostModel=uniform`` (the default) averages over the legal actions, as CS188 does;
    ``ghostModel=directional`` weighs them as DirectionalGhost draws them; any callable
    ``(state, ghost_index) -> {action: probability}`` may be given from Python.
    """

    kind = EXPECTIMAX

    def __init__(
        self,
        evalFn: EvalSpec = "scoreEvaluationFunction",
        depth: int | str = 2,
        ghostModel: GhostModel | str = "uniform",
        index: int = 0,
    ) -> None:
        super().__init__(evalFn, depth, index)
        self.ghost_model = resolve_ghost_model(ghostModel)

    def options(self) -> dict[str, Any]:
        return {"ghost_model": self.ghost_model}


class ExpectiminimaxAgent(ExpectimaxAgent):
    """MIN and chance layers in one tree: ``layers=min,chance`` names each ghost's, in order.

    Without ``layers``, MIN and chance alternate, ghost 1 MIN.
    On the command line, where ``-a`` splits on commas, write ``layers=min:chance``.
    Chance layers weigh moves by ``ghostModel`` as in :class:`ExpectimaxAgent`.
    """

    kind = EXPECTIMINIMAX

    def __init__(
        self,
        evalFn: EvalSpec = "scoreEvaluationFunction",
        depth: int | str = 2,
        layers: str | Sequence[str] | None = None,
        ghostModel: GhostModel | str = "uniform",
        index: int = 0,
        **stray: str,
    ) -> None:
        if stray:
            # -a layers=min,chance arrives as layers="min" plus a bare "chance".
            raise AgentError(
                f"unexpected argument(s) {', '.join(stray)}: -a splits on commas, so write "
                "layers=min:chance (one entry per ghost)"
            )
        super().__init__(evalFn, depth, ghostModel, index)
        self.layers = parse_layers(layers) if layers is not None else None

    def options(self) -> dict[str, Any]:
        return {"ghost_model": self.ghost_model, "layers": self.layers}
