"""The colours of the game's pictures, shared by the window, frames and HTML pages.

No pygame here: HTML replays use the same colours without it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CLASSIC",
    "FLASH_BELOW",
    "GAME_OVER_RED",
    "LIGHT",
    "THEMES",
    "Color",
    "Theme",
    "get_theme",
]

Color = tuple[int, int, int]


@dataclass(frozen=True)
class Theme:
    """The colours of a drawing; frozen so it can key the maze cache."""

    name: str
    background: Color
    wall: Color  # the outline of the wall tubes
    wall_fill: Color  # inside the tubes
    food: Color
    capsule: Color
    pacman: Color
    ghosts: tuple[Color, ...]  # ghost 1, 2, ... (repeating)
    scared: Color
    scared_face: Color
    flash: Color  # a scared ghost about to recover blinks between scared and this
    flash_face: Color
    eye: Color
    pupil: Color
    text: Color
    score: Color

    def ghost_color(self, agent_index: int) -> Color:
        return self.ghosts[(agent_index - 1) % len(self.ghosts)]


CLASSIC = Theme(
    name="classic",
    background=(0, 0, 0),
    wall=(33, 33, 222),
    wall_fill=(0, 0, 48),
    food=(255, 184, 151),
    capsule=(255, 184, 151),
    pacman=(255, 255, 0),
    ghosts=(
        (255, 0, 0),
        (255, 184, 255),
        (0, 255, 255),
        (255, 184, 82),
        (98, 220, 98),
        (200, 120, 255),
    ),
    scared=(33, 33, 255),
    scared_face=(255, 184, 151),
    flash=(235, 235, 255),
    flash_face=(255, 0, 0),
    eye=(255, 255, 255),
    pupil=(33, 33, 200),
    text=(255, 255, 255),
    score=(255, 255, 0),
)

#: A light variant, for printed handouts and slides.
LIGHT = Theme(
    name="light",
    background=(250, 250, 245),
    wall=(40, 70, 170),
    wall_fill=(205, 215, 245),
    food=(120, 90, 60),
    capsule=(200, 90, 30),
    pacman=(230, 180, 0),
    ghosts=(
        (220, 30, 30),
        (230, 90, 180),
        (0, 160, 180),
        (240, 130, 20),
        (40, 150, 40),
        (130, 60, 200),
    ),
    scared=(40, 40, 220),
    scared_face=(255, 230, 200),
    flash=(150, 150, 170),
    flash_face=(220, 0, 0),
    eye=(255, 255, 255),
    pupil=(20, 20, 120),
    text=(30, 30, 30),
    score=(150, 100, 0),
)

THEMES: dict[str, Theme] = {theme.name: theme for theme in (CLASSIC, LIGHT)}

#: The colour of "GAME OVER".
GAME_OVER_RED = (255, 60, 60)

#: Scared ghosts blink when their timer is at or below this many of their moves.
FLASH_BELOW = 10


def get_theme(theme: Theme | str) -> Theme:
    """A theme by name (``classic``, ``light``) or the theme itself."""
    if isinstance(theme, Theme):
        return theme
    try:
        return THEMES[theme]
    except KeyError:
        from pacman.errors import UsageError

        raise UsageError(
            f"unknown theme {theme!r}: choose one of {', '.join(sorted(THEMES))}"
        ) from None
