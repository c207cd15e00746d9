"""What every drawing of the game shares: pygame, where the maze sits on a surface, and fonts.

Importing this module imports pygame, or raises ``DisplayUnavailable`` with the install hint
when it is missing, so the drawing modules import pygame from here, never directly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pacman.errors import DisplayUnavailable
from pacman.extras import install_hint

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
try:
    import pygame
    import pygame.gfxdraw
except ImportError as _error:  # pragma: no cover - exercised only without pygame
    raise DisplayUnavailable(
        f"pygame is not installed: {install_hint('pygame')} for the window, or use -t/-q for text",
        reason=f"pygame is not installed: {install_hint('pygame')}",
    ) from _error

if TYPE_CHECKING:
    from pacman.layout import Layout

__all__ = ["BAR_CELLS", "BASE_CELL", "Geometry", "fit", "frame_size", "get_font"]

#: Pixels per maze cell at zoom 1 (CS188's grid size).
BASE_CELL = 30
#: Height of the score bar, in cells.
BAR_CELLS = 1.2


@dataclass(frozen=True)
class Geometry:
    """Where the maze sits on a surface: integer cell size and the maze's top-left corner."""

    cell: int
    left: int
    top: int
    columns: int
    rows: int

    @property
    def bar_height(self) -> int:
        return _bar(self.cell)

    @property
    def maze_size(self) -> tuple[int, int]:
        return self.columns * self.cell, self.rows * self.cell

    def center(self, x: float, y: float) -> tuple[int, int]:
        """The pixel at the centre of board position (x, y) (y grows upward on the board)."""
        cell = self.cell
        return (
            self.left + round((x + 0.5) * cell),
            self.top + round((self.rows - 1 - y + 0.5) * cell),
        )


def _bar(cell: int) -> int:
    """The score bar's height for a cell size."""
    return max(12, round(cell * BAR_CELLS))


def _cell_for_zoom(zoom: float) -> int:
    return max(4, round(BASE_CELL * zoom))


def frame_size(layout: Layout, zoom: float = 1.0) -> tuple[int, int]:
    """The natural (width, height) in pixels of a drawing of ``layout`` at ``zoom``."""
    cell = _cell_for_zoom(zoom)
    return layout.width * cell, layout.height * cell + _bar(cell)


def fit(size: tuple[int, int], layout: Layout) -> Geometry:
    """The largest whole-pixel cell that fits the maze and its bar in ``size``, centred."""
    width, height = size
    cell = width // layout.width
    while cell > 2 and layout.height * cell + _bar(cell) > height:
        cell -= 1
    cell = max(2, cell)
    used_height = layout.height * cell + _bar(cell)
    return Geometry(
        cell=cell,
        left=(width - layout.width * cell) // 2,
        top=max(0, (height - used_height) // 2),
        columns=layout.width,
        rows=layout.height,
    )


# ------------------------------------------------------------------ fonts

_FONTS: dict[int, Any] = {}


def get_font(size: int) -> pygame.font.Font:
    """The default font at ``size`` pixels, loaded once."""
    font = _FONTS.get(size)
    if font is None:
        if not pygame.font.get_init():
            pygame.font.init()
        font = _FONTS[size] = pygame.font.Font(None, size)
    return font
