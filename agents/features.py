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
from collections.abc import Sequence
from typing import Any

from pacman.distances import Cell, MazeDistances, Position, grid_points, maze_distances

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

#: Below this many dots, listing them beats walking outward from Pac-Man (measured).
_FEW_FOOD = 6


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
    for cell, extra in grid_points(start):
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
