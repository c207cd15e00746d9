"""Maze distances between the open cells of a layout, computed once per layout.

Shared by the evaluation features of the agents and by the learning environments'
feature observation. A scared ghost between two cells (x.5) is half a move from each.
"""

from __future__ import annotations

import math
import weakref
from collections import OrderedDict
from typing import Any

from pacman.errors import AgentError
from pacman.state import maze_of

Position = tuple[float, float]
Cell = tuple[int, int]


#: How many (cell, distance) entries all kept searches of one layout may hold together:
#: every search on the classic boards, the last few dozen on a 100x100 one.
KEPT_ENTRIES = 200_000


class MazeDistances:
    """Shortest-path lengths between the open cells of one layout, computed on demand.

    The searches are kept, the least recently used dropped past :data:`KEPT_ENTRIES`, so
    memory stays bounded on any board (keeping all of a 100x100 board's took gigabytes).
    """

    def __init__(self, layout: Any) -> None:
        moves = maze_of(layout).pacman_moves
        # Neighbours without the Stop move, which leads nowhere.
        self._neighbours: dict[Position, tuple[Cell, ...]] = {
            cell: tuple(target for target in targets.values() if target != cell)
            for cell, targets in moves.items()
        }
        #: cell -> (distance by cell, cells nearest first), most recently used last.
        self._kept: OrderedDict[Cell, tuple[dict[Cell, int], list[tuple[Cell, int]]]]
        self._kept = OrderedDict()
        self._entries = 0

    def from_cell(self, cell: Cell) -> dict[Cell, int]:
        """Distance from ``cell`` (an open grid cell) to every cell reachable from it."""
        return self._search(cell)[0]

    def nearest_first(self, cell: Cell, keep: bool = True) -> list[tuple[Cell, int]]:
        """Every cell reachable from ``cell`` with its distance, nearest first (``keep``
        False: not kept, for a search that is needed once)."""
        if not keep and cell not in self._kept:
            return self._breadth_first(cell)[1]
        return self._search(cell)[1]

    def _search(self, cell: Cell) -> tuple[dict[Cell, int], list[tuple[Cell, int]]]:
        found = self._kept.get(cell)
        if found is not None:
            self._kept.move_to_end(cell)
            return found
        found = self._breadth_first(cell)
        self._kept[cell] = found
        self._entries += len(found[1])
        while self._entries > KEPT_ENTRIES and len(self._kept) > 1:
            _, dropped = self._kept.popitem(last=False)
            self._entries -= len(dropped[1])
        return found

    def _breadth_first(self, cell: Cell) -> tuple[dict[Cell, int], list[tuple[Cell, int]]]:
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
        return found, order

    def distance(self, a: Position, b: Position) -> float:
        """Moves from ``a`` to ``b``; either may be half a cell off the grid (a scared ghost)."""
        best = math.inf
        for cell_a, extra_a in grid_points(a):
            row = self.from_cell(cell_a)
            for cell_b, extra_b in grid_points(b):
                steps = row.get(cell_b)
                if steps is not None and steps + extra_a + extra_b < best:
                    best = steps + extra_a + extra_b
        return best


def grid_points(position: Position) -> list[tuple[Cell, float]]:
    """The grid cells nearest to ``position``, each with how far it is from it."""
    x, y = position
    ix, iy = int(x), int(y)
    if x == ix and y == iy:
        return [((ix, iy), 0)]
    # Half-way between two cells (agents move along one axis at a time).
    cells = {(math.floor(x), math.floor(y)), (math.ceil(x), math.ceil(y))}
    return [(cell, abs(cell[0] - x) + abs(cell[1] - y)) for cell in cells]


_CACHE: weakref.WeakKeyDictionary[Any, MazeDistances] = weakref.WeakKeyDictionary()


def maze_distances(state_or_layout: Any) -> MazeDistances:
    """The shared :class:`MazeDistances` of a state's layout (or of a layout)."""
    layout = getattr(state_or_layout, "layout", state_or_layout)
    found = _CACHE.get(layout)
    if found is None:
        found = _CACHE[layout] = MazeDistances(layout)
    return found
