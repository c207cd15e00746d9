"""What agents draw on the board, and what a search agent's last search found.

Any agent may mark cells with colours (``Agent.draw_cells``/``drawCells``, CS188
contest's ``debugDraw``) and clear them (``clear_drawing``/``clearDrawing``).
The marks are kept on the agent (:func:`drawing_of`); the game passes every
agent's marks, and Pac-Man's last :class:`~agents.search.SearchResult`
(``last_result``), to observers that have an ``annotate(notes)`` method: the
window, frame and GIF recording, HTML replays. Nothing is kept or sent while
nothing is drawn and no observer asks.

Drawing never raises into the game: a cell or colour that cannot be read is
skipped (a colour falls back to red), and any other failure is ignored.
Colours are ``(r, g, b)``: 0-255, or fractions 0-1 as CS188's contest code
passes them (a colour whose parts are all 1 or less is read as fractions), or
``#rrggbb``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MAX_CELLS",
    "BoardNotes",
    "Drawing",
    "clear_drawing",
    "collect",
    "draw_cells",
    "drawing_of",
    "pv_paths",
    "read_color",
    "search_json",
]

Cell = tuple[int, int]
Color = tuple[int, int, int]

#: At most this many cells are kept per agent (the newest win): drawing cannot eat memory.
MAX_CELLS = 10_000
_RED: Color = (255, 0, 0)
_ATTRIBUTE = "_pacman_drawing"


class Drawing:
    """One agent's marks: cell -> colour, in the order drawn; ``version`` counts changes."""

    __slots__ = ("cells", "version")

    def __init__(self) -> None:
        self.cells: dict[Cell, Color] = {}
        self.version = 0

    def items(self) -> list[tuple[Cell, Color]]:
        return list(self.cells.items())


def read_color(color: Any) -> Color:
    """``color`` as 0-255 ints; anything unreadable is red."""
    try:
        if isinstance(color, str):
            text = color.strip().lstrip("#")
            if len(text) == 6:
                return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))
            return _RED
        parts = [float(part) for part in color]
        if len(parts) < 3:
            return _RED
        parts = parts[:3]
        if max(parts) <= 1.0:
            # CS188's contest passes [1, 0, 0]: parts of 1 at most are fractions of 255.
            parts = [part * 255 for part in parts]
        return tuple(max(0, min(255, round(part))) for part in parts)  # type: ignore[return-value]
    except Exception:
        return _RED


def _cells(cells: Any) -> list[Cell]:
    if isinstance(cells, tuple) and len(cells) == 2 and not isinstance(cells[0], (tuple, list)):
        cells = [cells]  # one cell given alone
    found = []
    for cell in cells:
        try:
            x, y = cell
            found.append((round(float(x)), round(float(y))))
        except Exception:
            continue
        if len(found) >= MAX_CELLS:
            break
    return found


def drawing_of(agent: object) -> Drawing | None:
    """The marks ``agent`` has drawn, or ``None`` if it never drew."""
    try:
        found = getattr(agent, _ATTRIBUTE, None)
    except Exception:
        return None
    return found if isinstance(found, Drawing) else None


def draw_cells(agent: object, cells: Iterable[Any], color: Any = _RED, clear: bool = False) -> None:
    """Mark ``cells`` in ``color`` for ``agent`` (after clearing its marks, with ``clear``)."""
    try:
        drawing = drawing_of(agent)
        if drawing is None:
            drawing = Drawing()
            object.__setattr__(agent, _ATTRIBUTE, drawing)
        if clear:
            drawing.cells.clear()
        rgb = read_color(color)
        for cell in _cells(cells):
            drawing.cells.pop(cell, None)  # drawn again: now the newest
            drawing.cells[cell] = rgb
        while len(drawing.cells) > MAX_CELLS:
            drawing.cells.pop(next(iter(drawing.cells)))
        drawing.version += 1
    except Exception:
        return  # an agent's drawing must never end its game


def clear_drawing(agent: object) -> None:
    """Remove every mark ``agent`` drew."""
    try:
        drawing = drawing_of(agent)
        if drawing is not None and drawing.cells:
            drawing.cells.clear()
            drawing.version += 1
    except Exception:
        return


@dataclass
class BoardNotes:
    """What observers are told besides the moves: marks, and Pac-Man's last search.

    ``marks`` is every agent's marks, agent order then drawing order (a later agent's
    colour wins a cell); ``search`` is Pac-Man's ``last_result`` and ``searched`` the
    state it searched from (the overlay is drawn around Pac-Man's cell in it).
    """

    marks: list[tuple[Cell, Color]] = field(default_factory=list)
    search: Any = None
    searched: Any = None

    def to_json(self) -> dict[str, Any]:
        """The notes as JSON-ready data (HTML replays)."""
        data: dict[str, Any] = {}
        if self.marks:
            data["marks"] = [
                [x, y, "#{:02x}{:02x}{:02x}".format(*color)] for (x, y), color in self.marks
            ]
        if self.search is not None:
            found = search_json(self.search, self.searched)
            if found is not None:
                data["search"] = found
        return data


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def search_json(search: Any, searched: Any) -> dict[str, Any] | None:
    """A search result as JSON-ready data, or ``None`` if it cannot be read.

    Any agent may publish a ``last_result``: only what has the expected shape is kept
    (strings, whole numbers; an infinite or unreadable value becomes ``None``).
    """
    try:
        action = search.action
        values = dict(getattr(search, "values", None) or {})
        raw = getattr(search, "pv", None)
        pv = [a for a in raw if isinstance(a, str)] if isinstance(raw, (list, tuple)) else []
        depth, nodes = getattr(search, "depth", None), getattr(search, "nodes", None)
        return {
            "action": action if isinstance(action, str) else None,
            "pv": pv,
            "values": {str(a): _finite(v) for a, v in values.items()},
            "depth": depth if isinstance(depth, int) else None,
            "nodes": nodes if isinstance(nodes, int) else None,
            "paths": pv_paths(searched, tuple(pv)),
        }
    except Exception:
        return None


def collect(agents: Sequence[object], last: BoardNotes | None, searched: Any) -> BoardNotes | None:
    """The notes after a move, or ``None`` when nothing has changed since ``last``."""
    marks: list[tuple[Cell, Color]] = []
    for agent in agents:
        drawing = drawing_of(agent)
        if drawing is not None:
            marks.extend(drawing.items())
    search = None
    try:
        search = getattr(agents[0], "last_result", None)
    except Exception:
        search = None
    if last is not None and marks == last.marks and search is last.search:
        return None
    if last is None and not marks and search is None:
        return None
    return BoardNotes(
        marks, search, searched if last is None or search is not last.search else last.searched
    )


def pv_paths(state: Any, pv: Sequence[str]) -> list[list[list[float]]]:
    """Each agent's cells along the principal variation ``pv`` from ``state`` (agent order).

    Played on the real game, so positions are exact; a move that cannot be played ends
    the paths there.
    """
    if state is None or not pv:
        return []
    try:
        count = state.get_num_agents()
        paths: list[list[list[float]]] = [[list(state.get_pacman_position())]]
        paths.extend([list(state.get_ghost_position(i))] for i in range(1, count))
    except Exception:
        return []
    current = state
    for step, action in enumerate(pv):
        agent = step % count
        try:
            if current.is_win() or current.is_lose():
                break
            current = current.generate_successor(agent, action)
            where = (
                current.get_pacman_position() if agent == 0 else current.get_ghost_position(agent)
            )
        except Exception:
            break
        paths[agent].append(list(where))
    return paths
