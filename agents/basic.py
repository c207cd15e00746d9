"""Simple Pac-Man agents: random, greedy and left-turning.

Agents that draw random numbers keep an ``rng`` attribute; the game runner
replaces it with the game's own seeded generator, so a game is reproducible
from its seed alone.
"""

from __future__ import annotations

import random
from typing import Any

from pacman.agent import Agent
from pacman.directions import LEFT, REVERSE, RIGHT, STOP

__all__ = ["GreedyAgent", "LeftTurnAgent", "RandomAgent"]


class RandomAgent(Agent):
    """Plays a uniformly random legal action (Stop included)."""

    def __init__(self, index: int = 0, rng: random.Random | None = None) -> None:
        super().__init__(index)
        self.rng = rng or random.Random()

    def get_action(self, state: Any) -> str:
        return self.rng.choice(state.get_legal_actions(self.index))


class GreedyAgent(Agent):
    """Moves to the successor with the best score, breaking ties at random; never stops."""

    def __init__(self, index: int = 0, rng: random.Random | None = None) -> None:
        super().__init__(index)
        self.rng = rng or random.Random()

    def get_action(self, state: Any) -> str:
        legal = [a for a in state.get_legal_actions(self.index) if a != STOP] or [STOP]
        scores = [state.generate_successor(self.index, a).get_score() for a in legal]
        best = max(scores)
        return self.rng.choice([a for a, s in zip(legal, scores, strict=True) if s == best])


class LeftTurnAgent(Agent):
    """Turns left whenever it can, else goes on, right, back, or stops."""

    def get_action(self, state: Any) -> str:
        legal = state.get_legal_actions(self.index)
        facing = state.get_pacman_state().get_direction()
        if facing == STOP:
            facing = "North"
        for choice in (LEFT[facing], facing, RIGHT[facing], REVERSE[facing]):
            if choice in legal:
                return choice
        return STOP
