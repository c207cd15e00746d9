"""Maze files: CS188's text format, parsed strictly.

Rows are given top row first; y grows upward, so the bottom row is y = 0.
``%`` wall, ``.`` food, ``o`` capsule, ``P`` Pac-Man, ``G`` or ``1``-``4`` a
ghost, space empty. Every problem raises ``LayoutError`` naming the file,
line and column. The first row sets the width, as in CS188: a longer row is
cut to it (CS188 never reads past it; its own capsuleClassic.lay has such a
row) and the layout keeps a warning saying so; a shorter row is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from pacman.errors import LayoutError
from pacman.grid import Grid

Position = tuple[int, int]

_GHOST_KEYS = {"G": 1, "1": 1, "2": 2, "3": 3, "4": 4}
_KNOWN = set("%.oP ") | set(_GHOST_KEYS)


@dataclass(frozen=True, eq=False)
class Layout:
    """A parsed maze: walls, food, capsules and the agents' starting cells."""

    name: str
    rows: tuple[str, ...] = field(repr=False)
    width: int
    height: int
    walls: Grid = field(repr=False)
    food_positions: tuple[Position, ...] = field(repr=False)
    capsules: tuple[Position, ...] = field(repr=False)
    #: Pac-Man first, then ghosts by (key, x, y), as ``(is_pacman, (x, y))``.
    agent_positions: tuple[tuple[bool, Position], ...] = field(repr=False)
    #: What was read leniently, as CS188 reads it (a row longer than the first), one line each.
    warnings: tuple[str, ...] = field(default=(), repr=False)

    @property
    def num_ghosts(self) -> int:
        return len(self.agent_positions) - 1

    @cached_property
    def food(self) -> Grid:
        """The starting food as a read-only grid."""
        columns = [[False] * self.height for _ in range(self.width)]
        for x, y in self.food_positions:
            columns[x][y] = True
        return Grid.frozen(columns)

    def is_wall(self, x: int, y: int) -> bool:
        return self.walls.data[x][y]

    def __str__(self) -> str:
        return "\n".join(self.rows)

    # CS188 spellings.
    def getNumGhosts(self) -> int:
        return self.num_ghosts

    @property
    def agentPositions(self) -> list[tuple[bool, Position]]:
        return list(self.agent_positions)

    @property
    def numGhosts(self) -> int:
        return self.num_ghosts

    @property
    def layoutText(self) -> list[str]:
        return list(self.rows)


def parse_layout(text: str, name: str = "<layout>", *, source: str | None = None) -> Layout:
    """Parse layout text into a layout called ``name``; messages name ``source`` (default ``name``)."""
    where = source or name
    lines = [line.strip() for line in text.splitlines()]
    first = 0
    while first < len(lines) and not lines[first]:
        first += 1
    while lines and not lines[-1]:
        lines.pop()
    rows = lines[first:]
    if not rows:
        raise LayoutError(f"{where}: the layout is empty")
    width = len(rows[0])
    height = len(rows)
    warnings = []
    for index, row in enumerate(rows):
        line = first + index + 1
        if len(row) < width:
            raise LayoutError(
                f"{where} line {line} column {len(row) + 1}: row is {len(row)} wide, "
                f"shorter than the first row ({width})"
            )
        if len(row) > width:
            warnings.append(
                f"{where} line {line}: row is {len(row)} wide, longer than the first row "
                f"({width}); its extra {row[width:]!r} is ignored, as CS188 ignores it"
            )
            row = rows[index] = row[:width]
        for column, char in enumerate(row, start=1):
            if char not in _KNOWN:
                raise LayoutError(
                    f"{where} line {line} column {column}: unknown character {char!r} "
                    "(expected one of % . o P G 1 2 3 4 or space)"
                )
            on_border = index in (0, height - 1) or column in (1, width)
            if on_border and char != "%":
                raise LayoutError(
                    f"{where} line {line} column {column}: border cell is {char!r}, must be a wall '%'"
                )

    walls = [[False] * height for _ in range(width)]
    food: list[Position] = []
    capsules: list[Position] = []
    pacmen: list[Position] = []
    ghosts: list[tuple[int, Position]] = []
    # Scan bottom row first so capsules come out in CS188's (y, x) order.
    for y in range(height):
        row = rows[height - 1 - y]
        for x, char in enumerate(row):
            if char == "%":
                walls[x][y] = True
            elif char == ".":
                food.append((x, y))
            elif char == "o":
                capsules.append((x, y))
            elif char == "P":
                pacmen.append((x, y))
            elif char in _GHOST_KEYS:
                ghosts.append((_GHOST_KEYS[char], (x, y)))
    if not pacmen:
        raise LayoutError(f"{where}: no Pac-Man 'P' in the layout")
    if len(pacmen) > 1:
        x, y = sorted(pacmen, key=lambda p: (-p[1], p[0]))[1]
        raise LayoutError(
            f"{where} line {first + height - y} column {x + 1}: a second Pac-Man 'P' (only one is allowed)"
        )
    ghosts.sort()
    agents = ((True, pacmen[0]), *((False, position) for _, position in ghosts))
    return Layout(
        name=name,
        rows=tuple(rows),
        width=width,
        height=height,
        walls=Grid.frozen(walls),
        food_positions=tuple(sorted(food)),
        capsules=tuple(capsules),
        agent_positions=agents,
        warnings=tuple(warnings),
    )


def playable(layout: Layout) -> Layout:
    """``layout`` if a game can be played on it; a LayoutError if it has no food.

    A game is won by eating the last food (CS188's rule too): with none, a game without
    ghosts would never end. Search and tests may still use such layouts for states.
    """
    if not layout.food_positions:
        raise LayoutError(f"layout {layout.name}: no food '.', so no game on it can be won")
    return layout
