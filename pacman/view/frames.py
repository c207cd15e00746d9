"""Recording games as a GIF or as PNG frames, with no window at all.

``FrameRecorder(gif="game.gif")`` is a game observer: after every
``frame_skip``-th move (and after the last move) it draws the state with
``pacman.view.draw`` onto an off-screen surface and appends it. A game of N
moves gives ``ceil(N / frame_skip)`` frames. It works on a machine with no
display: only pygame's surfaces and fonts are used.

The GIF is written by Pillow (the ``[gif]`` extra), one frame at a time as
the game goes, so a long game never holds its frames in memory. Every frame
uses one fixed 256-colour palette made from the theme's colours (which
therefore come out exactly) and their blends with the background, and only
the rectangle that changed since the previous frame is stored. PNG frames
(``frames_dir``) need only pygame.

With several games, game 1 goes to ``FILE.gif``, game 2 to ``FILE-2.gif``...;
PNGs are named ``game1_move00001.png``.
"""

from __future__ import annotations

import math
import os
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from pacman.errors import PacmanError, UsageError
from pacman.extras import install_hint

if TYPE_CHECKING:
    from pacman.game import GameResult
    from pacman.state import GameState

__all__ = ["FrameRecorder", "gif_palette"]

#: Browsers show GIF delays under 20 ms as 100 ms, so no frame is shorter than this.
_MIN_DELAY_MS = 20
#: How long the last frame of a game stays up before the GIF loops.
_FINAL_HOLD_MS = 2000


def _why_not(error: OSError) -> str:
    """Why a file or folder could not be made, in words (mkdir says "File exists" of a file)."""
    if isinstance(error, (FileExistsError, NotADirectoryError)):
        return f"{error.filename} is a file, not a folder"
    return error.strerror or str(error)


def _import_draw() -> Any:
    try:
        from pacman.view import draw
    except PacmanError:  # pygame is missing (draw raises DisplayUnavailable)
        raise PacmanError(f"recording frames needs pygame: {install_hint('gif')}") from None
    return draw


def _import_pillow() -> Any:
    try:
        from PIL import GifImagePlugin, Image, ImageChops
    except ImportError:
        raise PacmanError(f"writing a GIF needs Pillow: {install_hint('gif')}") from None
    return Image, ImageChops, GifImagePlugin


def gif_palette(theme: Any, size: int = 256) -> list[tuple[int, int, int]]:
    """A fixed palette: the theme's colours, then their blends toward the background and the walls."""
    colors: list[tuple[int, int, int]] = []

    def add(color: tuple[int, int, int]) -> None:
        if color not in colors and len(colors) < size:
            colors.append(color)

    base = [
        theme.background,
        theme.wall,
        theme.wall_fill,
        theme.food,
        theme.capsule,
        theme.pacman,
        *theme.ghosts,
        theme.scared,
        theme.scared_face,
        theme.flash,
        theme.flash_face,
        theme.eye,
        theme.pupil,
        theme.text,
        theme.score,
        (255, 60, 60),  # draw.GAME_OVER_RED, the GAME OVER banner
    ]
    for color in base:
        add(color)

    def mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
        return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]

    levels = (0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875)
    for t in levels:  # the edges of the walls
        add(mix(theme.wall, theme.wall_fill, t))
    for color in base[1:]:  # anti-aliased edges of everything against the background
        for t in levels:
            add(mix(theme.background, color, t))
    for t in levels:
        add(mix(theme.wall, theme.background, t))
    for ghost in (*theme.ghosts, theme.scared):  # eyes inside a ghost
        add(mix(ghost, theme.eye, 0.5))
    # Pillow maps a pixel to the palette entry nearest the corner of its 4x4x4 colour box; drop
    # any blend that would win a theme colour's box, so theme colours always come out exact.
    exact = set(base)

    def distance(a: tuple[int, int, int], b: tuple[int, int, int]) -> int:
        return sum((x - y) ** 2 for x, y in zip(a, b, strict=True))

    for color in base:
        corner = tuple(channel & ~3 for channel in color)
        mine = distance(color, corner)
        colors = [c for c in colors if c in exact or distance(c, corner) > mine]
    while len(colors) < size:  # unused slots repeat the background
        colors.append(theme.background)
    return colors


