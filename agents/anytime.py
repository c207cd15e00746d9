"""An anytime Pac-Man: iterative-deepening alpha-beta within a time budget per move.

``AnytimeAgent`` searches depth 1, 2, 3... (units of a move by every agent,
as the fixed-depth agents count) until ``time`` seconds are used, and plays
the best move of the deepest search it finished, or of the unfinished one once
it has searched the previous best move in it. Each iteration makes the next
one cheaper:

- a transposition table keyed by (state, agent to move) keeps each position's
  value, whether it is exact or a bound, its searched depth and its best
  move; a good enough entry answers at once, and otherwise its best move is
  tried first. It stores the state's 64-bit hash, not the state: the table
  then holds only numbers and strings, which Python's garbage collector does
  not scan (with states in it, collections paused a move for 200 ms), and a
  collision between two of a few hundred thousand positions is a
  one-in-a-hundred-million event;
- at the root, moves are tried in the order of the previous iteration's
  values, its best move first.

The table persists from move to move (positions repeat: the previous search
saw this one two plies deep) and is emptied when it grows past
``table_size`` entries and at the start of every game.

Ghosts are MIN layers, as in ``AlphaBetaAgent``; leaves are scored by
``evalFn`` (default ``better``). Unlike the fixed-depth agents it does not
promise CS188's expansion order: it is built to win, not to be graded.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any

import agents.search as engine
from agents.arguments import real_number, whole_number
from agents.evaluation import EvalSpec, resolve_evaluation
from agents.search import OutOfTime, SearchResult, Table
from agents.search_config import ALPHABETA, SearchConfig
from agents.stats import SearchStats
from pacman.agent import Agent
from pacman.errors import AgentError

__all__ = ["AnytimeAgent"]


class AnytimeAgent(Agent):
    """Iterative-deepening alpha-beta with a per-move time budget (``-a time=0.2``).

    ``loss_delay`` points are taken off a lost state for each ply it comes sooner than the
    search horizon (and one point added to a won state), so among lost lines Pac-Man picks
    the longest; ``max_depth`` caps the deepening, ``table_size`` the table.

    Each iteration is one call of :func:`agents.search.search` with :attr:`config` at its
    depth and the agent's :attr:`table`.
    """

    def __init__(
        self,
        time: float | str = 0.2,
        evalFn: EvalSpec = "better",
        max_depth: int | str = 50,
        table_size: int | str = 300_000,
        loss_delay: float | str = 50.0,
        index: int = 0,
    ) -> None:
        super().__init__(index)
        # A bad argument is named as every agent's is; the command adds the agent's name.
        self.time_budget = real_number("time", time, positive=True)
        self.max_depth = whole_number("max_depth", max_depth, minimum=1)
        self.table_size = whole_number("table_size", table_size, minimum=0)
        self.loss_delay = real_number("loss_delay", loss_delay)
        self.evaluation_function = resolve_evaluation(evalFn)
        #: The search of every iteration but its depth: alpha-beta that prunes on equality
        #: too (the table's bounds make that safe), wins sooner and losses later preferred.
        self.config = SearchConfig(
            ALPHABETA, 1, prune_on_equal=True, win_haste=1, loss_delay=self.loss_delay
        )
        #: The transposition table, kept from move to move (see :func:`agents.search.search`).
        self.table: Table = {}
        #: Per move: nodes, evaluations, time and the depth of the deepest search finished.
        self.stats = SearchStats()
        #: The last move's result: root values of the deepest search finished, its depth.
        self.last_result: SearchResult | None = None

    def register_initial_state(self, state: Any) -> None:
        self.table.clear()

    def get_action(self, state: Any) -> str:
        started = time.perf_counter()
        actions = state.get_legal_actions(0)
        if not actions:
            raise AgentError(f"AnytimeAgent: Pac-Man has no legal action in state {state}")
        if len(self.table) > self.table_size:
            self.table.clear()
        deadline = started + self.time_budget
        nodes = evaluations = finished = 0
        best = actions[0]
        last_values: dict[str, float] = {}
        order = list(actions)
        depths = range(1, self.max_depth + 1) if len(actions) > 1 else ()  # one move: no search
        for depth in depths:
            try:
                # Through the module, as every caller of the one search: a test swaps it there.
                result = engine.search(
                    state,
                    replace(self.config, depth=depth),
                    self.evaluation_function,
                    table=self.table,
                    root_actions=order,
                    deadline=deadline,
                )
            except OutOfTime as stop:
                nodes, evaluations = nodes + stop.nodes, evaluations + stop.evaluations
                # Once the previous best move is searched (it goes first), the best so far
                # is at least as well founded as the previous iteration's choice.
                best = stop.best if stop.best is not None else best
                break
            nodes, evaluations = nodes + result.nodes, evaluations + result.evaluations
            best, finished, last_values = result.action, depth, result.values
            order.sort(key=lambda action: -last_values[action])  # stable: ties keep their order
            if not result.cut_off:
                break  # the whole game tree fits: deeper searches would change nothing
        self.stats.add(nodes, evaluations, time.perf_counter() - started, finished)
        self.last_result = SearchResult(
            best,
            last_values.get(best, math.nan),
            nodes,
            evaluations,
            last_values,
            (best,),
            finished,
        )
        return best
