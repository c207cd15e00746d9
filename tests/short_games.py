"""A short, reproducible game for tests that watch or record one."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

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


#: The checkout, so child processes import this tree's packages.
ROOT = Path(__file__).resolve().parents[1]


def env_without_display(**extra: str) -> dict[str, str]:
    """This process's environment with no display and no SDL driver chosen, plus ``extra``."""
    hidden = ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")
    return {**{k: v for k, v in os.environ.items() if k not in hidden}, **extra}


def run_pacman_without_display(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m pacman ARGS`` as on a machine with no display."""
    return subprocess.run(
        [sys.executable, "-m", "pacman", *args],
        capture_output=True,
        text=True,
        env=env_without_display(),
        timeout=120,
        cwd=ROOT,
    )
