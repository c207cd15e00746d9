"""CS188's boolean grid: ``grid[x][y]`` with x to the right and y upward."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pacman.compat import Twinned


class Grid(Twinned):
    """A width x height grid of values indexed ``grid[x][y]``.

    A grid handed out by a game state is frozen (its columns are tuples), so an
    agent cannot change the game through it; ``copy()`` gives a mutable one.
    """

    __slots__ = ("data", "height", "width")

    def __init__(self, width: int, height: int, initial_value: object = False) -> None:
        self.width = width
        self.height = height
        #: The columns: lists, or tuples in a frozen grid.
        self.data: list[list[Any]] | tuple[tuple[Any, ...], ...] = [
            [initial_value] * height for _ in range(width)
        ]

    @classmethod
    def frozen(cls, columns: Iterable[Sequence[object]]) -> Grid:
        """A read-only grid made of the given columns (x-major)."""
        grid = cls.__new__(cls)
        grid.data = tuple(tuple(column) for column in columns)
        grid.width = len(grid.data)
        grid.height = len(grid.data[0]) if grid.data else 0
        return grid

    def __getitem__(self, x: int) -> Any:  # a column: a list, or a tuple when frozen
        return self.data[x]

    def __setitem__(self, x: int, column: list[Any]) -> None:
        if isinstance(self.data, tuple):
            raise TypeError("this grid belongs to a game state and is read-only; use .copy()")
        self.data[x] = column

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Grid):
            return NotImplemented
        return self.width == other.width and [list(c) for c in self.data] == [
            list(c) for c in other.data
        ]

    def __hash__(self) -> int:
        return hash(tuple(tuple(column) for column in self.data))

    def __str__(self) -> str:
        rows = (
            "".join(str(self.data[x][y])[0] for x in range(self.width))
            for y in range(self.height - 1, -1, -1)
        )
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Grid({self.width}x{self.height})"

    def copy(self) -> Grid:
        """A mutable copy."""
        grid = Grid(self.width, self.height)
        grid.data = [list(column) for column in self.data]
        return grid

    def as_list(self, key: object = True) -> list[tuple[int, int]]:
        """The cells equal to ``key``, x-major (CS188's order)."""
        return [
            (x, y)
            for x, column in enumerate(self.data)
            for y, value in enumerate(column)
            if value == key
        ]

    def count(self, item: object = True) -> int:
        return sum(column.count(item) for column in self.data)

    # CS188 spellings.
    deepCopy = copy
    shallowCopy = copy
    asList = as_list
