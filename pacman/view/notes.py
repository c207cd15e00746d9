"""The agents' notes on the board: their marks, and Pac-Man's last search as an overlay.

:func:`pacman.view.draw.draw` calls these between the parts of a frame; they paint onto a
surface already fitted (:class:`~pacman.view.canvas.Geometry`) and open no display.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pacman.view.canvas import Geometry, get_font, pygame
from pacman.view.labels import Label, place_labels
from pacman.view.themes import Color, Theme

__all__ = ["PV_COLOR", "draw_marks", "draw_overlay", "label_boxes"]

#: The principal variation's colour for Pac-Man's moves, and the overlay's label colours.
PV_COLOR = (255, 140, 0)
_LABEL_BACK = (0, 0, 0)  # opaque: no pellet, path or mark shows through a value


def draw_marks(
    surface: pygame.Surface, geometry: Geometry, marks: Sequence[tuple[tuple[int, int], Color]]
) -> list[tuple[int, int]]:
    """Each agent's mark as a translucent square with a solid border; returns the cells drawn.

    Cells outside the maze are left out (an agent may draw anything).
    """
    cell = geometry.cell
    border = max(1, cell // 12)
    square = pygame.Surface((cell, cell), pygame.SRCALPHA)
    drawn = []
    for (x, y), color in marks:
        if not (0 <= x < geometry.columns and 0 <= y < geometry.rows):
            continue
        cx, cy = geometry.center(x, y)
        rect = pygame.Rect(cx - cell // 2, cy - cell // 2, cell, cell)
        square.fill((*color, 110))
        surface.blit(square, rect)
        pygame.draw.rect(surface, color, rect, border)
        drawn.append((x, y))
    return drawn


def draw_overlay(
    surface: pygame.Surface,
    geometry: Geometry,
    notes: Any,
    theme: Theme,
    paths: bool = True,
    labels: bool = True,
    *,
    agents: Sequence[tuple[float, float]] = (),
    boxes: list[tuple[str, pygame.Rect]] | None = None,
    under: pygame.Rect | None = None,
) -> dict[str, tuple[int, int]]:
    """Pac-Man's last search around the cell it searched from: each root action's value by
    the cell that action leads to (Stop's by Pac-Man's own cell), placed by the rules of
    :mod:`pacman.view.labels` (clear of walls and of the ``agents``' cells where it can be, never
    over another label or off the maze), and the principal variation as paths (Pac-Man's
    thick, each ghost's thin in its colour). Returns ``{action: cell}`` of the labels drawn;
    ``boxes``, if given, gets each label's text and box; a label that would be ``under`` a
    banner's box is left out. :func:`draw` puts the paths under the
    agents and the labels over them. Any agent may publish a ``last_result``: one that cannot
    be read draws nothing.
    """
    try:
        return _overlay(surface, geometry, notes, theme, paths, labels, agents, boxes, under)
    except Exception:
        return {}


def _overlay(
    surface: pygame.Surface,
    geometry: Geometry,
    notes: Any,
    theme: Theme,
    paths: bool,
    labels: bool,
    agents: Sequence[tuple[float, float]],
    boxes: list[tuple[str, pygame.Rect]] | None,
    under: pygame.Rect | None,
) -> dict[str, tuple[int, int]]:
    from pacman.directions import STOP, VECTORS
    from pacman.marks import pv_paths

    search, root = notes.search, notes.searched
    if search is None or root is None:
        return {}
    cell = geometry.cell
    lines = pv_paths(root, tuple(getattr(search, "pv", ()) or ())) if paths else []
    for agent in range(len(lines) - 1, -1, -1):
        points = [geometry.center(x, y) for x, y in lines[agent]]
        if len(points) < 2:
            continue
        color = PV_COLOR if agent == 0 else theme.ghost_color(agent)
        width = max(2, cell // 6) if agent == 0 else max(1, cell // 14)
        pygame.draw.lines(surface, color, False, points, width)
        for point in points[1:]:
            pygame.draw.circle(surface, color, point, width)
    best = getattr(search, "action", None)
    values = dict(getattr(search, "values", {}) or {}) if labels else {}
    placed: dict[str, tuple[int, int]] = {}
    px, py = root.get_pacman_position()
    for label in _placed(geometry, notes, values, agents):
        if under is not None and under.colliderect(label.box):
            continue
        text = get_font(label.size).render(
            label.text, True, PV_COLOR if label.action == best else theme.text
        )
        box = pygame.Rect(label.box)
        surface.fill(_LABEL_BACK, box)
        surface.blit(text, text.get_rect(center=box.center))
        if boxes is not None:
            boxes.append((label.text, box))
        dx, dy = (0, 0) if label.action == STOP else VECTORS.get(label.action, (0, 0))
        placed[label.action] = (round(px + dx), round(py + dy))
    return placed


def label_boxes(
    geometry: Geometry, notes: Any, agents: Sequence[tuple[float, float]]
) -> list[pygame.Rect]:
    """Where :func:`draw_overlay` puts the values (for a banner to keep clear of them)."""
    try:
        values = dict(getattr(notes.search, "values", {}) or {})
        return [pygame.Rect(label.box) for label in _placed(geometry, notes, values, agents)]
    except Exception:
        return []


#: The last placement (search, root, the rest of its key, labels): the window redraws 60 times
#: a second, the labels move only with the game.
_LAST_PLACED: list[Any] = [None, None, None, []]


def _placed(
    geometry: Geometry,
    notes: Any,
    values: dict[str, Any],
    agents: Sequence[tuple[float, float]],
) -> list[Label]:
    search, root = notes.search, notes.searched
    marks = tuple(cell for cell, _ in notes.marks or ())
    cells = tuple(agents)
    key = (geometry, cells, marks, tuple(values.items()))
    search_was, root_was, key_was, _ = _LAST_PLACED
    if search_was is not search or root_was is not root or key_was != key:
        px, py = root.get_pacman_position()
        walls = root.layout.walls.data
        _LAST_PLACED[:] = [
            search,
            root,
            key,
            place_labels(
                values,
                (round(px), round(py)),
                geometry,
                lambda x, y: walls[x][y],
                cells,
                lambda text, size: get_font(size).size(text),
                marks,
            ),
        ]
    return _LAST_PLACED[3]
