"""An agent that draws on the board: alpha-beta, marking what it is thinking about.

    pacman -p examples/marking_agent.py:MarkingAgent -a depth=2 -l smallClassic --values

Each move it clears its marks, then colours the cells a ghost can reach within
two moves red and the nearest food green (``draw_cells``; CS188 contest code
may call ``debugDraw`` instead). Press V in the window to show the search's
values beside Pac-Man and its principal variation.
"""

from __future__ import annotations

from typing import Any

from agents.search import AlphaBetaAgent
from pacman.distances import maze_distances


class MarkingAgent(AlphaBetaAgent):
    """Alpha-beta with ``evalFn=better`` that marks danger and its nearest food each move."""

    def __init__(self, depth: int | str = 2, evalFn: Any = "better", index: int = 0) -> None:
        super().__init__(evalFn=evalFn, depth=depth, index=index)

    def get_action(self, state: Any) -> str:
        distances = maze_distances(state)
        danger = set()
        for x, y in state.get_ghost_positions():
            ghost = (int(x + 0.5), int(y + 0.5))
            danger.update(cell for cell, d in distances.nearest_first(ghost) if d <= 2)
        self.draw_cells(sorted(danger), (1.0, 0.2, 0.2), clear=True)
        pacman = state.get_pacman_position()
        food = set(state.get_food_positions())
        nearest = [cell for cell, _ in distances.nearest_first(pacman) if cell in food][:3]
        self.draw_cells(nearest, (40, 220, 90))
        return super().get_action(state)
