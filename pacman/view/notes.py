"""The agents' notes on the board: their marks, and Pac-Man's last search as an overlay.

:func:`pacman.view.draw.draw` calls these between the parts of a frame; they paint onto a
surface already fitted (:class:`~pacman.view.canvas.Geometry`) and open no display.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pacman.view.canvas import Geometry, get_font, pygame
from pacman.view.themes import Color, Theme

__all__ = ["PV_COLOR", "draw_marks", "draw_overlay"]

#: The principal variation's colour for Pac-Man's moves, and the overlay's label colours.
PV_COLOR = (255, 140, 0)
_LABEL_BACK = (0, 0, 0, 170)


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


def _value_text(value: Any) -> str:
    if not isinstance(value, (int, float)):
        return "?"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    if math.isnan(value):
        return "?"
    return f"{value:.0f}" if abs(value) >= 10 or float(value).is_integer() else f"{value:.1f}"


def draw_overlay(
    surface: pygame.Surface,
    geometry: Geometry,
    notes: Any,
    theme: Theme,
    paths: bool = True,
    labels: bool = True,
) -> dict[str, tuple[int, int]]:
    """Pac-Man's last search around the cell it searched from: each root action's value in the
    cell that action leads to (Stop's on Pac-Man's own cell), and the principal variation as
    paths (Pac-Man's thick, each ghost's thin in its colour). Returns ``{action: cell}`` of the
    labels drawn. :func:`draw` puts the paths under the agents and the labels over them.
    Any agent may publish a ``last_result``: one that cannot be read draws nothing.
    """
    try:
        return _overlay(surface, geometry, notes, theme, paths, labels)
    except Exception:
        return {}


def _overlay(
    surface: pygame.Surface,
    geometry: Geometry,
    notes: Any,
    theme: Theme,
    paths: bool,
    labels: bool,
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
    px, py = root.get_pacman_position()
    font = get_font(max(9, round(cell * 0.45)))
    placed: dict[str, tuple[int, int]] = {}
    best = getattr(search, "action", None)
    values = dict(getattr(search, "values", {}) or {}) if labels else {}
    for action, value in values.items():
        dx, dy = (0, 0) if action == STOP else VECTORS.get(action, (0, 0))
        where = (round(px + dx), round(py + dy))
        # The action's initial too: a label can sit on a cell Pac-Man has since moved to.
        label = (
            f"{action[:1]} {_value_text(value)}" if action != STOP else f"Stop {_value_text(value)}"
        )
        text = font.render(label, True, PV_COLOR if action == best else theme.text)
        cx, cy = geometry.center(*where)
        if action == STOP:
            cy += cell // 2  # under Pac-Man, which stays visible
        else:
            # At the far side of the cell, mostly clear of Pac-Man once it has moved there.
            cx += round(dx * cell * 0.55)
            cy -= round(dy * cell * 0.55)
        box = text.get_rect(center=(cx, cy)).inflate(4, 2)
        back = pygame.Surface(box.size, pygame.SRCALPHA)
        back.fill(_LABEL_BACK)
        surface.blit(back, box)
        surface.blit(text, text.get_rect(center=box.center))
        placed[action] = where
    return placed
