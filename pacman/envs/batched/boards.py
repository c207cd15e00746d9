"""The tables a batch of games looks things up in: one board size, one or many boards.

Cells are numbered as the grid observation lays them out: ``row * width + column`` with row 0
the top row, so the cell of ``(x, y)`` is ``(height - 1 - y) * width + x``. Ghosts, which move
half a cell a move while scared, live on a grid of half cells twice as fine:
``q = R * 2 * width + C`` with ``R = 2 * row`` and ``C = 2 * column`` on a cell, one more
between two cells. A move of one half cell adds ``HALF_STEPS[action]``.

Everything that depends on the walls is built from the object engine's own tables
(``pacman.state.maze_of``: Pac-Man's moves and each ghost's legal actions by cell and facing),
so the two engines cannot disagree about what is legal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from pacman.directions import ACTION_ORDER, STOP
from pacman.errors import PacmanError
from pacman.state import maze_of

if TYPE_CHECKING:
    from pacman.layout import Layout

#: Action codes are indices into ``ACTION_ORDER``: West, Stop, East, North, South.
WEST, STOP_CODE, EAST, NORTH, SOUTH = range(5)
#: The ghosts' four moves in name order (East, North, South, West), as CS188 draws over them.
NAME_ORDER = np.array(
    [ACTION_ORDER.index(a) for a in sorted(a for a in ACTION_ORDER if a != STOP)], np.int8
)
#: Bit of each action code in a ghost's legal set (Stop has none).
NAME_BIT = np.zeros(len(ACTION_ORDER), np.uint8)
NAME_BIT[NAME_ORDER] = 1 << np.arange(len(NAME_ORDER), dtype=np.uint8)


class HalfGrid:
    """What depends only on the board size: numbering, rounding and coordinates of half cells."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = width * height
        self.row_stride = 2 * width  # half cells in one half-row
        self.halves = 2 * height * self.row_stride
        rows, columns = np.divmod(np.arange(self.cells), width)
        #: The half cell of each cell.
        self.q_of_cell = (2 * rows * self.row_stride + 2 * columns).astype(np.int64)
        big_r, big_c = np.divmod(np.arange(self.halves), self.row_stride)
        # int(x + 0.5) of a half x rounds up; up in y is one row less, so rows round down.
        cell = (big_r // 2) * width + np.minimum((big_c + 1) // 2, width - 1)
        #: The cell a half cell is shown on (and counted as by the features): int(x + 0.5).
        self.cell_of_q = np.minimum(cell, self.cells - 1).astype(np.int64)
        #: Where a scared ghost's timer running out puts it: (int(x + 0.5), int(y + 0.5)).
        self.snap = self.q_of_cell[self.cell_of_q]
        #: Half-cell coordinates (2x, 2y) of each half cell, y upward as the game's.
        self.x2 = big_c.astype(np.int64)
        self.y2 = (2 * (height - 1) - big_r).astype(np.int64)
        #: One half cell's move per action code.
        self.half_steps = np.array([-1, 0, 1, -self.row_stride, self.row_stride], np.int64)

    def position(self, q: np.ndarray) -> np.ndarray:
        """``(..., 2)`` game positions ``(x, y)`` of half cells (float, halves when scared)."""
        return np.stack([self.x2[q], self.y2[q]], axis=-1) / 2.0

    def cell(self, x: float, y: float) -> int:
        """The cell number of a whole-cell position."""
        return (self.height - 1 - int(y)) * self.width + int(x)

    def half(self, x: float, y: float) -> int:
        """The half-cell number of a position (whole or half)."""
        return round(2 * (self.height - 1 - y)) * self.row_stride + round(2 * x)


class BoardTables:
    """One layout's tables, on the size's :class:`HalfGrid`.

    ``pacman_to[cell * 5 + a]`` is where Pac-Man's action ``a`` leads (the cell itself for a
    wall); ``pacman_legal`` says which are legal and ``pacman_mask`` is the same per cell as
    ``int8`` rows; ``ghost_legal[q * 5 + facing]`` is a ghost's legal moves as bits in name
    order (``NAME_BIT``); a ghost between two cells may only go on.
    """

    def __init__(self, layout: Layout, grid: HalfGrid, num_ghosts: int) -> None:
        if (layout.width, layout.height) != (grid.width, grid.height):
            raise PacmanError(
                f"layout {layout.name} is {layout.width}x{layout.height}; "
                f"this batch's boards are {grid.width}x{grid.height}"
            )
        self.layout = layout
        maze = maze_of(layout)
        cells = grid.cells
        self.walls = np.ones(cells, dtype=bool)
        self.pacman_to = np.repeat(np.arange(cells, dtype=np.int64), len(ACTION_ORDER))
        self.pacman_legal = np.zeros(cells * len(ACTION_ORDER), dtype=bool)
        self.ghost_legal = np.zeros(grid.halves * len(ACTION_ORDER), dtype=np.uint8)
        for (x, y), moves in maze.pacman_moves.items():
            cell = grid.cell(x, y)
            self.walls[cell] = False
            for action, (tx, ty) in moves.items():
                key = cell * 5 + ACTION_ORDER.index(action)
                self.pacman_to[key] = grid.cell(tx, ty)
                self.pacman_legal[key] = True
            q = int(grid.q_of_cell[cell])
            for facing, name in enumerate(ACTION_ORDER):
                legal = maze.ghost_legal[((x, y), name)]
                bits = sum(int(NAME_BIT[ACTION_ORDER.index(a)]) for a in legal)
                self.ghost_legal[q * 5 + facing] = bits
                if name != STOP and name in moves:
                    # Half-way out of this cell, a scared ghost may only go on.
                    self.ghost_legal[(q + grid.half_steps[facing]) * 5 + facing] = NAME_BIT[facing]
        self.pacman_mask = self.pacman_legal.reshape(cells, 5).astype(np.int8)
        starts = layout.agent_positions[: 1 + num_ghosts]
        self.pacman_start = grid.cell(*starts[0][1])
        self.ghost_starts = np.array([grid.half(*p) for _, p in starts[1:]], dtype=np.int64)
        self.food = np.zeros(cells, dtype=bool)
        self.food[[grid.cell(*p) for p in layout.food_positions]] = True
        self.capsules = np.zeros(cells, dtype=bool)
        self.capsules[[grid.cell(*p) for p in layout.capsules]] = True


class BoardSlots:
    """The boards of a batch: one shared by every game, or one slot per game drawn per episode.

    ``draw`` (a ``seed -> Layout`` function, e.g. a ``random:`` spec's board) makes the slots
    per game; without it every game plays ``layout``. Tables of all slots are stacked, so a
    game's lookups add its slot's offset: ``slot * cells`` or ``slot * halves``.
    """

    def __init__(
        self,
        layout: Layout,
        num_games: int,
        num_ghosts: int,
        draw: Callable[[int], Layout] | None = None,
    ) -> None:
        self.grid = HalfGrid(layout.width, layout.height)
        self.num_ghosts = num_ghosts
        self.draw = draw
        first = BoardTables(layout, self.grid, num_ghosts)
        count = num_games if draw is not None else 1
        self.count = count
        self.layouts: list[Layout] = [layout] * count
        self.pacman_to = np.tile(first.pacman_to, count)
        self.pacman_legal = np.tile(first.pacman_legal, count)
        self.pacman_mask = np.tile(first.pacman_mask, (count, 1))
        self.ghost_legal = np.tile(first.ghost_legal, count)
        self.walls = np.tile(first.walls, (count, 1))
        self.food = np.tile(first.food, (count, 1))
        self.capsules = np.tile(first.capsules, (count, 1))
        self.pacman_start = np.full(count, first.pacman_start, dtype=np.int64)
        self.ghost_starts = np.tile(first.ghost_starts[:, None], (1, count))
        #: Bumped whenever a slot gets a new board (encoders rebuild what they cached of it).
        self.version = np.zeros(count, dtype=np.int64)

    def slot_of(self, games: np.ndarray) -> np.ndarray:
        """The slot each of ``games`` (indices) plays on."""
        return games if self.draw is not None else np.zeros_like(games)

    def load(self, slot: int, layout: Layout) -> None:
        """Put ``layout`` in ``slot`` (it must have the batch's size and enough ghosts)."""
        tables = BoardTables(layout, self.grid, self.num_ghosts)
        if len(tables.ghost_starts) != self.num_ghosts:
            raise PacmanError(
                f"layout {layout.name} has {len(tables.ghost_starts)} ghosts; "
                f"this batch plays {self.num_ghosts}"
            )
        cells, halves = self.grid.cells, self.grid.halves
        self.layouts[slot] = layout
        self.pacman_to[slot * cells * 5 : (slot + 1) * cells * 5] = tables.pacman_to
        self.pacman_legal[slot * cells * 5 : (slot + 1) * cells * 5] = tables.pacman_legal
        self.pacman_mask[slot * cells : (slot + 1) * cells] = tables.pacman_mask
        self.ghost_legal[slot * halves * 5 : (slot + 1) * halves * 5] = tables.ghost_legal
        self.walls[slot] = tables.walls
        self.food[slot] = tables.food
        self.capsules[slot] = tables.capsules
        self.pacman_start[slot] = tables.pacman_start
        self.ghost_starts[:, slot] = tables.ghost_starts
        self.version[slot] += 1
