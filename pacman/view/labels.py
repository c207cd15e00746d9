"""Values as short text, and where the search overlay's value labels go so that they can be read.

The rules, the same in the window, frames and GIFs (:mod:`pacman.view.notes` measures with
pygame's fonts) and in the HTML pages (whose scripts follow them with the browser's fonts):

- a label belongs to the cell its action leads to (Stop's to Pac-Man's own cell);
- it never leaves the maze, never touches another label (a gap of :func:`label_gap` pixels
  between them) and never covers an agent (its body where it is drawn, and where it came from
  this move, as the window animates it from there);
- its letters are never smaller than :data:`SMALLEST_LABEL`;
- it keeps clear of walls and of the agents' marks where it can: the largest letters first,
  then shorter text (``E -5514``, then ``-5514``, then ``-5.5k``), then smaller letters, each
  tried on the cell, on its far side, beside it, at its corners and further out;
- where nothing is clear, marks and then walls give way; a label with no room left is left out.

No pygame here: rectangles are ``(x, y, width, height)`` tuples.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "SMALLEST_LABEL",
    "Label",
    "agent_box",
    "label_gap",
    "label_sizes",
    "label_texts",
    "place_labels",
    "short_value",
    "value_text",
]

Box = tuple[int, int, int, int]

#: The smallest letters a value label (and the score bar's caption) is drawn with: a font size
#: of pygame's default font, whose capitals are half as tall (10 pixels here).
SMALLEST_LABEL = 21
#: How far an agent's body reaches from its cell's centre, in cells (Pac-Man's radius is 0.45).
AGENT_REACH = 0.46

#: Screen direction (x right, y down) of each move.
_SCREEN = {"North": (0, -1), "South": (0, 1), "East": (1, 0), "West": (-1, 0), "Stop": (0, 0)}


def value_text(value: Any) -> str:
    """A value as the overlay writes it: whole above 10, one decimal below; ``?`` if unknown."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
        return "?"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:.0f}" if abs(value) >= 10 or float(value).is_integer() else f"{value:.1f}"


def short_value(value: Any) -> str:
    """At most four or five characters: ``1234.56`` is ``1.2k``, ``-5514`` is ``-5.5k``."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return value_text(value)
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale * 0.9995:
            scaled = value / scale
            text = f"{scaled:.1f}" if abs(scaled) < 9.95 else f"{scaled:.0f}"
            return text.removesuffix(".0") + unit
    return value_text(value)


def label_texts(action: str, value: Any) -> list[str]:
    """A label's texts, longest first: with the action's initial, the value, the value shortened."""
    full = value_text(value)
    initial = "Stop" if action == "Stop" else action[:1]
    texts = [f"{initial} {full}", full, short_value(value)]
    return [text for index, text in enumerate(texts) if text not in texts[:index]]


def label_sizes(cell: int) -> list[int]:
    """The letter sizes tried, largest first: about half a cell, down to :data:`SMALLEST_LABEL`."""
    size = max(SMALLEST_LABEL, round(cell * 0.45))
    sizes = [size]
    while sizes[-1] > SMALLEST_LABEL:
        sizes.append(max(SMALLEST_LABEL, round(sizes[-1] * 0.8)))
    return sizes


@dataclass(frozen=True)
class Label:
    """One value label as placed: its action, text, letter size and box (background included)."""

    action: str
    text: str
    size: int
    box: Box


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _inside(inner: Box, outer: Box) -> bool:
    return (
        inner[0] >= outer[0]
        and inner[1] >= outer[1]
        and inner[0] + inner[2] <= outer[0] + outer[2]
        and inner[1] + inner[3] <= outer[1] + outer[3]
    )


def label_gap(cell: int) -> int:
    """The pixels kept free between two labels, so that no two texts read as one."""
    return max(3, cell // 8)


def agent_box(centre: tuple[int, int], cell: int) -> Box:
    """The box an agent's body fills, drawn at ``centre``."""
    return _around(centre, math.ceil(cell * AGENT_REACH))


