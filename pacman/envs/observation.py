"""The grid observation shared by the Gymnasium and PettingZoo environments.

An observation is a stack of ``(height, width)`` planes, channels first, as
``float32``. Row 0 is the top row of the maze (as the layout file and the text
view show it) and column ``x`` is the game's ``x``; the cell of game position
``(x, y)`` is ``[height - 1 - y, x]``. A ghost between two cells (scared ghosts
move half a cell a move) is shown on the nearer cell, ``int(x + 0.5)``, as the
text view does.

The encoder keeps one array and updates only what a move can change: the
cells the agents leave and enter, and the food or capsule under Pac-Man.
Callers copy it before handing it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pacman.state import SCARED_TIME

if TYPE_CHECKING:
    from pacman.layout import Layout
    from pacman.state import GameState

WALLS, FOOD, CAPSULES, PACMAN = 0, 1, 2, 3


def channel_names(num_ghosts: int, per_ghost_channels: bool) -> tuple[str, ...]:
    """The channel names, in order, for a game with ``num_ghosts`` ghosts."""
    ghosts = tuple(f"ghost_{i}" for i in range(num_ghosts)) if per_ghost_channels else ("ghosts",)
    return ("walls", "food", "capsules", "pacman", *ghosts, "scared_ghosts")


class GridEncoder:
    """Keeps the channel stack of the current state up to date, move by move.

    Channels: ``walls``, ``food``, ``capsules``, ``pacman`` (1 on its cell);
    then either ``ghosts`` (1 where an unscared ghost is) or, with
    ``per_ghost_channels``, one channel per ghost (1 on that ghost's cell,
    scared or not); last ``scared_ghosts``, ``scared_timer / 40`` on the cell of
    each scared ghost (the larger value if two share a cell).
    """

    def __init__(self, layout: Layout, num_ghosts: int, per_ghost_channels: bool = False) -> None:
        self.layout = layout
        self.num_ghosts = num_ghosts
        self.per_ghost_channels = per_ghost_channels
        self.names = channel_names(num_ghosts, per_ghost_channels)
        self.height, self.width = layout.height, layout.width
        self.shape = (len(self.names), self.height, self.width)
        self.scared_channel = len(self.names) - 1
        self.array = np.zeros(self.shape, dtype=np.float32)
        walls = self.array[WALLS]
        top = self.height - 1
        for x in range(self.width):
            for y in range(self.height):
                if layout.is_wall(x, y):
                    walls[top - y, x] = 1.0
        self._walls = walls.copy()
        # Cells this encoder marked for the agents, cleared before the next marks.
        self._marked: list[tuple[int, int, int]] = []
        self._food = -1
        self._capsules = -1

    def cell(self, position: tuple[float, float]) -> tuple[int, int]:
        """The ``(row, column)`` of a game position (half cells rounded as the text view does)."""
        x, y = position
        return self.height - 1 - int(y + 0.5), int(x + 0.5)

    def reset(self, state: GameState) -> np.ndarray:
        """Rebuild every channel from ``state``."""
        array = self.array
        array[:] = 0.0
        array[WALLS] = self._walls
        top = self.height - 1
        food = array[FOOD]
        for x, y in state.get_food_positions():
            food[top - y, x] = 1.0
        capsules = state.get_capsules()
        for x, y in capsules:
            array[CAPSULES, top - y, x] = 1.0
        self._food = state.get_num_food()
        self._capsules = len(capsules)
        self._marked = []
        self._mark_agents(state)
        return array

    def update(self, previous: GameState, state: GameState) -> np.ndarray:
        """Bring the channels from ``previous`` (the last state encoded) to ``state``.

        Only Pac-Man eats, and only on the cell it stands on, so a drop of one
        food or one capsule is cleared there; any other change (a state that
        does not follow from ``previous``) rebuilds everything.
        """
        food = state.get_num_food()
        if food != self._food:
            if food != self._food - 1:
                return self.reset(state)
            row, col = self.cell(state.get_pacman_position())
            self.array[FOOD, row, col] = 0.0
            self._food = food
        capsules = len(state.get_capsules())
        if capsules != self._capsules:
            if capsules != self._capsules - 1:
                return self.reset(state)
            row, col = self.cell(state.get_pacman_position())
            self.array[CAPSULES, row, col] = 0.0
            self._capsules = capsules
        array = self.array
        for channel, row, col in self._marked:
            array[channel, row, col] = 0.0
        self._marked = []
        self._mark_agents(state)
        return array

    def _mark_agents(self, state: GameState) -> None:
        array, marked, cell = self.array, self._marked, self.cell
        row, col = cell(state.get_pacman_position())
        array[PACMAN, row, col] = 1.0
        marked.append((PACMAN, row, col))
        scared_channel = self.scared_channel
        per_ghost = self.per_ghost_channels
        for index, (position, timer) in enumerate(
            zip(state.get_ghost_positions(), state.get_scared_timers(), strict=True)
        ):
            row, col = cell(position)
            if per_ghost:
                channel = PACMAN + 1 + index
                array[channel, row, col] = 1.0
                marked.append((channel, row, col))
            elif not timer:
                array[PACMAN + 1, row, col] = 1.0
                marked.append((PACMAN + 1, row, col))
            if timer:
                value = timer / SCARED_TIME
                if value > array[scared_channel, row, col]:
                    array[scared_channel, row, col] = value
                marked.append((scared_channel, row, col))


def action_mask(legal: list[str], order: tuple[str, ...]) -> np.ndarray:
    """An ``int8`` mask over ``order`` with 1 for each action in ``legal``."""
    mask = np.zeros(len(order), dtype=np.int8)
    for action in legal:
        mask[order.index(action)] = 1
    return mask
