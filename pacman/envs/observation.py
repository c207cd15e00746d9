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

from pacman.directions import ACTION_ORDER
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
        # Writes go through a flat view: one integer index per cell is cheaper than three.
        self._flat = self.array.reshape(-1)
        self._plane = self.height * self.width
        #: game position -> row * width + column, filled as positions are met.
        self._offsets: dict[tuple[float, float], int] = {}
        # Flat indices this encoder marked for the agents, cleared before the next marks.
        self._marked: list[int] = []
        self._food = -1
        self._capsules = -1
        #: The last fully built state and what it took: (state, array, marked, food, capsules).
        self._saved: tuple[GameState, np.ndarray, list[int], int, int] | None = None

    def cell(self, position: tuple[float, float]) -> tuple[int, int]:
        """The ``(row, column)`` of a game position (half cells rounded as the text view does)."""
        x, y = position
        return self.height - 1 - int(y + 0.5), int(x + 0.5)

    def _offset(self, position: tuple[float, float]) -> int:
        offset = self._offsets.get(position)
        if offset is None:
            row, col = self.cell(position)
            offset = self._offsets[position] = row * self.width + col
        return offset

    def reset(self, state: GameState) -> np.ndarray:
        """Rebuild every channel from ``state``."""
        array = self.array
        saved = self._saved
        if saved is not None and saved[0] is state:
            # Environments reset to the same initial state object: copy its channels back.
            np.copyto(array, saved[1])
            self._marked, self._food, self._capsules = list(saved[2]), saved[3], saved[4]
            return array
        array[:] = 0.0
        array[WALLS] = self._walls
        top = self.height - 1
        food = state.get_food_positions()
        if food:
            xs, ys = zip(*food, strict=True)
            array[FOOD, top - np.array(ys), np.array(xs)] = 1.0
        capsules = state.get_capsules()
        for x, y in capsules:  # whole cells (int() only tells the type checker so)
            array[CAPSULES, top - int(y), int(x)] = 1.0
        self._food = len(food)
        self._capsules = len(capsules)
        self._marked = []
        self._mark_agents(state)
        self._saved = (state, array.copy(), list(self._marked), self._food, self._capsules)
        return array

    def update(self, previous: GameState, state: GameState) -> np.ndarray:
        """Bring the channels from ``previous`` (the last state encoded) to ``state``.

        Only Pac-Man eats, and only on the cell it stands on, so a drop of one
        food or one capsule is cleared there; any other change (a state that
        does not follow from ``previous``) rebuilds everything.
        """
        flat = self._flat
        food = state.get_num_food()
        if food != self._food:
            if food != self._food - 1:
                return self.reset(state)
            flat[FOOD * self._plane + self._offset(state.get_pacman_position())] = 0.0
            self._food = food
        capsules = len(state.get_capsules())
        if capsules != self._capsules:
            if capsules != self._capsules - 1:
                return self.reset(state)
            flat[CAPSULES * self._plane + self._offset(state.get_pacman_position())] = 0.0
            self._capsules = capsules
        for index in self._marked:
            flat[index] = 0.0
        self._mark_agents(state)
        return self.array

    def _mark_agents(self, state: GameState) -> None:
        flat, plane, offsets = self._flat, self._plane, self._offsets
        position = state.get_pacman_position()
        cell = offsets.get(position)
        if cell is None:
            cell = self._offset(position)
        index = PACMAN * plane + cell
        flat[index] = 1.0
        marked = [index]
        ghosts = (PACMAN + 1) * plane
        scared = self.scared_channel * plane
        per_ghost = self.per_ghost_channels
        timers = state.get_scared_timers()
        for number, position in enumerate(state.get_ghost_positions()):
            cell = offsets.get(position)
            if cell is None:
                cell = self._offset(position)
            timer = timers[number]
            if per_ghost:
                index = ghosts + number * plane + cell
                flat[index] = 1.0
                marked.append(index)
            elif not timer:
                index = ghosts + cell
                flat[index] = 1.0
                marked.append(index)
            if timer:
                index = scared + cell
                value = timer / SCARED_TIME
                if value > flat[index]:
                    flat[index] = value
                marked.append(index)
        self._marked = marked


def action_mask(legal: list[str], order: tuple[str, ...]) -> np.ndarray:
    """An ``int8`` mask over ``order`` with 1 for each action in ``legal``."""
    mask = np.zeros(len(order), dtype=np.int8)
    for action in legal:
        mask[order.index(action)] = 1
    return mask


def agent_observation(encoder: GridEncoder, state: GameState, index: int) -> dict[str, np.ndarray]:
    """The multi-agent games' observation of game agent ``index``.

    ``observation`` is the encoder's channels plus a last one marking the
    agent's own cell; ``action_mask`` its legal actions now (zeros once the
    game is over).
    """
    channels = encoder.shape[0]
    grid = np.zeros((channels + 1, encoder.height, encoder.width), dtype=np.float32)
    grid[:channels] = encoder.array
    position = state.get_pacman_position() if index == 0 else state.get_ghost_position(index)
    row, col = encoder.cell(position)
    grid[channels, row, col] = 1.0
    legal = [] if state.is_terminal() else state.get_legal_actions(index)
    return {"observation": grid, "action_mask": action_mask(legal, ACTION_ORDER)}
