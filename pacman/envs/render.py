"""Frames and windows for the environments' render modes.

``rgb_array`` uses the viewer's drawing function (``pacman.view.draw``) on an
off-screen pygame surface when both exist, so frames look like the game
window; otherwise a small NumPy drawing is used, which needs no pygame and no
display. ``human`` shows the game in the project's window (``pacman.view.pygame_view``).
pygame is imported only here, and only when a frame or window is asked for.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from pacman.envs._optional import require
from pacman.errors import DisplayUnavailable, PacmanError

if TYPE_CHECKING:
    from pacman.layout import Layout
    from pacman.state import GameState

#: Pixels per maze cell in NumPy frames.
TILE = 16

_BACKGROUND = (0, 0, 0)
_WALL = (0, 51, 255)
_FOOD = (255, 255, 255)
_CAPSULE = (255, 255, 255)
_PACMAN = (255, 255, 61)
_SCARED = (255, 255, 255)
#: CS188's ghost colours, by ghost number.
_GHOST_COLOURS = (
    (229, 0, 0),
    (0, 76, 229),
    (250, 105, 18),
    (25, 191, 178),
    (76, 229, 25),
    (153, 25, 229),
)


def render_metadata() -> dict[str, Any]:
    """The render keys of ``metadata`` for an environment showing one game (a fresh dict)."""
    # Fresh lists, so that no two environment classes share one mutable metadata value.
    return {"render_modes": ["human", "rgb_array", "ansi"], "render_fps": 10}


def check_render_mode(render_mode: str | None, modes: list[str]) -> None:
    """Refuse a render mode the environment does not have, naming the ones it has."""
    if render_mode is not None and render_mode not in modes:
        raise PacmanError(
            f"render_mode must be None or one of {', '.join(modes)}, not {render_mode!r}"
        )


def _disk(radius: float, tile: int = TILE) -> np.ndarray:
    """A boolean ``tile x tile`` mask of a centred disk."""
    centre = (tile - 1) / 2
    ys, xs = np.mgrid[0:tile, 0:tile]
    return (xs - centre) ** 2 + (ys - centre) ** 2 <= radius**2


@functools.lru_cache(maxsize=1)
def _shapes() -> dict[str, np.ndarray]:
    ghost = _disk(TILE * 0.42)
    ghost[TILE // 2 : TILE - 2, 2 : TILE - 2] = True  # a flat-bottomed body
    food = np.zeros((TILE, TILE), dtype=bool)
    low, high = TILE // 2 - 2, TILE // 2 + 2
    food[low:high, low:high] = True
    return {
        "food": food,
        "capsule": _disk(TILE * 0.3),
        "pacman": _disk(TILE * 0.45),
        "ghost": ghost,
    }


@functools.lru_cache(maxsize=32)
def _background(layout: Layout) -> np.ndarray:
    height, width = layout.height, layout.width
    frame = np.zeros((height * TILE, width * TILE, 3), dtype=np.uint8)
    frame[:] = _BACKGROUND
    top = height - 1
    for x in range(width):
        for y in range(height):
            if layout.is_wall(x, y):
                row = (top - y) * TILE
                frame[row : row + TILE, x * TILE : x * TILE + TILE] = _WALL
    frame.flags.writeable = False
    return frame


def _stamp(frame: np.ndarray, mask: np.ndarray, top: float, x: float, colour: tuple) -> None:
    """Paint ``mask`` with its top-left corner at the (possibly half-cell) cell ``(top, x)``."""
    row, col = round(top * TILE), round(x * TILE)
    frame[row : row + TILE, col : col + TILE][mask] = colour


def numpy_frame(state: GameState) -> np.ndarray:
    """An ``(height * 16, width * 16, 3)`` ``uint8`` picture of ``state``, drawn with NumPy."""
    layout = state.layout
    frame = _background(layout).copy()
    shapes = _shapes()
    top = layout.height - 1
    for x, y in state.get_food_positions():
        _stamp(frame, shapes["food"], top - y, x, _FOOD)
    for x, y in state.get_capsules():
        _stamp(frame, shapes["capsule"], top - y, x, _CAPSULE)
    timers = state.get_scared_timers()
    for index, (x, y) in enumerate(state.get_ghost_positions()):
        colour = _SCARED if timers[index] else _GHOST_COLOURS[index % len(_GHOST_COLOURS)]
        _stamp(frame, shapes["ghost"], top - y, x, colour)
    x, y = state.get_pacman_position()
    _stamp(frame, shapes["pacman"], top - y, x, _PACMAN)
    return frame


def _view_draw() -> Any:
    """The viewer's drawing module when pygame and the viewer exist, else None."""
    try:
        from pacman.view import draw
    except (ImportError, DisplayUnavailable):
        return None
    return draw