def _spots(action: str, cell: int) -> list[tuple[int, int]]:
    """Where a label's centre may go, from its cell's centre: on it, its far side, beside it,
    at its far corners, in the cells beside it, one cell further and beside that (Stop: under
    and over Pac-Man's cell, on it, then further out)."""
    sx, sy = _SCREEN.get(action, (0, 0))
    half = cell // 2
    if (sx, sy) == (0, 0):
        return [(0, half), (0, -half), (0, 0), (0, cell), (0, -cell), (-cell, half), (cell, half)]
    across = [(-sy, sx), (sy, -sx)]  # at right angles to the move, both ways
    beside = [(ax * half, ay * half) for ax, ay in across]
    corners = [(sx * half + ox, sy * half + oy) for ox, oy in beside]
    next_cells = [(ax * cell, ay * cell) for ax, ay in across]
    further = [(sx * cell, sy * cell), *((sx * cell + ox, sy * cell + oy) for ox, oy in beside)]
    return [(0, 0), (sx * half, sy * half), *beside, *corners, *next_cells, *further]


def place_labels(
    values: dict[str, Any],
    origin: tuple[int, int],
    geometry: Any,
    is_wall: Callable[[int, int], bool],
    agents: Sequence[tuple[float, float]],
    measure: Callable[[str, int], tuple[int, int]],
    marks: Sequence[tuple[int, int]] = (),
) -> list[Label]:
    """Each root action's label, placed by the module's rules (labels left out have no room).

    ``origin`` is the cell searched from; ``geometry`` a :class:`~pacman.view.canvas.Geometry`;
    ``agents`` where the agents' bodies are (a cell, or a position between two as drawn);
    ``measure(text, size)`` the text's pixels; ``marks`` the cells the agents marked.
    """
    cell = geometry.cell
    maze: Box = (geometry.left, geometry.top, *geometry.maze_size)
    zone = max(1, round(cell * 0.3))  # a wall's tube, around its cell's centre
    bodies = [agent_box(geometry.center(x, y), cell) for x, y in agents]
    marked = [_around(geometry.center(x, y), cell // 2) for x, y in marks]
    gap = label_gap(cell)

    def on_walls(box: Box) -> bool:
        left, top = geometry.center(0, geometry.rows - 1)
        first_x, last_x = _cells_across(box[0], box[2], left, cell)
        first_row, last_row = _cells_across(box[1], box[3], top, cell)
        for x in range(max(0, first_x), min(geometry.columns, last_x + 1)):
            for row in range(max(0, first_row), min(geometry.rows, last_row + 1)):
                y = geometry.rows - 1 - row
                if is_wall(x, y) and _overlaps(box, _around(geometry.center(x, y), zone)):
                    return True
        return False

    def free(box: Box) -> bool:  # what no label ever does: leave the maze, touch one, cover one
        spaced = (box[0] - gap, box[1] - gap, box[2] + 2 * gap, box[3] + 2 * gap)
        return (
            _inside(box, maze)
            and not any(_overlaps(spaced, other.box) for other in placed)
            and not any(_overlaps(box, b) for b in bodies)
        )

    checks: list[Callable[[Box], bool]] = [
        lambda box: not on_walls(box) and not any(_overlaps(box, m) for m in marked),
        lambda box: not on_walls(box),
        lambda box: True,
    ]
    placed: list[Label] = []
    for action, value in values.items():
        dx, dy = _SCREEN.get(action, (0, 0))
        centre = geometry.center(origin[0] + dx, origin[1] - dy)
        options = [
            (text, size) for size in label_sizes(cell) for text in label_texts(action, value)
        ]
        label = None
        for clear in checks:
            label = next(
                (
                    Label(action, text, size, box)
                    for text, size in options
                    for ox, oy in _spots(action, cell)
                    if free(box := _box(centre, ox, oy, measure(text, size))) and clear(box)
                ),
                None,
            )
            if label is not None:
                break
        if label is not None:
            placed.append(label)
    return placed


def _box(centre: tuple[int, int], ox: int, oy: int, size: tuple[int, int]) -> Box:
    width, height = size[0] + 4, size[1] + 2  # the text and its dark background's margin
    return (centre[0] + ox - width // 2, centre[1] + oy - height // 2, width, height)


def _around(centre: tuple[int, int], half: int) -> Box:
    return (centre[0] - half, centre[1] - half, 2 * half, 2 * half)


def _cells_across(start: int, length: int, first_centre: int, cell: int) -> tuple[int, int]:
    """The first and last cell (counted from the maze's first column or top row) a span meets."""
    edge = first_centre - cell // 2
    return (start - edge) // cell, (start + length - 1 - edge) // cell
