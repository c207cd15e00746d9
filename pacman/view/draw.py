"""Drawing a game state onto a pygame surface, with no window involved.

``draw(surface, state, theme)`` is a pure function of its arguments: it paints
the maze, food, capsules, Pac-Man, the ghosts and a score bar into whatever
surface it is given, scaled to fit, and returns the ``Geometry`` it used. The
window (``pygame_view``), frame export (``frames``) and the Gymnasium
``rgb_array`` mode all call it, so a headless machine renders exactly what a
user sees. Only ``pygame.Surface`` and ``pygame.font`` are used; nothing here
opens a display.

The static maze is rendered once per (layout, cell size, theme) and reused;
fonts are loaded once per size. Importing this module imports pygame, so the
game itself never imports it. Where the maze sits and the fonts are in
:mod:`pacman.view.canvas`, the agents' marks and the search overlay in
:mod:`pacman.view.notes`; their public names are here too, as before.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

# pygame comes from canvas, which turns a missing pygame into DisplayUnavailable.
from pacman.view.canvas import BASE_CELL, Geometry, fit, frame_size, get_font, pygame
from pacman.view.labels import SMALLEST_LABEL
from pacman.view.notes import PV_COLOR, draw_marks, draw_overlay, label_boxes
from pacman.view.themes import (
    CLASSIC,
    FLASH_BELOW,
    GAME_OVER_RED,
    LIGHT,
    THEMES,
    Color,
    Theme,
    get_theme,
)

if TYPE_CHECKING:
    from pacman.layout import Layout
    from pacman.state import GameState

__all__ = [
    "BASE_CELL",
    "CLASSIC",
    "LIGHT",
    "PV_COLOR",
    "THEMES",
    "Geometry",
    "Theme",
    "draw",
    "draw_marks",
    "draw_overlay",
    "fit",
    "frame_size",
    "get_theme",
    "icon",
    "render",
    "rgb_array",
]

#: Screen angle (degrees, counter-clockwise from east, y up) each direction faces.
_FACING_ANGLE = {"East": 0.0, "North": 90.0, "West": 180.0, "South": 270.0}
_LOOK = {"East": (1, 0), "West": (-1, 0), "North": (0, -1), "South": (0, 1)}


# ------------------------------------------------------------------ the maze

# layout -> {(cell, theme): surface}. Layouts compare by identity, so a cache entry dies with it.
_MAZES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_SUPERSAMPLE = 2  # 2, not 3: smoothscale keeps flat colours exact only when halving


def _maze_surface(layout: Layout, cell: int, theme: Theme) -> pygame.Surface:
    sizes = _MAZES.setdefault(layout, {})
    surface = sizes.get((cell, theme))
    if surface is None:
        if len(sizes) > 8:  # a window being resized makes many sizes; keep the newest few
            sizes.clear()
        surface = sizes[(cell, theme)] = _paint_maze(layout, cell, theme)
    return surface


def _paint_maze(layout: Layout, cell: int, theme: Theme) -> pygame.Surface:
    """Walls as outlined tubes along the wall cells, drawn large and scaled down for smooth edges."""
    scale = _SUPERSAMPLE if cell >= 8 else 1
    big = cell * scale
    surface = pygame.Surface((layout.width * big, layout.height * big))
    surface.fill(theme.background)
    walls = layout.walls.data
    width, height = layout.width, layout.height

    def is_wall(x: int, y: int) -> bool:
        return 0 <= x < width and 0 <= y < height and walls[x][y]

    def center(x: int, y: int) -> tuple[int, int]:
        return x * big + big // 2, (height - 1 - y) * big + big // 2

    cells = [(x, y) for x in range(width) for y in range(height) if walls[x][y]]
    outer = round(big * 0.3)
    line = max(1, round(big * 0.075))
    # The outline colour drawn thick, then the fill drawn thinner on top: what remains is the outline.
    for color, radius in ((theme.wall, outer), (theme.wall_fill, outer - line)):
        for x, y in cells:
            cx, cy = center(x, y)
            pygame.draw.circle(surface, color, (cx, cy), radius)
            if is_wall(x + 1, y):
                pygame.draw.rect(surface, color, (cx, cy - radius, big + 1, 2 * radius + 1))
            if is_wall(x, y - 1):
                pygame.draw.rect(surface, color, (cx - radius, cy, 2 * radius + 1, big + 1))
            # A 2x2 block of walls is solid: fill the square between the four centres.
            if is_wall(x + 1, y) and is_wall(x, y - 1) and is_wall(x + 1, y - 1):
                pygame.draw.rect(surface, color, (cx, cy, big + 1, big + 1))
    if scale != 1:
        surface = pygame.transform.smoothscale(surface, (width * cell, height * cell))
    return surface


# ------------------------------------------------------------------ agents


def _draw_pacman(
    surface: pygame.Surface,
    center: tuple[int, int],
    cell: int,
    facing: str,
    mouth: float,
    color: Color,
    dying: float = 0.0,
) -> None:
    cx, cy = center
    radius = cell * 0.45
    half_mouth = 5 + 40 * max(0.0, min(1.0, mouth))  # degrees either side of the facing direction
    facing_angle = _FACING_ANGLE.get(facing, 0.0)
    if dying > 0:  # the arcade's death: facing up, the mouth opens until nothing is left
        if dying >= 1:
            return
        facing_angle = 90.0
        half_mouth = 45 + 135 * dying
    points: list[tuple[float, float]] = [(cx, cy)]
    steps = 28
    start = facing_angle + half_mouth
    sweep = 360 - 2 * half_mouth
    for step in range(steps + 1):
        angle = math.radians(start + sweep * step / steps)
        points.append((cx + radius * math.cos(angle), cy - radius * math.sin(angle)))
    pygame.gfxdraw.aapolygon(surface, points, color)
    pygame.gfxdraw.filled_polygon(surface, points, color)


def _ghost_outline(cx: float, cy: float, cell: int) -> list[tuple[float, float]]:
    """A ghost's body: a round head, straight sides and a skirt of three points."""
    radius = cell * 0.42
    head_y = cy - cell * 0.06
    bottom = cy + cell * 0.42
    points = []
    for step in range(17):  # the head, from the left side over the top to the right side
        angle = math.pi - math.pi * step / 16
        points.append((cx + radius * math.cos(angle), head_y - radius * math.sin(angle)))
    skirt = 3
    points.append((cx + radius, bottom))
    for tooth in range(skirt):  # right to left: up to a notch, down to a point
        right = cx + radius - 2 * radius * tooth / skirt
        width = 2 * radius / skirt
        points.append((right - width / 2, bottom - cell * 0.12))
        points.append((right - width, bottom))
    return points