class _GifWriter:
    """Writes one GIF frame by frame, leaving a complete file on disk after every frame.

    The trailer byte is rewritten after each frame, so a run stopped half way
    (a closed window, Ctrl-C) still leaves a GIF that plays; ``close`` then
    lengthens the last frame's delay in place.
    """

    def __init__(self, path: Path, delay_ms: int, theme: Any) -> None:
        self.Image, self.ImageChops, self.GifImagePlugin = _import_pillow()
        self.path = path
        self.delay_ms = max(_MIN_DELAY_MS, delay_ms)
        flat = [channel for color in gif_palette(theme) for channel in color]
        self.palette = self.Image.new("P", (1, 1))
        self.palette.putpalette(flat)
        self.file: BinaryIO | None = None
        self.previous = None  # the RGB image of the last frame
        self.last_delay_at = -1  # file offset of the last frame's delay field
        self.frames = 0

    def add(self, rgb: Any) -> None:
        indexed = rgb.quantize(palette=self.palette, dither=self.Image.Dither.NONE)
        if self.file is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.file = open(self.path, "wb")  # noqa: SIM115 - stays open across calls
            except OSError as error:
                raise PacmanError(
                    f"{self.path}: cannot write the GIF ({_why_not(error)})"
                ) from None
            header, _ = self.GifImagePlugin.getheader(indexed, None, {"loop": 0, "optimize": False})
            for chunk in header:
                self.file.write(chunk)
            part, offset = indexed, (0, 0)
        else:
            self.file.seek(-1, os.SEEK_END)  # over the trailer
            box = self.ImageChops.difference(rgb, self.previous).getbbox() or (0, 0, 1, 1)
            part, offset = indexed.crop(box), box[:2]
        # The first chunk is the graphic control extension: "!", 0xF9, 4, flags, delay (2 bytes)...
        self.last_delay_at = self.file.tell() + 4
        for chunk in self.GifImagePlugin.getdata(part, offset, duration=self.delay_ms, disposal=1):
            self.file.write(chunk)
        self.file.write(b";")
        self.file.flush()  # whoever reads the file now sees every frame so far
        self.previous = rgb
        self.frames += 1

    def close(self) -> None:
        if self.file is None:
            return
        if self.last_delay_at >= 0:
            self.file.seek(self.last_delay_at)
            self.file.write(struct.pack("<H", max(self.delay_ms, _FINAL_HOLD_MS) // 10))
        self.file.close()
        self.file = None


class FrameRecorder:
    """A game observer that saves frames: a GIF (``gif``), PNGs (``frames_dir``) or both."""

    def __init__(
        self,
        gif: str | os.PathLike[str] | None = None,
        frames_dir: str | os.PathLike[str] | None = None,
        zoom: float = 1.0,
        frame_skip: int = 1,
        *,
        frame_time: float = 0.1,
        theme: Any = "classic",
        agent_name: str | None = None,
        values: bool = False,
    ) -> None:
        if gif is None and frames_dir is None:
            raise UsageError("FrameRecorder needs a GIF file (--gif) or a frames folder (--frames)")
        if frame_skip < 1:
            raise UsageError(f"frame skip must be 1 or more, not {frame_skip}")
        if zoom <= 0:
            raise UsageError(f"zoom must be positive, not {zoom}")
        self._draw = _import_draw()
        if gif is not None:
            _import_pillow()  # fail now, before the game, if Pillow is missing
        self.gif = Path(gif) if gif is not None else None
        self.frames_dir = Path(frames_dir) if frames_dir is not None else None
        self.zoom = zoom
        self.frame_skip = frame_skip
        self.frame_time = frame_time
        self.theme = self._draw.get_theme(theme)
        self.agent_name = agent_name
        #: Whether frames show the search overlay (agents' marks are always drawn).
        self.values = values
        self._notes: Any = None
        #: Files written so far (GIFs and PNGs), in order.
        self.written: list[Path] = []
        #: Frames recorded in the current (or last) game.
        self.frames = 0
        self._games = 0
        self._moves = 0
        self._pacman_moves = 0
        self._last_recorded = 0
        self._surface: Any = None  # a pygame.Surface once a game starts (pygame comes on use)
        self._writer: _GifWriter | None = None
        self._state: GameState | None = None

    def _gif_path(self) -> Path:
        assert self.gif is not None
        if self._games == 1:
            return self.gif
        return self.gif.with_name(f"{self.gif.stem}-{self._games}{self.gif.suffix or '.gif'}")

    def initialize(self, state: GameState) -> None:
        self.close()
        self._games += 1
        self._moves = self._pacman_moves = self._last_recorded = self.frames = 0
        self._notes = None
        self._state = state
        pygame = self._draw.pygame
        self._surface = pygame.Surface(self._draw.frame_size(state.layout, self.zoom))
        if self.gif is not None:
            delay = round(1000 * self.frame_time * self.frame_skip)
            self._writer = _GifWriter(self._gif_path(), delay, self.theme)
        if self.frames_dir is not None:
            try:
                self.frames_dir.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise PacmanError(
                    f"{self.frames_dir}: cannot save frames there ({_why_not(error)})"
                ) from None

    def annotate(self, notes: Any) -> None:
        """The agents' marks and Pac-Man's last search, drawn from the next frame on."""
        self._notes = notes

    def update(self, state: GameState, agent_index: int, action: str) -> None:
        self._moves += 1
        if agent_index == 0:
            self._pacman_moves += 1
        self._state = state
        if self._moves % self.frame_skip == 0:
            self._record(state)

    def finish(self, state: GameState, result: GameResult) -> None:
        if self._moves != self._last_recorded or self._moves == 0:
            self._record(state)
        self.close()

    def _record(self, state: GameState) -> None:
        draw = self._draw
        caption = f"move {self._moves}"
        if self.agent_name:
            caption = f"{self.agent_name}  {caption}"
        # Pac-Man's mouth opens and closes on alternate moves of its own.
        mouth = 1.0 if self._pacman_moves % 2 == 0 else 0.3
        draw.draw(
            self._surface,
            state,
            self.theme,
            mouth=mouth,
            caption=caption,
            notes=self._notes,
            overlay=self.values,
        )
        self._last_recorded = self._moves
        self.frames += 1
        if self.frames_dir is not None:
            path = self.frames_dir / f"game{self._games}_move{self._moves:05d}.png"
            draw.pygame.image.save(self._surface, str(path))
            self.written.append(path)
        if self._writer is not None:
            Image = self._writer.Image
            data = draw.pygame.image.tobytes(self._surface, "RGB")
            self._writer.add(Image.frombytes("RGB", self._surface.get_size(), data))

    def close(self) -> None:
        """Finish the GIF being written (also done at the end of each game)."""
        if self._writer is not None:
            self._writer.close()
            if self._writer.frames:
                self.written.append(self._writer.path)
            self._writer = None

    def expected_frames(self, moves: int) -> int:
        """How many frames a game of ``moves`` moves gives."""
        return max(1, math.ceil(moves / self.frame_skip))
