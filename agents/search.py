"""The one search (minimax, alpha-beta, expectimax, expectiminimax and their variants) and
the agents that call it.

:func:`search` is the only game-tree search of the project: the four agents below, the
anytime agent's iterative deepening, the grader's diagnosis (each known mistake a variant
option of the configuration), its reference solutions and the tree views all call it, each
with a :class:`~agents.search_config.SearchConfig`.

CS188's conventions throughout. Agent 0 (Pac-Man) maximises; every other agent is a MIN or
a chance layer, in index order, as the configuration's layers say. One unit of depth is a
move by every agent. A won or lost state, a state with no legal action, and every state
reached at the depth limit are scored by the evaluation function. Children are generated in
legal-action order, ties go to the first action, and alpha-beta prunes only on strict
inequality, so the expansion sequence is exactly CS188's. A chance node's outcomes come from
the ghost model ``(state, ghost) -> {action: p}``, as OpenSpiel's ``chance_outcomes()`` come
from the state: it is worth ``sum(p * value)``; without a model (or with
:func:`agents.models.uniform`) it is the plain average, computed as CS188 computes it.

Only the public state API is used (``get_legal_actions``, ``generate_successor``,
``is_win``, ``is_lose``, ``get_num_agents``), so a recording wrapper
(:mod:`pacman.recording`) sees every successor call.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeAlias

from agents.backup import checked_weights
from agents.evaluation import EvalSpec, resolve_evaluation
from agents.models import GhostModel
from agents.search_config import (
    ALPHABETA,
    CHANCE,
    EVALUATION,
    EXPECTIMAX,
    EXPECTIMINIMAX,
    MAX,
    MIN,
    MINIMAX,
    SearchConfig,
    config_from_args,
    parse_layers,
)
from agents.search_state import SearchState
from agents.stats import SearchStats
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
    "OutOfTime",
    "SearchConfig",
    "SearchResult",
    "SearchStats",
    "Table",
    "parse_layers",
    "search",
]

_INF = math.inf
#: The principal variation as the search builds it: ``(action, the line below)``, ``None`` at
#: its end (a new best child links to its line without copying it).
Line: TypeAlias = "tuple[str, Line] | None"


class SearchResult(NamedTuple):
    """What one search found and what it cost: the public result an agent keeps as ``last_result``.

    ``values`` maps each root action to the value the search gave it (for alpha-beta, an
    action other than the best may have a bound: it was cut off once it could not win).
    ``pv`` is the principal variation: the actions, every agent's in turn, along which the
    best value was found. ``layers`` are the ghosts' layers the search used (``"min"``,
    ``"chance"``), ``cut_off`` whether the depth limit cut off a game that was not over
    (``None`` unless the search had a table, as iterative deepening has).
    """

    action: str
    value: float
    nodes: int  # successor calls
    evaluations: int  # evaluation-function calls
    values: dict[str, float] = {}  # noqa: RUF012 - a NamedTuple default, never mutated
    pv: tuple[str, ...] = ()
    depth: int = 0
    layers: tuple[str, ...] = ()
    cut_off: bool | None = None

    def _repr_html_(self) -> str:
        """In a notebook: each root action's value (the chosen one in bold) and the search's
        depth, nodes and principal variation."""
        from html import escape

        rows = "".join(
            f"<tr><td>{'<b>' if action == self.action else ''}{escape(str(action))}"
            f"{'</b>' if action == self.action else ''}</td><td>{value:g}</td></tr>"
            for action, value in self.values.items()
        )
        said = (
            f"{escape(str(self.action))} = {self.value:g} \u00b7 depth {self.depth} \u00b7 "
            f"{self.nodes} nodes \u00b7 principal variation: {escape(' '.join(self.pv)) or '-'}"
        )
        return (
            f"<div><p>{said}</p><table><tr><th>action</th><th>value</th></tr>{rows}</table></div>"
        )


class OutOfTime(Exception):
    """A search stopped at its deadline, before it searched every root action.

    On its way out of :func:`search` it gets ``best``, the best of the root actions searched
    to the end (``None`` if there was none), ``values``, theirs, and what the search had
    cost: ``nodes`` and ``evaluations``.
    """

    best: str | None = None
    values: dict[str, float] | None = None
    nodes = 0
    evaluations = 0


#: A transposition table: ``(hash(state), agent to move) -> (plies searched, value, bound,
#: best action)``, the bound :data:`EXACT`, :data:`LOWER` or :data:`UPPER`. It holds numbers
#: and strings only, so Python's garbage collector never scans it.
Table = dict[tuple[int, int], tuple[int, float, int, str]]
EXACT, LOWER, UPPER = 0, 1, 2
_CLOCK_EVERY = 24  # table nodes between two readings of the clock


def search(
    state: SearchState,
    config: SearchConfig,
    evaluate: Callable[[SearchState], float],
    *,
    table: Table | None = None,
    root_actions: Sequence[str] | None = None,
    deadline: float | None = None,
) -> SearchResult:
    """Pac-Man's best action in ``state`` by the search ``config`` describes.

    ``search(state, SearchConfig(ALPHABETA, 2), evaluate)``. Children of probability 0 are
    not generated. With ``ordering=EVALUATION``, the children of a MAX or MIN node above
    the last layer are all generated first and visited best first by ``evaluate`` (highest
    for MAX, lowest for MIN; ties in legal order); ``nodes`` counts those successor calls too.

    For iterative deepening: ``root_actions`` are the root's actions in the order to try
    them; ``table`` (a :data:`Table`, kept from one search to the next) is read and written
    at every MAX and MIN node: an entry searched deep enough answers the node or narrows
    its window, and otherwise its best action is tried first; the root's value is stored
    too. With a table, ``result.cut_off`` says whether the depth limit (or an entry that
    may have met its own) cut off a game that was not over. Past ``deadline`` (a
    :func:`time.perf_counter` time, read now and then at table nodes) the search stops with
    :class:`OutOfTime`.
    """
    if not isinstance(config, SearchConfig):
        raise AgentError(
            f"search: config is a SearchConfig (SearchConfig(ALPHABETA, 2), say), not {config!r}"
        )
    actions = list(state.get_legal_actions(0) if root_actions is None else root_actions)
    if not actions:
        raise AgentError(f"search: Pac-Man has no legal action in state {state}")
    walk = _Walk(config, state.get_num_agents(), evaluate, table, deadline)
    action, value, values = walk.root(state, actions)
    return SearchResult(
        action,
        value,
        walk.nodes - walk.reused,
        walk.evaluations,
        values,
        walk.principal_variation(action),
        config.depth,
        walk.layers,
        None if table is None else walk.horizon > 0,
    )


class _Walk:
    """One search under way: the configuration made into per-agent tables, and its counts.

    Nodes are searched by ``plies`` left before the depth limit; ``lines[p]`` is the best
    line found below the node being searched with ``p`` plies left, kept as a linked pair
    (action, rest) so that improving a line costs one tuple, not a copy of the line.

    :meth:`choose` and :meth:`average` back values up and narrow alpha-beta's window by the
    rules of :mod:`agents.backup` (``backed_up``, ``narrowed``), which the tree views call:
    written out in the loops, not called, since a call per child slows the search by 2 to 8%
    (tests/test_backup.py holds the two to the same values and windows).
    """

    __slots__ = (
        "countdown",
        "deadline",
        "delay",
        "divisors",
        "equal",
        "evaluate",
        "evaluations",
        "expand",
        "following",
        "haste",
        "horizon",
        "layers",
        "limit",
        "lines",
        "maximising",
        "model",
        "nodes",
        "plies",
        "prune",
        "reused",
        "root_bound",
        "sort",
        "table",
    )

    def __init__(
        self,
        config: SearchConfig,
        num_agents: int,
        evaluate: Callable[[SearchState], float],
        table: Table | None,
        deadline: float | None,
    ) -> None:
        self.layers = config.layers_for(num_agents)
        self.plies = config.plies(num_agents)
        self.evaluate = evaluate
        self.table, self.deadline, self.countdown = table, deadline, _CLOCK_EVERY
        self.prune = config.prunes
        self.root_bound = config.prunes and not config.root_unbounded
        self.divisors = config.divisors(num_agents)
        self.equal = config.prune_on_equal
        self.sort = config.ordering == EVALUATION
        self.haste, self.delay = config.win_haste, config.loss_delay
        self.model = config.weights
        kinds = (MAX, *self.layers)
        self.maximising = tuple(kind == MAX for kind in kinds)
        self.expand = tuple(self.average if kind == CHANCE else self.choose for kind in kinds)
        # What values a child at the depth limit (bound once: half the nodes are such).
        self.limit = self.at_limit if table is None else self.at_horizon
        self.following = tuple((agent + 1) % num_agents for agent in range(num_agents))
        self.nodes = self.evaluations = self.reused = self.horizon = 0
        self.lines: list[Line] = [None] * (self.plies + 1)

    def root(self, state: SearchState, actions: list[str]) -> tuple[str, float, dict[str, float]]:
        """Each root action's value; the best action (the first of the best) and its value."""
        plies = self.plies
        successor: Callable[[int, str], SearchState] = state.generate_successor
        if self.sort:
            actions, successor = self.sorted_children(state, 0, actions)
        best_value, best_action, alpha = -_INF, actions[0], -_INF
        values: dict[str, float] = {}
        following, prune = self.following[0], self.root_bound
        value = self.limit if plies == 1 else self.expand[following]
        try:
            for action in actions:
                self.nodes += 1
                v = value(successor(0, action), following, plies - 1, alpha, _INF)
                values[action] = v
                if v > best_value:
                    best_value, best_action = v, action
                    self.lines[plies] = (action, self.lines[plies - 1])
                    if prune and v > alpha:
                        alpha = v
        except OutOfTime as stop:
            stop.best = best_action if best_value > -_INF else None
            stop.values = values
            stop.nodes = self.nodes - self.reused
            stop.evaluations = self.evaluations
            raise
        if self.table is not None:
            self.table[hash(state), 0] = (plies, best_value, EXACT, best_action)
        return best_action, best_value, values

    def principal_variation(self, action: str) -> tuple[str, ...]:
        """The actions from the root along which the best value was found."""
        line = self.lines[self.plies]
        if line is None:
            return (action,)
        pv = []
        while line is not None:
            pv.append(line[0])
            line = line[1]
        return tuple(pv)

    def at_limit(self, s: SearchState, agent: int, p: int, alpha: float, beta: float) -> float:
        """A state at the depth limit: its evaluation."""
        self.evaluations += 1
        return self.evaluate(s)

    def at_horizon(self, s: SearchState, agent: int, p: int, alpha: float, beta: float) -> float:
        """A state at the depth limit of a deepening search: its evaluation, noting whether
        the limit cut off a game that was not over."""
        self.evaluations += 1
        if not (s.is_win() or s.is_lose()):
            self.horizon += 1
        return self.evaluate(s)

    def ended(self, s: SearchState, p: int) -> float:
        """A state above the depth limit with no move to search: won, lost or stuck."""
        self.lines[p] = None
        self.evaluations += 1
        value = self.evaluate(s)
        if self.haste and s.is_win():
            return value + p * self.haste
        if self.delay and s.is_lose():
            return value - p * self.delay
        return value

    def choose(self, s: SearchState, agent: int, p: int, alpha: float, beta: float) -> float:
        """A MAX or MIN node: the best child's value, pruning when the search prunes; with a
        transposition table, read first and written after (see :func:`search`)."""
        if s.is_win() or s.is_lose() or not (actions := s.get_legal_actions(agent)):
            return self.ended(s, p)
        lines = self.lines
        table = self.table
        if table is not None:
            self.countdown -= 1
            if self.countdown <= 0:
                self.check_clock()
            key = (hash(s), agent)
            entry = table.get(key)
            if entry is not None:
                window = self.recall(entry, p, alpha, beta, actions)
                if window is None:
                    lines[p] = None
                    return entry[1]
                alpha, beta = window
            low, high = alpha, beta
        successor: Callable[[int, str], SearchState] = s.generate_successor
        if self.sort and p > 1:
            actions, successor = self.sorted_children(s, agent, actions)
        following = self.following[agent]
        # The children: the next agent's nodes, or (one ply above the limit) evaluated states.
        value = self.limit if p == 1 else self.expand[following]
        lines[p] = None
        below = p - 1
        if self.maximising[agent]:
            best = -_INF
            for action in actions:
                self.nodes += 1
                v = value(successor(agent, action), following, below, alpha, beta)
                if v > best:
                    best = v
                    lines[p] = (action, lines[below])
                    if self.prune:
                        if best > beta or (self.equal and best == beta):
                            break
                        if best > alpha:
                            alpha = best
        else:
            best = _INF
            for action in actions:
                self.nodes += 1
                v = value(successor(agent, action), following, below, alpha, beta)
                if v < best:
                    best = v
                    lines[p] = (action, lines[below])
                    if self.prune:
                        if best < alpha or (self.equal and best == alpha):
                            break
                        if best < beta:
                            beta = best
        if table is not None:
            bound = UPPER if best <= low else LOWER if best >= high else EXACT
            line = lines[p]
            table[key] = (p, best, bound, actions[0] if line is None else line[0])
        return best

    def check_clock(self) -> None:
        """Stop the search (:class:`OutOfTime`) once its deadline has passed."""
        self.countdown = _CLOCK_EVERY
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime

    def recall(
        self,
        entry: tuple[int, float, int, str],
        p: int,
        alpha: float,
        beta: float,
        actions: list[str],
    ) -> tuple[float, float] | None:
        """What a table entry says of a node: ``None`` when its value answers the node, else
        the window narrowed by it (its best action moved to the front of ``actions``)."""
        depth, value, bound, first = entry
        if depth >= p:
            self.horizon += 1  # the entry's search may have stopped at its own horizon
            if bound == LOWER and value > alpha:
                alpha = value
            elif bound == UPPER and value < beta:
                beta = value
            if bound == EXACT or alpha >= beta:
                return None
        if first != actions[0] and first in actions:
            actions.remove(first)
            actions.insert(0, first)
        return alpha, beta

    def average(self, s: SearchState, agent: int, p: int, alpha: float, beta: float) -> float:
        """A chance node: the mean of its children, or with a ghost model sum(p * value)."""
        if s.is_win() or s.is_lose() or not (actions := s.get_legal_actions(agent)):
            return self.ended(s, p)
        # No single line is principal under a chance node; the line stops here.
        self.lines[p] = None
        following = self.following[agent]
        value = self.limit if p == 1 else self.expand[following]
        successor = s.generate_successor
        total = 0.0
        if self.model is None:  # CS188's average, summed then divided: its values to the bit
            for action in actions:
                self.nodes += 1
                total += value(successor(agent, action), following, p - 1, alpha, beta)
            if self.divisors is not None:  # a variant's mistake
                return total / (self.divisors[agent] or len(actions))
            return total / len(actions)
        probabilities = checked_weights(self.model(s, agent), actions, s, agent)
        for action in actions:
            chance = probabilities.get(action, 0.0)
            if chance:  # a move of probability 0 is not generated
                self.nodes += 1
                total += chance * value(successor(agent, action), following, p - 1, alpha, beta)
        return total

    def sorted_children(
        self, s: SearchState, agent: int, actions: list[str]
    ) -> tuple[list[str], Callable[[int, str], SearchState]]:
        """The actions best first for ``agent``, with a successor function that hands back
        the children made to sort them (visiting one is not another successor call)."""
        made = {action: s.generate_successor(agent, action) for action in actions}
        keys = {action: self.evaluate(child) for action, child in made.items()}
        self.nodes += len(made)
        self.evaluations += len(made)

        def successor(_agent: int, action: str) -> SearchState:
            self.reused += 1
            return made[action]

        return sorted(actions, key=keys.__getitem__, reverse=agent == 0), successor