def _draw_ghost(
    surface: pygame.Surface,
    center: tuple[int, int],
    cell: int,
    facing: str,
    body: Color,
    theme: Theme,
    scared: bool,
    face: Color,
) -> None:
    cx, cy = center
    points = _ghost_outline(cx, cy, cell)
    pygame.gfxdraw.aapolygon(surface, points, body)
    pygame.gfxdraw.filled_polygon(surface, points, body)
    eye_dx = cell * 0.16
    eye_y = cy - cell * 0.1
    if scared:
        # Small eyes and a zigzag mouth, as the arcade's frightened ghosts have.
        size = max(1, round(cell * 0.05))
        for side in (-1, 1):
            pygame.draw.circle(surface, face, (round(cx + side * eye_dx * 0.8), round(eye_y)), size)
        mouth_y = cy + cell * 0.15
        zig = [
            (cx - cell * 0.25 + i * cell * 0.1, mouth_y + (cell * 0.04 if i % 2 else -cell * 0.04))
            for i in range(6)
        ]
        pygame.draw.lines(surface, face, False, zig, max(1, round(cell * 0.04)))
        return
    look_x, look_y = _LOOK.get(facing, (0, 0))
    eye_w, eye_h = cell * 0.2, cell * 0.26
    pupil = max(1, round(cell * 0.06))
    for side in (-1, 1):
        ex = cx + side * eye_dx + look_x * cell * 0.04
        ey = eye_y + look_y * cell * 0.04
        rect = pygame.Rect(0, 0, round(eye_w), round(eye_h))
        rect.center = (round(ex), round(ey))
        pygame.draw.ellipse(surface, theme.eye, rect)
        pygame.draw.circle(
            surface,
            theme.pupil,
            (round(ex + look_x * cell * 0.05), round(ey + look_y * cell * 0.06)),
            pupil,
        )


# ------------------------------------------------------------------ the whole picture


