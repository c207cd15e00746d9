"""A short, reproducible game for tests that watch or record one."""

from __future__ import annotations

import random
from collections.abc import Sequence

from pacman.agent import Agent
from pacman.game import Game
from pacman.ghosts import RandomGhost
from pacman.layout import load_layout
from pacman.state import GameState


class EastFirst(Agent):
    """East when it can, else the first legal move."""

    def get_action(self, state):
        legal = state.get_legal_actions(0)
        return "East" if "East" in legal else legal[0]


def small_game(
    observers: Sequence[object], max_moves: int = 4, layout: str = "smallClassic"
) -> Game:
    """EastFirst against two RandomGhosts seeded 1 and 2, cut after ``max_moves`` Pac-Man moves."""
    state = GameState.initial(load_layout(layout), 2)
    ghosts = [RandomGhost(i, rng=random.Random(i)) for i in (1, 2)]
    return Game(state, [EastFirst(), *ghosts], observers=observers, max_moves=max_moves)