def rgb_frame(state: GameState) -> np.ndarray:
    """An ``(H, W, 3)`` ``uint8`` frame of ``state``; needs no display.

    The viewer's drawing (the game window's look, score bar included) when
    pygame is installed, else ``numpy_frame``.
    """
    draw = _view_draw()
    if draw is None:
        return numpy_frame(state)
    return np.ascontiguousarray(draw.rgb_array(state), dtype=np.uint8)


class HumanView:
    """The project's game window (``PygameDisplay``) driven by an environment.

    Each shown move is animated, all the moves of one environment step taking
    ``1 / fps`` seconds together. Closing the window (or Esc) only stops the
    showing: the episode goes on, and the window stays closed until
    ``close()``. Raises ``DisplayUnavailable`` when no window can be opened.
    """

    def __init__(self, fps: float) -> None:
        self.fps = fps
        self._display: Any = None
        self._shown: GameState | None = None
        self._closed_by_user = False

    def show(self, state: GameState, moves: list[tuple[int, str, GameState]] | None = None) -> None:
        """Show ``state``: animate ``moves`` ``(agent, action, state after)`` when given."""
        if self._closed_by_user:
            return
        from pacman.game import QuitRequested

        try:
            display = self._open()
            if moves and self._shown is not None:
                display.frame_time = 1.0 / self.fps / len(moves)
                for agent, action, after in moves:
                    display.update(after, agent, action)
            elif state is not self._shown:
                display.initialize(state)
            else:
                display.idle()
        except QuitRequested:
            self.close()
            self._closed_by_user = True
            return
        self._shown = state

    def _open(self) -> Any:
        if self._display is None:
            require("pygame")
            from pacman.view.pygame_view import PygameDisplay

            try:
                self._display = PygameDisplay(frame_time=1.0 / self.fps, hold=0.0)
            except DisplayUnavailable as error:
                reason = str(error).split(" (use ")[0]
                raise DisplayUnavailable(
                    f"render_mode='human': {reason}; without a display use 'rgb_array' or 'ansi'"
                ) from None
        return self._display

    def close(self) -> None:
        if self._display is not None:
            self._display.close()
            self._display = None
            self._shown = None


class GameRendering:
    """``render()``'s frames and the ``human`` window of an environment showing one game.

    A mixin: list it before the Gymnasium or PettingZoo base class, whose
    ``close()`` it replaces. The window opens on the first ``human`` frame at
    ``metadata["render_fps"]`` and stays open until ``close()``.
    """

    metadata: dict[str, Any]  # per instance, as Gymnasium and PettingZoo declare it
    render_mode: str | None
    _window: HumanView | None = None

    def _render_state(
        self, state: GameState, moves: list[tuple[int, str, GameState]] | None
    ) -> np.ndarray | str | None:
        """``state`` in ``render_mode``; ``human`` animates ``moves`` and returns None."""
        if self.render_mode == "rgb_array":
            return rgb_frame(state)
        if self.render_mode == "ansi":
            return str(state) + "\n"
        if self.render_mode == "human":
            if self._window is None:
                self._window = HumanView(self.metadata["render_fps"])
            self._window.show(state, moves)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None