def _place_banner(
    geometry: Geometry,
    banner: str,
    color: Color,
    values: Sequence[pygame.Rect],
    agents: Sequence[pygame.Rect],
) -> tuple[pygame.Surface, pygame.Rect]:
    """The banner's text and its box over the maze: as near the middle as it goes hiding no
    agent and no value (their boxes), in smaller letters where it must; else hiding no agent
    (the values under it are left out); else in the middle.

    The end of a game is worth seeing: where Pac-Man was caught, or ate the last dot.
    """
    cell = geometry.cell
    maze = pygame.Rect(geometry.left, geometry.top, *geometry.maze_size)
    largest = max(10, round(cell * 1.4))
    sizes = [largest]
    while sizes[-1] > max(SMALLEST_LABEL, cell // 2):  # down to about half a cell, as a value
        sizes.append(max(SMALLEST_LABEL, cell // 2, round(sizes[-1] * 0.8)))
    shown = [_banner_box(banner, color, size, cell, maze) for size in sizes]
    step = max(1, cell // 2)
    for clear_of in (list(agents) + list(values), agents):
        for text, box in shown:
            spare_x, spare_y = max(0, maze.width - box.width), max(0, maze.height - box.height)
            offsets_x = sorted(range(-(spare_x // 2), spare_x // 2 + 1, step), key=abs)
            offsets_y = sorted(range(-(spare_y // 2), spare_y // 2 + 1, step), key=abs)
            for dx in offsets_x:  # centred across if it can be: up or down first, then sideways
                for dy in offsets_y:
                    if (moved := box.move(dx, dy)).collidelist(clear_of) == -1:
                        return text, moved
    return shown[0]


def _banner_box(
    banner: str, color: Color, size: int, cell: int, maze: pygame.Rect
) -> tuple[pygame.Surface, pygame.Rect]:
    """The banner in ``size`` letters (fewer where the maze is narrow) and its box, centred."""
    while True:
        text = get_font(size).render(banner, True, color)
        box = pygame.Rect(0, 0, text.get_width() + cell, text.get_height() + cell // 2)
        if box.width <= maze.width or size <= 8:
            break
        size -= 1
    box.center = maze.center
    return text, box


def draw(
    surface: pygame.Surface,
    state: GameState,
    theme: Theme | str = CLASSIC,
    *,
    positions: Sequence[tuple[float, float]] | None = None,
    mouth: float = 0.6,
    dying: float = 0.0,
    caption: str | None = None,
    banner: str | None = None,
    notes: Any = None,
    overlay: bool = False,
    boxes: list[tuple[str, pygame.Rect]] | None = None,
) -> Geometry:
    """Paint ``state`` onto ``surface`` (any size; the maze is scaled to fit and centred).

    ``positions`` overrides where each agent is drawn (index 0 is Pac-Man), for
    smooth movement between cells; ``mouth`` is how open Pac-Man's mouth is (0
    to 1); ``dying`` runs the death animation (0 to 1: gone); ``caption`` is shown
    at the right of the score bar (agent name, move count); ``banner`` over the
    maze (``None``: "YOU WIN!"/"GAME OVER" when the game is over, ``""``: nothing);
    ``notes`` (:class:`pacman.marks.BoardNotes`) the agents' marks, drawn under food
    and agents, and with ``overlay`` Pac-Man's last search (:func:`draw_overlay`),
    its depth and nodes after the caption. Returns the geometry used, so callers
    can find cells on the surface; ``boxes``, if given, gets every text drawn with its box
    (tests check that none overlaps another or leaves the picture).
    """
    theme = get_theme(theme)
    geometry = fit(surface.get_size(), state.layout)
    _draw_board(surface, geometry, state, theme, notes)
    # The principal variation under the agents, so each path starts from under its agent.
    search = getattr(notes, "search", None) if overlay else None
    if search is not None:
        draw_overlay(surface, geometry, notes, theme, labels=False)
        found = f"depth {getattr(search, 'depth', '?')}, {getattr(search, 'nodes', '?')} nodes"
        caption = f"{caption}  {found}" if caption else found
    where = list(positions) if positions is not None else None
    _draw_agents(surface, geometry, state, theme, where, mouth, dying)
    cells = _bodies(state)
    text, color = _banner(state, banner, theme)
    placed = None
    if text:
        values = label_boxes(geometry, notes, cells) if search is not None else []
        placed = _place_banner(geometry, text, color, values, _agent_boxes(geometry, state, where))
    if search is not None:
        # The values over everything, placed clear of the agents' cells where they can be.
        draw_overlay(
            surface, geometry, notes, theme, paths=False, agents=cells, boxes=boxes,
            under=placed[1] if placed else None,
        )  # fmt: skip
    if placed is not None:
        shown, box = placed
        shadow = pygame.Surface(box.size)
        shadow.fill(theme.background)
        shadow.set_alpha(200)
        surface.blit(shadow, box)
        surface.blit(shown, shown.get_rect(center=box.center))
        if boxes is not None:
            boxes.append((text, box))
    _draw_score_bar(surface, geometry, state.get_score(), caption, theme, boxes)
    return geometry


def _bodies(state: GameState) -> list[tuple[float, float]]:
    """Where each agent's body is drawn during its last move: where it is, and where it came
    from (the window slides it between the two), which the values keep clear of."""
    from pacman.directions import VECTORS

    found: list[tuple[float, float]] = []
    for index in range(state.get_num_agents()):
        agent = state.get_pacman_state() if index == 0 else state.get_ghost_state(index)
        (x, y), (dx, dy) = agent.get_position(), VECTORS.get(agent.get_direction(), (0, 0))
        found.append((x, y))
        if (dx, dy) != (0, 0):
            found.append((x - dx, y - dy))
    return found


def _draw_board(
    surface: pygame.Surface, geometry: Geometry, state: GameState, theme: Theme, notes: Any
) -> None:
    """The maze, the agents' marks on it, and the food and capsules over the marks."""
    cell = geometry.cell
    surface.fill(theme.background)
    surface.blit(_maze_surface(state.layout, cell, theme), (geometry.left, geometry.top))
    if notes is not None and notes.marks:
        draw_marks(surface, geometry, notes.marks)

    food_radius = max(1, round(cell * 0.1))
    for x, y in state.get_food().as_list():
        pygame.draw.circle(surface, theme.food, geometry.center(x, y), food_radius)
    capsule_radius = max(2, round(cell * 0.25))
    for capsule_x, capsule_y in state.get_capsules():
        center = geometry.center(capsule_x, capsule_y)
        pygame.gfxdraw.aacircle(surface, *center, capsule_radius, theme.capsule)
        pygame.gfxdraw.filled_circle(surface, *center, capsule_radius, theme.capsule)


def _draw_agents(
    surface: pygame.Surface,
    geometry: Geometry,
    state: GameState,
    theme: Theme,
    where: list[tuple[float, float]] | None,
    mouth: float,
    dying: float,
) -> None:
    """The ghosts, then Pac-Man, each at its ``where`` (``None``: at its cell in ``state``)."""
    cell = geometry.cell
    for index in range(1, state.get_num_agents()):  # ghosts first: Pac-Man on top of one it meets
        ghost = state.get_ghost_state(index)
        x, y = where[index] if where is not None else ghost.get_position()
        timer = ghost.scared_timer
        body, face = _ghost_colors(theme, index, timer)
        _draw_ghost(
            surface,
            geometry.center(x, y),
            cell,
            ghost.get_direction(),
            body,
            theme,
            timer > 0,
            face,
        )
    pacman = state.get_pacman_state()
    x, y = where[0] if where is not None else pacman.get_position()
    _draw_pacman(
        surface, geometry.center(x, y), cell, pacman.get_direction(), mouth, theme.pacman, dying
    )


def _ghost_colors(theme: Theme, index: int, timer: int) -> tuple[Color, Color]:
    """Ghost ``index``'s body and face: its own colour, or scared (flashing as it runs out)."""
    if timer > 0:
        flashing = timer <= FLASH_BELOW and timer % 2 == 0
        body = theme.flash if flashing else theme.scared
        face = theme.flash_face if flashing else theme.scared_face
        return body, face
    return theme.ghost_color(index), theme.eye


def _banner(state: GameState, banner: str | None, theme: Theme) -> tuple[str, Color]:
    """The banner's text and colour: ``banner`` as given, or the game's end (``None``)."""
    if banner is not None:
        return banner, theme.text
    text = "YOU WIN!" if state.is_win() else "GAME OVER" if state.is_lose() else ""
    return text, theme.score if state.is_win() else GAME_OVER_RED


def _agent_boxes(
    geometry: Geometry, state: GameState, where: list[tuple[float, float]] | None
) -> list[pygame.Rect]:
    """The cell-sized box round each agent as drawn, which a banner keeps clear of."""
    cell = geometry.cell
    half = cell // 2
    positions = where or [state.get_pacman_state().get_position(), *state.get_ghost_positions()]
    return [
        pygame.Rect(cx - half, cy - half, cell, cell)
        for cx, cy in (geometry.center(*position) for position in positions)
    ]


def _draw_score_bar(
    surface: pygame.Surface,
    geometry: Geometry,
    score: float,
    caption: str | None,
    theme: Theme,
    boxes: list[tuple[str, pygame.Rect]] | None = None,
) -> None:
    """The bar under the maze: the score at the left, the caption at the right, across the
    whole picture where it is wider than the maze (a narrow maze in a window made wider to be
    readable)."""
    bar_top = geometry.top + geometry.maze_size[1]
    middle = bar_top + geometry.bar_height // 2
    pad = max(2, geometry.cell // 3)
    left, width = geometry.left, geometry.maze_size[0]
    if surface.get_width() > width:
        left, width = 0, surface.get_width()
    room = width - 2 * pad
    # The score first; the caption gets what is left beside it and loses its start if it
    # must ("...Agent  move 18"): on a narrow maze the two never overlap or leave the bar.
    score_text = f"SCORE {_score_text(score)}"
    score_size = max(_SMALLEST_TEXT, round(geometry.bar_height * 0.75))
    # Smaller score letters where the caption would not fit beside it in the smallest letters
    # (up to half the bar), and always where its end ("move 18") would not.
    need = 0
    if caption:
        small = get_font(_SMALLEST_TEXT)
        tail = small.size("\u2026" + " ".join(caption.split()[-2:]))[0]
        need = max(tail, min(small.size(caption)[0], room // 2)) + pad
    while score_size > _SMALLEST_TEXT and get_font(score_size).size(score_text)[0] + need > room:
        score_size -= 1
    shown = _fitted(score_text, score_size, room, theme.score)
    where = shown.get_rect(midleft=(left + pad, middle))
    surface.blit(shown, where)
    if boxes is not None:
        boxes.append((score_text, where))
    beside = room - shown.get_width() - pad
    if caption and beside > 0:
        text = _fitted(
            caption, max(_SMALLEST_TEXT, round(geometry.bar_height * 0.6)), beside, theme.text
        )
        where = text.get_rect(midright=(left + pad + room, middle))
        surface.blit(text, where)
        if boxes is not None:
            boxes.append((caption, where))


def _score_text(score: float) -> str:
    return str(int(score)) if float(score).is_integer() else f"{score:g}"


#: The smallest letters the score bar uses before it shortens a caption: the values' smallest.
_SMALLEST_TEXT = SMALLEST_LABEL


def _fitted(text: str, size: int, width: int, color: Color) -> pygame.Surface:
    """``text`` rendered at most ``width`` wide: smaller letters first, then its first words
    left out (the end, "move 18", matters most), then its first letters."""
    while size > _SMALLEST_TEXT and get_font(size).size(text)[0] > width:
        size -= 1
    font = get_font(size)
    words = text.split()
    shorter = [text]
    shorter += ["\u2026" + " ".join(words[start:]) for start in range(1, len(words))]
    shorter += ["\u2026" + words[-1][cut:] for cut in range(1, len(words[-1]))] if words else []
    shown = next((option for option in shorter if font.size(option)[0] <= width), "")
    return font.render(shown, True, color)


def icon(size: int = 32, theme: Theme | str = CLASSIC) -> pygame.Surface:
    """Pac-Man alone on a transparent square, for the window's icon."""
    theme = get_theme(theme)
    surface = pygame.Surface((size, size), pygame.SRCALPHA)
    surface.fill((0, 0, 0, 0))
    _draw_pacman(surface, (size // 2, size // 2), round(size / 0.95), "East", 1.0, theme.pacman)
    return surface


def render(
    state: GameState, theme: Theme | str = CLASSIC, zoom: float = 1.0, **options: Any
) -> pygame.Surface:
    """A new surface of the natural size for ``zoom``, with ``state`` drawn on it."""
    surface = pygame.Surface(frame_size(state.layout, zoom))
    draw(surface, state, theme, **options)
    return surface


def rgb_array(
    state: GameState, theme: Theme | str = CLASSIC, zoom: float = 1.0, **options: Any
) -> Any:
    """The drawing as a ``(height, width, 3)`` uint8 numpy array (Gymnasium's ``rgb_array``)."""
    import pygame.surfarray

    return pygame.surfarray.array3d(render(state, theme, zoom, **options)).transpose(1, 0, 2)
