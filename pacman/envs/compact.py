"""Compact observations for learners: per-action features and a Pac-Man-centred window.

The grid planes show everything but leave a learner to discover maze distances
and what a move does. These two encoders hand it that knowledge:

- ``FeatureEncoder``: for each of the five actions, what Pac-Man would find on
  the cell the action leads to (food, a capsule, how near food and ghosts are,
  whether an unscared ghost could catch it there). In the spirit of CS188's
  ``SimpleExtractor``; distances are maze distances divided by the layout's
  longest one, so they lie in [0, 1] on every layout.
- ``WindowEncoder``: the grid channels (Pac-Man's own left out) in a square
  centred on Pac-Man; cells beyond the maze read as walls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import numpy as np

from pacman.directions import ACTION_ORDER
from pacman.distances import Cell, MazeDistances, Position, maze_distances
from pacman.state import SCARED_TIME, maze_of

if TYPE_CHECKING:
    from pacman.layout import Layout
    from pacman.state import GameState

#: The entries of one action's block of the feature observation, in order.
FEATURE_NAMES: tuple[str, ...] = (
    "legal",
    "eats_food",
    "food_distance",
    "eats_capsule",
    "capsule_distance",
    "ghost_danger",
    "ghost_distance",
    "scared_ghost_near",
    "scared_ghost_distance",
    "scared_time",
)
(
    LEGAL,
    EATS_FOOD,
    FOOD_DISTANCE,
    EATS_CAPSULE,
    CAPSULE_DISTANCE,
    GHOST_DANGER,
    GHOST_DISTANCE,
    SCARED_GHOST_NEAR,
    SCARED_GHOST_DISTANCE,
    SCARED_TIME_LEFT,
) = range(len(FEATURE_NAMES))
#: Features that count ghosts (0 to the number of ghosts); every other entry is in [0, 1].
COUNT_FEATURES = (GHOST_DANGER, SCARED_GHOST_NEAR)


def open_cells(layout: Layout) -> list[Cell]:
    """The open cells of ``layout``: whole cells, though the maze keys its moves by positions."""
    return cast("list[Cell]", list(maze_of(layout).pacman_moves))


def longest_distance(layout: Layout) -> int:
    """The largest maze distance between two connected open cells (at least 1).

    Exact, with a few searches in memory at a time rather than one kept from every cell: each
    connected part's diameter by Takes and Kosters' bounding (2011), below.
    """
    distances = maze_distances(layout)
    longest, seen = 1, set()
    for cell in open_cells(layout):
        if cell not in seen:
            part = [reached for reached, _ in distances.nearest_first(cell, keep=False)]
            seen.update(part)
            longest = max(longest, _diameter(distances, part))
    return longest


def _diameter(distances: MazeDistances, part: list[Cell]) -> int:
    """The diameter of one connected part: the largest eccentricity (farthest distance) of
    its cells, without a search from each.

    A search from ``v`` (eccentricity ``e``) bounds every cell ``w`` at distance ``d``:
    ``max(d, e - d) <= ecc(w) <= e + d``. Searching alternately from the cell with the
    highest upper bound and the one with the lowest lower bound, cells that cannot beat the
    best eccentricity found drop out; on mazes a few dozen searches settle it.
    """
    lower = dict.fromkeys(part, 0)
    upper = dict.fromkeys(part, len(part))
    left, found, highest = set(part), 0, True
    while left:
        bound = upper if highest else lower
        source = (max if highest else min)(left, key=lambda cell: (bound[cell], cell))
        highest = not highest
        order = distances.nearest_first(source, keep=False)
        far = order[-1][1]
        for cell, steps in order:
            lower[cell] = max(lower[cell], steps, far - steps)
            upper[cell] = min(upper[cell], far + steps)
        found = max(found, far, *(lower[cell] for cell in left))
        left = {cell for cell in left if upper[cell] > found and cell != source}
    return found


class FeatureEncoder:
    """Writes a ``(5, len(FEATURE_NAMES))`` block of features per state; flattened for the space.

    Row ``i`` describes action ``ACTION_ORDER[i]`` through the cell it leads
    to. A row of an illegal action is all zeros (its ``legal`` entry says so).
    """

    def __init__(self, layout: Layout, num_ghosts: int) -> None:
        self.layout = layout
        self.num_ghosts = num_ghosts
        self._moves = maze_of(layout).pacman_moves
        self._distances = maze_distances(layout)
        self._scale = float(longest_distance(layout))
        self.shape = (len(ACTION_ORDER) * len(FEATURE_NAMES),)
        high = np.ones((len(ACTION_ORDER), len(FEATURE_NAMES)), dtype=np.float32)
        high[:, list(COUNT_FEATURES)] = max(1, num_ghosts)
        self.high = high.reshape(-1)
        self._block = np.zeros((len(ACTION_ORDER), len(FEATURE_NAMES)), dtype=np.float32)
        self.array = self._block.reshape(-1)

    def encode(self, state: GameState) -> np.ndarray:
        """The features of ``state`` (the encoder's own array: copy it to keep it)."""
        block = self._block
        block[:] = 0.0
        if state.is_terminal():
            return self.array
        scale = self._scale
        distances = self._distances
        # Its searches are looked up by positions: a whole cell (a capsule, a ghost on one)
        # finds its distance, a scared ghost half-way between two cells none (distance() below).
        search_from = cast("Callable[[Cell], dict[Position, int]]", distances.from_cell)
        ghosts = list(zip(state.get_ghost_positions(), state.get_scared_timers(), strict=True))
        capsules = state.get_capsules()
        food_left = state.get_num_food()
        has_food = state.has_food
        for action, cell in self._moves[state.get_pacman_position()].items():
            row = block[ACTION_ORDER.index(action)]
            # One breadth-first search per cell, kept by MazeDistances; a lookup per target.
            steps_from = search_from(cell)
            row[LEGAL] = 1.0
            row[EATS_FOOD] = has_food(*cell)
            row[FOOD_DISTANCE] = self._nearest_food(cell, has_food, food_left) / scale
            row[EATS_CAPSULE] = cell in capsules
            nearest_capsule = min((steps_from.get(c, scale) for c in capsules), default=scale)
            row[CAPSULE_DISTANCE] = min(1.0, nearest_capsule / scale)
            nearest_ghost = nearest_scared = scale
            scared_time = 0
            for position, timer in ghosts:
                steps: float | None = steps_from.get(position)
                if steps is None:  # half-way between cells (scared), or walled off
                    steps = distances.distance(cell, position)
                if timer:
                    if steps <= 1:
                        row[SCARED_GHOST_NEAR] += 1.0
                    if steps < nearest_scared:
                        nearest_scared, scared_time = steps, timer
                else:
                    if steps <= 1:
                        row[GHOST_DANGER] += 1.0
                    nearest_ghost = min(nearest_ghost, steps)
            row[GHOST_DISTANCE] = min(1.0, nearest_ghost / scale)
            row[SCARED_GHOST_DISTANCE] = min(1.0, nearest_scared / scale)
            row[SCARED_TIME_LEFT] = scared_time / SCARED_TIME
        return self.array

    def _nearest_food(
        self, cell: tuple[int, int], has_food: Callable[[int, int], bool], food_left: int
    ) -> float:
        if not food_left:
            return 0.0
        for (x, y), steps in self._distances.nearest_first(cell):
            if has_food(x, y):
                return steps
        return self._scale  # the food left is walled off from here


class WindowEncoder:
    """A ``(C - 1, 2r + 1, 2r + 1)`` view of the grid channels centred on Pac-Man.

    Channels are the grid's less ``pacman`` (always the centre cell); beyond
    the maze, ``walls`` reads 1 and every other channel 0.
    """

    def __init__(self, grid_names: tuple[str, ...], shape: tuple[int, int, int], radius: int):
        _, height, width = shape
        self.radius = radius
        self.names = tuple(name for name in grid_names if name != "pacman")
        self._keep = [i for i, name in enumerate(grid_names) if name != "pacman"]
        side = 2 * radius + 1
        self.shape = (len(self.names), side, side)
        self._height = height
        self._padded = np.zeros(
            (len(self.names), height + 2 * radius, width + 2 * radius), np.float32
        )
        self._padded[self.names.index("walls")] = 1.0
        self._inside = (slice(None), slice(radius, radius + height), slice(radius, radius + width))
        self.array = np.zeros(self.shape, dtype=np.float32)

    def encode(self, grid: np.ndarray, pacman: tuple[float, float]) -> np.ndarray:
        """The window of ``grid`` around Pac-Man's cell (the encoder's own array)."""
        self._padded[self._inside] = grid[self._keep]
        x, y = int(pacman[0]), int(pacman[1])
        row = self._height - 1 - y  # the grid row of y; the window starts radius rows above
        side = 2 * self.radius + 1
        np.copyto(self.array, self._padded[:, row : row + side, x : x + side])
        return self.array
