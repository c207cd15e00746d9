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
from typing import Any

from agents.evaluation import EvalSpec, resolve_evaluation
from agents.search import SearchResult, SearchStats
from pacman.agent import Agent
from pacman.errors import AgentError

__all__ = ["AnytimeAgent"]

_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 64  # nodes between clock reads


class _OutOfTime(Exception):
    pass


class AnytimeAgent(Agent):
    """Iterative-deepening alpha-beta with a per-move time budget (``-a time=0.2``).

    ``loss_delay`` points are taken off a lost state for each ply it comes sooner than the
    search horizon (and one point added to a won state), so among lost lines Pac-Man picks
    the longest; ``max_depth`` caps the deepening, ``table_size`` the table.
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
        try:
            self.time_budget = float(time)
            self.max_depth = int(max_depth)
            self.table_size = int(table_size)
            self.loss_delay = float(loss_delay)
        except (TypeError, ValueError) as error:
            raise AgentError(f"AnytimeAgent: bad argument ({error})") from None
        if self.time_budget <= 0 or self.max_depth < 1:
            raise AgentError("AnytimeAgent: time must be positive and max_depth at least 1")
        self.evaluation_function = resolve_evaluation(evalFn)
        self.table: dict[tuple[int, int], tuple[int, float, int, str | None]] = {}
        #: Per move: nodes, evaluations, time and the depth of the deepest search finished.
        self.stats = SearchStats()
        #: The last move's result: root values of the deepest search finished, its depth.
        self.last_result: SearchResult | None = None

    def register_initial_state(self, state: Any) -> None:
        self.table.clear()

    def get_action(self, state: Any) -> str:
        started = time.perf_counter()
        deadline = started + self.time_budget
        actions = state.get_legal_actions(0)
        if not actions:
            raise AgentError(f"AnytimeAgent: Pac-Man has no legal action in state {state}")
        if len(self.table) > self.table_size:
            self.table.clear()
        self._nodes = self._evaluations = 0
        self._deadline = deadline
        self._countdown = _CHECK_EVERY
        plies_per_round = state.get_num_agents()
        best = actions[0]
        finished = 0
        last_values: dict[str, float] = {}
        order = list(actions)
        if len(actions) > 1:
            for depth in range(1, self.max_depth + 1):
                self._cut_off = False
                try:
                    best, values = self._root(state, order, depth * plies_per_round)
                except _OutOfTime as stop:
                    if stop.args and stop.args[0] is not None:
                        best = stop.args[0]
                    break
                finished = depth
                last_values = values
                order.sort(key=lambda action: -values[action])  # stable: ties keep their order
                if not self._cut_off:
                    break  # the whole game tree fits: deeper searches would change nothing
        self.stats.add(self._nodes, self._evaluations, time.perf_counter() - started, finished)
        self.last_result = SearchResult(
            best,
            last_values.get(best, math.nan),
            self._nodes,
            self._evaluations,
            last_values,
            (best,),
            finished,
        )
        return best

    def _root(self, state: Any, order: list[str], plies: int) -> tuple[str, dict[str, float]]:
        alpha = -math.inf
        best: str | None = None
        values: dict[str, float] = {}
        following = 1 % state.get_num_agents()
        for action in order:
            self._nodes += 1
            try:
                value = self._value(
                    state.generate_successor(0, action), following, plies - 1, alpha, math.inf
                )
            except _OutOfTime:
                # The previous best move goes first; once it is searched, the best so far is
                # at least as well founded as the previous iteration's choice.
                raise _OutOfTime(best) from None
            values[action] = value
            if value > alpha:
                alpha, best = value, action
        assert best is not None
        self.table[(hash(state), 0)] = (plies, alpha, _EXACT, best)
        return best, values

    def _value(self, state: Any, agent: int, plies: int, alpha: float, beta: float) -> float:
        self._countdown -= 1
        if self._countdown <= 0:
            self._countdown = _CHECK_EVERY
            if time.perf_counter() > self._deadline:
                raise _OutOfTime
        if state.is_win() or state.is_lose():
            self._evaluations += 1
            # Win sooner and lose later: a DirectionalGhost errs one move in five, so a loss
            # put off is often a loss avoided. The bonus counts plies to this search's horizon,
            # so a table entry from a search of another depth is off by a constant; that only
            # reorders losses among themselves (a loss is thousands of points below the rest).
            if state.is_win():
                return self.evaluation_function(state) + plies
            return self.evaluation_function(state) - plies * self.loss_delay
        if plies == 0:
            self._cut_off = True
            self._evaluations += 1
            return self.evaluation_function(state)
        actions = state.get_legal_actions(agent)
        if not actions:
            self._evaluations += 1
            return self.evaluation_function(state)

        key = (hash(state), agent)
        entry = self.table.get(key)
        first = None
        if entry is not None:
            depth, value, flag, first = entry
            if depth >= plies:
                # The stored search may have stopped at its own horizon: keep deepening.
                self._cut_off = True
                if flag == _EXACT:
                    return value
                if flag == _LOWER and value > alpha:
                    alpha = value
                elif flag == _UPPER and value < beta:
                    beta = value
                if alpha >= beta:
                    return value
            if first is not None and first != actions[0] and first in actions:
                actions.remove(first)
                actions.insert(0, first)

        original_alpha, original_beta = alpha, beta
        following = agent + 1 if agent + 1 < state.get_num_agents() else 0
        successor = state.generate_successor
        best_action = actions[0]
        if agent == 0:
            best = -math.inf
            for action in actions:
                self._nodes += 1
                value = self._value(successor(0, action), following, plies - 1, alpha, beta)
                if value > best:
                    best, best_action = value, action
                    if best > alpha:
                        alpha = best
                        if alpha >= beta:
                            break
        else:
            best = math.inf
            for action in actions:
                self._nodes += 1
                value = self._value(successor(agent, action), following, plies - 1, alpha, beta)
                if value < best:
                    best, best_action = value, action
                    if best < beta:
                        beta = best
                        if alpha >= beta:
                            break
        if best <= original_alpha:
            flag = _UPPER
        elif best >= original_beta:
            flag = _LOWER
        else:
            flag = _EXACT
        self.table[key] = (plies, best, flag, best_action)
        return best
