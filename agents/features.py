"""Features for evaluation functions, with maze distances computed once per layout.

Every helper takes a state (any object with the public ``GameState`` API) and
answers one question. Distances are true maze distances (moves along open
cells), not Manhattan distances: the walls of the CS188 layouts make the two
differ a lot. Each layout gets one :class:`MazeDistances`, kept as long as the
layout lives; a breadth-first search from a cell runs the first time a
distance from that cell is asked for, and its answer is kept.

A scared ghost between two cells (x.5) is half a move from each; its distance
is the nearer cell's plus 0.5. A cell walled off from the other is
``math.inf`` away.

>>> from pacman.layout import load_layout
>>> from pacman.state import GameState
>>> state = GameState.initial(load_layout("smallClassic"), 1)
>>> nearest_food_distance(state), ghost_distances(state), capsules_left(state)
(1, [11], 2)
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from typing import Any

from pacman.errors import AgentError
from pacman.state import maze_of

__all__ = [
    "MazeDistances",
    "capsules_left",
    "food_left",
    "food_positions",
    "ghost_distances",
    "maze_distance",
    "maze_distances",
    "nearest_capsule_distance",
    "nearest_distance",
    "nearest_food_distance",
    "scared_times",
]

Position = tuple[float, float]
Cell = tuple[int, int]


class MazeDistances:
    """Shortest-path lengths between the open cells of one layout, computed on demand."""

    def __init__(self, layout: Any) -> None:
        moves = maze_of(layout).pacman_moves
        # Neighbours without the Stop move, which leads nowhere.
        self._neighbours: dict[Cell, tuple[Cell, ...]] = {
            cell: tuple(target for target in targets.values() if target != cell)
            for cell, targets in moves.items()
        }
        self._from: dict[Cell, dict[Cell, int]] = {}
        self._order: dict[Cell, list[tuple[Cell, int]]] = {}

    def from_cell(self, cell: Cell) -> dict[Cell, int]:
        """Distance from ``cell`` (an open grid cell) to every cell reachable from it."""
        found = self._from.get(cell)
        if found is None:
            found = self._search(cell)
        return found

    def nearest_first(self, cell: Cell) -> list[tuple[Cell, int]]:
        """Every cell reachable from ``cell`` with its distance, nearest first."""
        found = self._order.get(cell)
        if found is None:
            self._search(cell)
            found = self._order[cell]
        return found

    def _search(self, cell: Cell) -> dict[Cell, int]:
        if cell not in self._neighbours:
            raise AgentError(f"maze distance: {cell} is not an open cell of the layout")
        found = {cell: 0}
        order = [(cell, 0)]
        neighbours = self._neighbours
        index = 0
        while index < len(order):
            here, steps = order[index]
            index += 1
            for there in neighbours[here]:
                if there not in found:
                    found[there] = steps + 1
                    order.append((there, steps + 1))
        self._from[cell] = found
        self._order[cell] = order
        return found

    def distance(self, a: Position, b: Position) -> float:
        """Moves from ``a`` to ``b``; either may be half a cell off the grid (a scared ghost)."""
        best = math.inf
        for cell_a, extra_a in _grid_points(a):
            row = self.from_cell(cell_a)
            for cell_b, extra_b in _grid_points(b):
                steps = row.get(cell_b)
                if steps is not None and steps + extra_a + extra_b < best:
                    best = steps + extra_a + extra_b
        return best


def _grid_points(position: Position) -> list[tuple[Cell, float]]:
    """The grid cells nearest to ``position``, each with how far it is from it."""
    x, y = position
    ix, iy = int(x), int(y)
    if x == ix and y == iy:
        return [((ix, iy), 0)]
    # Half-way between two cells (agents move along one axis at a time).
    cells = {(math.floor(x), math.floor(y)), (math.ceil(x), math.ceil(y))}
    return [(cell, abs(cell[0] - x) + abs(cell[1] - y)) for cell in cells]


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

#: Below this many dots, listing them beats walking outward from Pac-Man (measured).
_FEW_FOOD = 6


def maze_distances(state_or_layout: Any) -> MazeDistances:
    """The shared :class:`MazeDistances` of a state's layout (or of a layout)."""
    layout = getattr(state_or_layout, "layout", state_or_layout)
    found = _CACHE.get(layout)
    if found is None:
        found = _CACHE[layout] = MazeDistances(layout)
    return found


def maze_distance(state: Any, a: Position, b: Position) -> float:
    """Moves from ``a`` to ``b`` in the state's maze."""
    return maze_distances(state).distance(a, b)


def nearest_distance(state: Any, targets: Sequence[Cell], start: Position | None = None) -> float:
    """Maze distance from ``start`` (default: Pac-Man) to the nearest of ``targets``; 0 if none."""
    if not targets:
        return 0
    if start is None:
        start = state.get_pacman_position()
    distances = maze_distances(state)
    best = math.inf
    for cell, extra in _grid_points(start):
        row = distances.from_cell(cell)
        for target in targets:
            steps = row.get(target)
            if steps is not None and steps + extra < best:
                best = steps + extra
    return best


def food_positions(state: Any) -> list[Cell]:
    """The cells holding food (the engine's fast list when the state has one)."""
    fast = getattr(state, "get_food_positions", None)
    return fast() if fast is not None else state.get_food().as_list()


def nearest_food_distance(state: Any) -> float:
    """Moves from Pac-Man to the nearest food; 0 when no food is left."""
    pacman = state.get_pacman_position()
    if state.get_num_food() <= _FEW_FOOD or pacman != (int(pacman[0]), int(pacman[1])):
        return nearest_distance(state, food_positions(state), pacman)
    # Plenty of food: walk outward from Pac-Man; the first cell with food is the nearest.
    has_food = state.has_food
    for (x, y), steps in maze_distances(state).nearest_first(pacman):
        if has_food(x, y):
            return steps
    return math.inf


def nearest_capsule_distance(state: Any) -> float:
    """Moves from Pac-Man to the nearest capsule; 0 when none is left."""
    return nearest_distance(state, state.get_capsules())


def ghost_distances(state: Any) -> list[float]:
    """Maze distance from Pac-Man to each ghost, in agent order."""
    distances = maze_distances(state)
    pacman = state.get_pacman_position()
    return [distances.distance(pacman, ghost) for ghost in state.get_ghost_positions()]


def scared_times(state: Any) -> list[int]:
    """Each ghost's scared timer (moves of its own left), in agent order."""
    return [ghost.scared_timer for ghost in state.get_ghost_states()]


def capsules_left(state: Any) -> int:
    """How many capsules are still on the board."""
    return len(state.get_capsules())


def food_left(state: Any) -> int:
    """How many food dots are still on the board."""
    return state.get_num_food()