class MultiAgentSearchAgent(Agent):
    """Pac-Man searching ``depth`` rounds ahead, scoring leaves with ``evalFn``.

    ``depth`` and ``evalFn`` (a callable or a name such as
    ``scoreEvaluationFunction`` or ``better``) may be strings, as from
    ``-a depth=3,evalFn=better``. The arguments are checked here and become
    :attr:`config`, the :class:`SearchConfig` every move searches with.
    """

    kind = MINIMAX

    def __init__(
        self, evalFn: EvalSpec = "scoreEvaluationFunction", depth: int | str = 2, index: int = 0
    ) -> None:
        self._setup(evalFn, index, config_from_args(self.kind, depth))

    def _setup(self, evalFn: EvalSpec, index: int, config: SearchConfig) -> None:
        """Set the agent up to search with ``config``, scoring leaves with ``evalFn``."""
        super().__init__(index)
        self.evaluation_function = resolve_evaluation(evalFn)
        #: How every move is searched: built from the agent's arguments.
        self.config = config
        self.stats = SearchStats()
        #: The last move's :class:`SearchResult` (root values, principal variation, cost,
        #: the layers searched), ``None`` before the first move: what the overlay shows.
        self.last_result: SearchResult | None = None

    @property
    def depth(self) -> int:
        """Rounds searched (one unit: a move by every agent)."""
        return self.config.depth

    def check_game(self, num_agents: int) -> None:
        """Refuse, with an AgentError naming the argument, a game of ``num_agents`` agents
        that the arguments do not fit (``layers`` gives one entry per ghost). A runner that
        knows the game where it builds the agent can ask at once; the game start asks."""
        self.config.layers_for(num_agents)

    def register_initial_state(self, state: SearchState) -> None:
        """Check the arguments against the game before its first move."""
        self.check_game(state.get_num_agents())

    def get_action(self, state: SearchState) -> str:
        started = time.perf_counter()
        result = search(state, self.config, self.evaluation_function)
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
        self._setup(evalFn, index, config_from_args(self.kind, depth, ghostModel=ghostModel))

    @property
    def ghost_model(self) -> GhostModel | None:
        """The model the chance layers weigh the ghosts' moves by."""
        return self.config.ghost_model


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
        config = config_from_args(self.kind, depth, layers, ghostModel)
        self._setup(evalFn, index, config)

    @property
    def layers(self) -> tuple[str, ...] | None:
        """Each ghost's layer as given (``None``: MIN and chance alternate)."""
        return self.config.layers
