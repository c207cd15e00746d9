"""A reflex agent: one look at each move's result, no search.

``ReflexAgent`` scores every legal action with ``evaluate(state, action)`` and
plays the best, ties going to the first in legal-action order (so games are
reproducible). Its evaluation looks at the successor with the same features as
:func:`agents.evaluation.betterEvaluationFunction`, which already makes a
loss the worst outcome and a ghost next to Pac-Man a heavy penalty; standing
still costs a little more, so Pac-Man does not wait for a ghost to pass.
"""

from __future__ import annotations

import time
from typing import Any

from agents.evaluation import betterEvaluationFunction
from agents.search import SearchResult, SearchStats
from pacman.agent import Agent
from pacman.directions import STOP

__all__ = ["ReflexAgent"]

STOP_PENALTY = 5.0


class ReflexAgent(Agent):
    """Plays the legal action whose successor looks best."""

    def __init__(self, index: int = 0) -> None:
        super().__init__(index)
        self.stats = SearchStats()
        #: Each action's value on the last move (the board overlay shows them).
        self.last_result: SearchResult | None = None

    def evaluate(self, state: Any, action: str) -> float:
        """How good playing ``action`` in ``state`` looks (CS188's ``evaluationFunction``)."""
        value = betterEvaluationFunction(state.generate_pacman_successor(action))
        return value - STOP_PENALTY if action == STOP else value

    # CS188's name, for code written against its ReflexAgent; a subclass may override either.
    evaluationFunction = evaluate

    def get_action(self, state: Any) -> str:
        started = time.perf_counter()
        actions = state.get_legal_actions(0)
        best_action, best_value = actions[0], float("-inf")
        values: dict[str, float] = {}
        for action in actions:
            value = values[action] = self.evaluate(state, action)
            if value > best_value:
                best_action, best_value = action, value
        self.stats.add(len(actions), len(actions), time.perf_counter() - started)
        self.last_result = SearchResult(
            best_action, best_value, len(actions), len(actions), values, (best_action,), 1
        )
        return best_action
