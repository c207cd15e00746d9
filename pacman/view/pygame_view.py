"""The pygame window: an observer that shows a game and takes the keyboard.

``PygameDisplay(zoom=1.0, frame_time=0.1)`` opens the window at once, so a
machine that cannot show one fails here, with ``DisplayUnavailable`` and a
one-line message that says what to do, before any game starts. The game loop
calls ``initialize``/``update``/``finish``; each move is animated for
``frame_time`` seconds at 60 frames per second, and the window keeps
answering while paused. At the end of a game the final board stays, its
"GAME OVER" or "YOU WIN!" clear of the agents, until a key or a click (not
with a frame time of 0, nor in a window nobody can see: SDL's dummy driver).

Keys: Space (or P) pauses and resumes, Right (while paused) plays one more
move, ``+``/``-`` halve/double the frame time, V shows or hides the search
overlay (each root action's value beside Pac-Man, the principal variation,
depth and nodes in the status bar; ``values=True`` starts with it shown),
Esc or closing the window
raises ``pacman.game.QuitRequested``, which ends the run cleanly. Arrow keys,
WASD and Q (CS188's stop key) are recorded for
``agents.keyboard.KeyboardAgent``, which reads them through
``take_direction()`` on the open window (``PygameDisplay.active()``).

While an agent is thinking the window is not redrawn: the game loop and the
window share one thread, as SDL wants its events read on the main thread.
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from pacman import controls
from pacman.errors import DisplayUnavailable
from pacman.game import QuitRequested

#: The share of the screen a window may take at most (large layouts, -z 1.5).
SCREEN_SHARE = 0.9

#: The longest the final board waits for a key or a click before the run goes on.
ANSWER_WAIT = 30.0

#: The narrowest window opened at a zoom of 1 or more (CS188's small layouts are 5 to 9 cells
#: wide: 270 pixels at zoom 1, where the status line and the values cannot be read).
MIN_WIDTH = 600

if TYPE_CHECKING:
    from pacman.game import GameResult
    from pacman.layout import Layout
    from pacman.state import GameState

__all__ = ["PygameDisplay"]


#: Platforms whose windows need an X11 or Wayland server (not macOS, where DISPLAY means XQuartz).
_X11_PLATFORM = sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd"))


def missing_display() -> str | None:
    """Why no window can be opened here, if that is known before asking SDL."""
    if os.environ.get("SDL_VIDEODRIVER"):
        return None  # the user chose a driver (``dummy`` for tests): let SDL decide
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")) and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return "no display, DISPLAY and WAYLAND_DISPLAY are unset"
    return None


def _unavailable(reason: str) -> DisplayUnavailable:
    return DisplayUnavailable(
        f"cannot open a window: {reason} "
        "(use --web for a browser, -t or -q for text, --gif FILE to record)",
        reason,
    )


def _start_video(pygame: Any) -> None:
    """SDL's video on the driver the user chose, else on one that shows a window; SDL's own
    fallback to a window nobody can see (offscreen, dummy) is a ``pygame.error`` unless chosen."""
    chosen = os.environ.get("SDL_VIDEODRIVER")
    if (
        not chosen
        and _X11_PLATFORM
        and os.environ.get("DISPLAY")
        and not os.environ.get("WAYLAND_DISPLAY")
    ):
        # Only X11 can work here; asking SDL for it spares a Wayland complaint on stderr.
        os.environ["SDL_VIDEODRIVER"] = "x11"
    try:
        pygame.display.init()
    finally:
        if not chosen:
            os.environ.pop("SDL_VIDEODRIVER", None)
    if not chosen and pygame.display.get_driver() in ("offscreen", "dummy"):
        pygame.display.quit()  # SDL fell back to a window nobody can see
        raise pygame.error(f"cannot connect to display {os.environ.get('DISPLAY', '')!r}")


def _direction_keys(pygame: Any) -> dict[int, str]:
    """The keys a player steers with: arrows and WASD, and Q to stop."""
    return {
        pygame.K_LEFT: "West",
        pygame.K_a: "West",
        pygame.K_RIGHT: "East",
        pygame.K_d: "East",
        pygame.K_UP: "North",
        pygame.K_w: "North",
        pygame.K_DOWN: "South",
        pygame.K_s: "South",
        pygame.K_q: "Stop",  # CS188's stop key
    }


class PygameDisplay:
    """A window that shows each move, animated over ``frame_time`` seconds."""

    def __init__(
        self,
        zoom: float = 1.0,
        frame_time: float = 0.1,
        *,
        theme: Any = "classic",
        agent_name: str | None = None,
        fps: int = 60,
        hold: float | None = None,
        title: str = "Pac-Man",
        values: bool = False,
    ) -> None:
        problem = missing_display()
        if problem is not None:
            raise _unavailable(problem)
        from pacman.view import draw as drawing  # raises DisplayUnavailable without pygame

        self._pygame = drawing.pygame
        self._drawing = drawing
        self.theme = drawing.get_theme(theme)
        #: The zoom asked for: at 1 or more, the least zoom of a layout narrower than
        #: :data:`MIN_WIDTH` (a zoom under 1 asks for a small window, and gets it).
        self.zoom = float(zoom)
        #: Every text of the last frame drawn, with its box (what tests check for overlaps).
        self.text_boxes: list[tuple[str, Any]] = []
        self.frame_time = max(0.0, float(frame_time))
        self.agent_name = agent_name
        self.fps = fps
        #: Seconds the final position of a game stays on screen; ``None``: until a key or a
        #: click (after a short death animation), or no time at all with a frame time of 0.
        self.hold = hold
        self.title = title
        #: Whether the search overlay is shown (the V key toggles it).
        self.show_values = values
        self._notes: Any = None
        self._screen = self._open_hidden()
        #: Whether the final board waits for an answer: not in a window nobody can see.
        self.waits_for_answer = hold is None and self._pygame.display.get_driver() not in (
            "dummy",
            "offscreen",
        )
        self._pygame.display.set_caption(title)
        self._clock = self._pygame.time.Clock()
        self._layout: Layout | None = None
        self._state: GameState | None = None
        self._positions: list[tuple[float, float]] = []
        self._mouth = 1.0
        self._dying = 0.0
        self._moves = 0
        self._last_flip = 0.0
        self._paused = False
        self._step = False
        self._waiting = False  # for a key or a click at the end of a game
        self._answered = False
        self._closed = False
        self._notice = ""
        self._notice_until = 0.0
        self._directions = controls.DirectionKeys()
        self._keymap = _direction_keys(self._pygame)
        controls.take_keys_from(self)

    def _open_hidden(self) -> Any:
        """The window, opened hidden so that a machine that cannot show one fails here, before
        any game, with ``DisplayUnavailable``; :meth:`initialize` shows it."""
        pygame = self._pygame
        # Ctrl-C stays Python's KeyboardInterrupt instead of becoming a window-close event that
        # would only be seen after the agent's current (maybe long) search.
        os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")
        try:
            _start_video(pygame)
            pygame.display.set_icon(self._drawing.icon(32, self.theme))
            return pygame.display.set_mode((320, 200), pygame.RESIZABLE | pygame.HIDDEN)
        except pygame.error as error:
            reason = str(error) or "no video device"
            display = os.environ.get("DISPLAY")
            if display and "display" not in reason:
                reason += f" (DISPLAY={display})"
            raise _unavailable(reason) from None

    # ----------------------------------------------------------- for agents

    @staticmethod
    def active() -> PygameDisplay | None:
        """The window a keyboard agent should listen to, if one is open."""
        source = controls.key_source()
        return source if isinstance(source, PygameDisplay) else None

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def moves(self) -> int:
        """Moves shown so far in the current game."""
        return self._moves

    def take_direction(self) -> str | None:
        """The direction key pressed last since the previous call, else the one held last."""
        self.pump()
        return self._directions.take()

    def idle(self, notice: str = "") -> None:
        """Handle events and redraw once, waiting for the next 60 fps tick (for waiting agents)."""
        self.pump()
        if notice:
            self._notice, self._notice_until = notice, time.monotonic() + 0.1
        self._redraw()
        self._clock.tick(self.fps)

    # ----------------------------------------------------------- events

    def pump(self) -> None:
        """Handle pending window events; raises QuitRequested on Esc or a closed window."""
        if self._closed:
            raise QuitRequested("the window was closed")
        pygame = self._pygame
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self._quit()
            elif event.type == pygame.KEYDOWN:
                if self._waiting and event.key != pygame.K_ESCAPE:
                    self._answered = True
                else:
                    self._key_down(event.key)
            elif event.type == pygame.MOUSEBUTTONDOWN and self._waiting:
                self._answered = True
            elif event.type == pygame.KEYUP:
                self._directions.release(self._keymap.get(event.key))
            elif event.type in (pygame.WINDOWFOCUSLOST, pygame.WINDOWLEAVE):
                self._directions.release_all()  # a key released in another window never sends KEYUP here

    def _key_down(self, key: int) -> None:
        pygame = self._pygame
        if key == pygame.K_ESCAPE:
            self._quit("Esc pressed")
        elif key in (pygame.K_SPACE, pygame.K_p):
            self._paused = not self._paused
            self._step = False
        elif key == pygame.K_v:
            self.show_values = not self.show_values
            if self.show_values and getattr(self._notes, "search", None) is None:
                self._tell("values: this agent shows none (it has no last_result)")
            else:
                self._tell("values shown" if self.show_values else "values hidden")
            self._redraw()
        elif key in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS):
            self.frame_time = controls.faster(self.frame_time)
            self._tell(f"frame time {self.frame_time:g} s")
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS, pygame.K_UNDERSCORE):
            self.frame_time = controls.slower(self.frame_time)
            self._tell(f"frame time {self.frame_time:g} s")
        if key == pygame.K_RIGHT and self._paused:
            self._step = True
            return  # a step, not a turn: the keyboard agent must not see this key
        direction = self._keymap.get(key)
        if direction is not None:
            self._directions.press(direction)

    def _tell(self, notice: str, seconds: float = 1.5) -> None:
        self._notice, self._notice_until = notice, time.monotonic() + seconds

    def _quit(self, why: str = "the window was closed") -> None:
        self.close()
        raise QuitRequested(why)

    # ----------------------------------------------------------- observer

    def initialize(self, state: GameState) -> None:
        self.pump()
        pygame = self._pygame
        if state.layout is not self._layout:
            self._layout = state.layout
            size = self._window_size(state.layout)
            # Placed for its first, small size, a window grown in place runs off the screen;
            # SDL centres it again at each set_mode when asked to.
            os.environ.setdefault("SDL_VIDEO_CENTERED", "1")
            self._screen = pygame.display.set_mode(size, pygame.RESIZABLE | pygame.SHOWN)
            pygame.display.set_caption(f"{self.title} - {state.layout.name}")
        self._state = state
        self._notes = None
        self._positions = self._agent_positions(state)
        self._mouth = 1.0
        self._moves = 0
        self._redraw()
        self._wait_while_paused()

    def _screen_size(self) -> tuple[int, int] | None:
        try:
            sizes = self._pygame.display.get_desktop_sizes()
        except (AttributeError, self._pygame.error):
            return None
        return sizes[0] if sizes else None

    def _window_size(self, layout: Layout) -> tuple[int, int]:
        """The drawing's size at the zoom asked for, made smaller to fit on the screen.

        At a zoom of 1 or more a narrow layout is zoomed until the window is
        :data:`MIN_WIDTH` wide, and a window still narrower (a tall layout that the screen's
        height limits) is made that wide, the maze centred in it, as far as the screen allows.
        """
        readable = self.zoom >= 1.0
        zoom = self.zoom
        if readable:
            zoom = max(zoom, MIN_WIDTH / (layout.width * self._drawing.BASE_CELL))
        size = self._drawing.frame_size(layout, zoom)
        screen = self._screen_size()
        if screen is None or screen[0] <= 0 or screen[1] <= 0:
            return (max(size[0], MIN_WIDTH), size[1]) if readable else size
        # Room for the title bar, a panel and the window's borders.
        room = (screen[0] * SCREEN_SHARE, screen[1] * SCREEN_SHARE)
        if size[0] > room[0] or size[1] > room[1]:
            zoom *= min(room[0] / size[0], room[1] / size[1])
            size = self._drawing.frame_size(layout, zoom)
            while (size[0] > room[0] or size[1] > room[1]) and zoom > 0.1:
                zoom -= 1 / self._drawing.BASE_CELL  # cells are whole pixels: one less each
                size = self._drawing.frame_size(layout, zoom)
        if readable:
            size = (max(size[0], min(MIN_WIDTH, int(room[0]))), size[1])
        return size

    def annotate(self, notes: Any) -> None:
        """The agents' marks and Pac-Man's last search, shown from the next frame on."""
        self._notes = notes

    def update(self, state: GameState, agent_index: int, action: str) -> None:
        self._moves += 1
        start = self._positions
        end = self._agent_positions(state)
        self._state = state
        duration = self.frame_time
        began = time.monotonic()
        moving = (
            agent_index < len(start) and _distance(start[agent_index], end[agent_index]) <= 1.01
        )
        while duration > 0:
            self.pump()
            progress = (time.monotonic() - began) / duration if duration else 1.0
            if progress >= 1.0:
                break
            positions = list(end)
            if moving:
                (x0, y0), (x1, y1) = start[agent_index], end[agent_index]
                positions[agent_index] = (x0 + (x1 - x0) * progress, y0 + (y1 - y0) * progress)
            if agent_index == 0 and action != "Stop":
                self._mouth = 0.5 + 0.5 * math.cos(2 * math.pi * progress)
            self._redraw(positions)
            self._clock.tick(self.fps)
            duration = self.frame_time  # +/- during the move take effect at once
        self._positions = end
        self._mouth = 1.0
        self.pump()  # a fast game draws at most 60 frames a second but always listens
        if duration > 0 or time.monotonic() - self._last_flip >= 1 / self.fps:
            self._redraw()
        self._wait_while_paused()

    def finish(self, state: GameState, result: GameResult) -> None:
        """Show how the game ended: a death animation, then the final board until answered.

        With ``hold`` in seconds (or no answer possible) the board stays that long instead;
        unanswered, it goes on after ``ANSWER_WAIT`` seconds (nobody answers under Xvfb).
        """
        self._state = state
        self._positions = self._agent_positions(state)
        hold = self.hold if self.hold is not None else min(1.5, 10 * self.frame_time)
        waiting = self.waits_for_answer and self.frame_time > 0
        if waiting:
            # A key pressed while playing (a player's last arrow) is not an answer.
            self._pygame.event.clear((self._pygame.KEYDOWN, self._pygame.MOUSEBUTTONDOWN))
            self._waiting, self._answered = True, False
            self._notice, self._notice_until = "a key or a click goes on", math.inf
        began = time.monotonic()
        self._redraw()
        try:
            while (
                not self._answered and time.monotonic() - began < ANSWER_WAIT
                if waiting
                else (time.monotonic() - began < hold or self._paused)
            ):
                elapsed = time.monotonic() - began
                dying = state.is_lose() and elapsed < hold
                # Then Pac-Man is back on the final board, beside what caught it.
                self._dying = min(1.0, elapsed / (0.75 * hold)) if dying else 0.0
                self.idle()
        finally:
            self._dying = 0.0
            self._waiting = False
            if waiting:
                self._notice_until = 0.0

    def close(self) -> None:
        """Close the window (the run may go on without it)."""
        if not self._closed:
            self._closed = True
            self._pygame.display.quit()
        controls.stop_taking_keys(self)

    # ----------------------------------------------------------- drawing

    @staticmethod
    def _agent_positions(state: GameState) -> list[tuple[float, float]]:
        positions = [state.get_pacman_position()]
        positions.extend(state.get_ghost_positions())
        return positions

    def _caption(self) -> str:
        parts = []
        if self.agent_name:
            parts.append(self.agent_name)
        parts.append(f"move {self._moves}")
        if self._paused:
            parts.append("space resumes, right arrow steps")
        if self._notice and time.monotonic() < self._notice_until:
            parts.append(self._notice)
        return "  ".join(parts)

    def _redraw(self, positions: list[tuple[float, float]] | None = None) -> None:
        if self._state is None or self._closed:
            return
        surface = self._pygame.display.get_surface()
        self.text_boxes = []
        self._drawing.draw(
            surface,
            self._state,
            self.theme,
            positions=positions if positions is not None else self._positions,
            mouth=self._mouth,
            dying=self._dying,
            caption=self._caption(),
            banner="PAUSED" if self._paused and not self._state.is_terminal() else None,
            notes=self._notes,
            overlay=self.show_values,
            boxes=self.text_boxes,
        )
        self._pygame.display.flip()
        self._last_flip = time.monotonic()

    def _wait_while_paused(self) -> None:
        while self._paused and not self._step:
            self.idle()
        self._step = False

    def screenshot(self, path: str) -> None:
        """Save the window's picture of the current state as a PNG."""
        self._redraw()  # a fast game draws at most 60 times a second: bring the picture up to date
        self._pygame.image.save(self._pygame.display.get_surface(), path)


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])
