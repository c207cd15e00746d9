"""draw(surface, state, theme): sizes and the colours read back at known cells."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
pytest.importorskip("pygame")

from pacman.layout import parse_layout
from pacman.state import GameState
from pacman.view import draw as drawing

#: The checkout, so child processes import this tree's packages.
ROOT = Path(__file__).resolve().parents[1]

# Pac-Man's corridor on the left; the ghost circles a pillar on the right and never reaches it.
TINY = """
%%%%%%%%%%
%P.o.%   %
%%%%%% % %
%%%%%%G  %
%%%%%%%%%%
"""


@pytest.fixture
def state() -> GameState:
    return GameState.initial(parse_layout(TINY, "tiny"), 1)


def pixel(surface, point: tuple[int, int]) -> tuple[int, int, int]:
    return tuple(surface.get_at(point))[:3]


def offset(point: tuple[int, int], dx: float, dy: float) -> tuple[int, int]:
    return round(point[0] + dx), round(point[1] + dy)


def ghost_round(state: GameState) -> GameState:
    """The ghost takes its first legal move, then Pac-Man stops."""
    state = state.generate_successor(1, state.get_legal_actions(1)[0])
    return state.generate_successor(0, "Stop")


def test_natural_size_is_cells_times_zoom_plus_the_score_bar(state):
    assert drawing.frame_size(state.layout) == (10 * 30, 5 * 30 + 36)
    assert drawing.frame_size(state.layout, zoom=2) == (10 * 60, 5 * 60 + 72)
    assert drawing.frame_size(state.layout, zoom=0.5) == (10 * 15, 5 * 15 + 18)
    assert drawing.render(state).get_size() == (300, 186)
    assert drawing.render(state, zoom=2).get_size() == (600, 372)


def test_colours_at_a_wall_food_capsule_pacman_ghost_and_empty_cell(state):
    theme = drawing.CLASSIC
    surface = drawing.render(state, theme)
    geometry = drawing.fit(surface.get_size(), state.layout)
    assert geometry == drawing.Geometry(cell=30, left=0, top=0, columns=10, rows=5)
    cell = geometry.cell
    assert geometry.center(0, 0) == (15, 135)
    assert geometry.center(1, 3) == (45, 45)
    assert pixel(surface, geometry.center(0, 0)) == theme.wall_fill  # inside the wall tubes
    assert pixel(surface, geometry.center(3, 2)) == theme.wall_fill
    assert pixel(surface, geometry.center(7, 2)) == theme.wall_fill  # the lone pillar
    assert pixel(surface, geometry.center(2, 3)) == theme.food
    assert pixel(surface, geometry.center(4, 3)) == theme.food
    assert pixel(surface, geometry.center(3, 3)) == theme.capsule
    assert pixel(surface, geometry.center(7, 3)) == theme.background
    # Between a food dot and the next cell there is only background.
    assert pixel(surface, offset(geometry.center(2, 3), 0.3 * cell, 0)) == theme.background
    # Pac-Man starts facing east, mouth open to the right: its back is solid yellow.
    assert pixel(surface, offset(geometry.center(1, 3), -0.25 * cell, 0)) == theme.pacman
    assert pixel(surface, offset(geometry.center(1, 3), 0.35 * cell, 0)) == theme.background
    # The ghost's body below its eyes and above its skirt; its eyes are white.
    ghost = geometry.center(6, 1)
    assert pixel(surface, offset(ghost, 0, 0.18 * cell)) == theme.ghost_color(1) == (255, 0, 0)
    assert pixel(surface, offset(ghost, 0, -0.3 * cell)) == (255, 0, 0)
    assert pixel(surface, offset(ghost, -0.16 * cell, 0)) == theme.eye
    # The outline of the pillar is the wall's blue (anti-aliased, so only nearly exact).
    r, g, b = pixel(surface, offset(geometry.center(7, 2), 0, -0.3 * cell + 1))
    assert b > 150 and r < 80 and g < 80


def test_pacman_faces_the_way_it_moved_and_scared_ghosts_turn_blue(state):
    theme = drawing.CLASSIC
    state = state.generate_successor(0, "East")  # eats the food at (2, 3)
    state = state.generate_successor(1, state.get_legal_actions(1)[0])
    state = state.generate_successor(0, "East")  # eats the capsule at (3, 3): the ghost is scared
    surface = drawing.render(state, theme)
    geometry = drawing.fit(surface.get_size(), state.layout)
    cell = geometry.cell
    assert pixel(surface, geometry.center(2, 3)) == theme.background  # food eaten
    assert pixel(surface, offset(geometry.center(3, 3), -0.25 * cell, 0)) == theme.pacman
    assert pixel(surface, offset(geometry.center(3, 3), 0.35 * cell, 0)) == theme.background
    assert state.get_ghost_state(1).scared_timer == 40
    ghost = geometry.center(*state.get_ghost_position(1))
    assert pixel(surface, offset(ghost, 0, -0.3 * cell)) == theme.scared

    state = state.generate_successor(1, state.get_legal_actions(1)[0])  # half a cell
    state = state.generate_successor(0, "West")
    assert state.get_ghost_position(1)[0] % 1 == 0.5 or state.get_ghost_position(1)[1] % 1 == 0.5
    surface = drawing.render(state, theme)
    ghost = geometry.center(*state.get_ghost_position(1))
    assert pixel(surface, offset(ghost, 0, -0.3 * cell)) == theme.scared
    # Facing west now: the mouth is on the left, the back on the right.
    assert pixel(surface, offset(geometry.center(2, 3), 0.25 * cell, 0)) == theme.pacman
    assert pixel(surface, offset(geometry.center(2, 3), -0.35 * cell, 0)) == theme.background


def test_a_scared_ghost_flashes_as_its_timer_runs_out(state):
    theme = drawing.CLASSIC
    state = state.generate_successor(0, "East")
    state = state.generate_successor(1, state.get_legal_actions(1)[0])
    state = state.generate_successor(0, "East")
    seen = []
    while state.get_ghost_state(1).scared_timer > 8:
        state = ghost_round(state)
        if state.get_ghost_state(1).scared_timer <= 11:
            surface = drawing.render(state, theme)
            geometry = drawing.fit(surface.get_size(), state.layout)
            where = geometry.center(*state.get_ghost_position(1))
            seen.append(pixel(surface, offset(where, 0, -0.3 * geometry.cell)))
    assert seen == [theme.scared, theme.flash, theme.scared, theme.flash]


def test_a_resized_surface_fits_the_maze_centred(state):
    theme = drawing.LIGHT
    pygame = drawing.pygame
    surface = pygame.Surface((500, 400))
    geometry = drawing.draw(surface, state, theme, caption="RandomAgent  move 3")
    assert geometry == drawing.Geometry(cell=50, left=0, top=45, columns=10, rows=5)
    assert geometry.bar_height == 60
    assert pixel(surface, (0, 0)) == theme.background
    assert pixel(surface, (499, 399)) == theme.background
    assert pixel(surface, geometry.center(7, 3)) == theme.background
    assert pixel(surface, geometry.center(2, 3)) == theme.food
    assert pixel(surface, geometry.center(3, 2)) == theme.wall_fill
    assert pixel(surface, offset(geometry.center(1, 3), -0.25 * 50, 0)) == theme.pacman


def test_interpolated_positions_draw_agents_between_cells(state):
    theme = drawing.CLASSIC
    surface = drawing.pygame.Surface(drawing.frame_size(state.layout))
    geometry = drawing.draw(surface, state, theme, positions=[(1, 3), (6.5, 1)])
    assert geometry.center(6.5, 1) == (6 * 30 + 30, 105)
    assert pixel(surface, offset(geometry.center(6.5, 1), 0, 0.18 * 30)) == (255, 0, 0)
    assert pixel(surface, offset(geometry.center(6, 1), -0.4 * 30, 0.18 * 30)) == theme.background


def test_unknown_theme_is_a_usage_error(state):
    from pacman.errors import UsageError

    with pytest.raises(UsageError, match="unknown theme 'neon'"):
        drawing.render(state, "neon")


def test_rgb_array_is_height_by_width_by_3(state):
    pytest.importorskip("numpy")
    frame = drawing.rgb_array(state)
    assert frame.shape == (186, 300, 3)
    assert tuple(frame[45, 2 * 30 + 15]) == drawing.CLASSIC.food


def test_importing_the_package_and_the_view_modules_does_not_import_pygame():
    code = (
        "import sys, pacman, pacman.view, pacman.view.pygame_view, pacman.view.frames, "
        "agents.keyboard; print('pygame' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "False"


def test_the_death_animation_opens_upward_until_pacman_is_gone(state):
    theme = drawing.CLASSIC
    surface = drawing.pygame.Surface(drawing.frame_size(state.layout))
    center = drawing.fit(surface.get_size(), state.layout).center(1, 3)
    below, above = offset(center, 0, 0.3 * 30), offset(center, 0, -0.3 * 30)
    drawing.draw(surface, state, theme, dying=0.5)
    assert (pixel(surface, below), pixel(surface, above)) == (theme.pacman, theme.background)
    drawing.draw(surface, state, theme, dying=1.0)
    assert (pixel(surface, below), pixel(surface, above)) == (theme.background, theme.background)


def test_the_window_icon_is_pacman_on_a_transparent_square():
    image = drawing.icon(32)
    assert image.get_size() == (32, 32)
    assert tuple(image.get_at((0, 0))) == (0, 0, 0, 0)
    assert tuple(image.get_at((8, 16))) == (*drawing.CLASSIC.pacman, 255)


@pytest.mark.parametrize("zoom", [0.1, 0.25, 0.5, 0.8, 1.0, 1.03, 1.5, 2.0, 3.3])
def test_a_frame_of_the_natural_size_is_drawn_at_the_zoom_cell_size(state, zoom):
    size = drawing.frame_size(state.layout, zoom)
    geometry = drawing.fit(size, state.layout)
    assert geometry.cell == max(4, round(30 * zoom))
    assert (geometry.left, geometry.top) == (0, 0)
    assert geometry.maze_size[1] + geometry.bar_height == size[1]


def _columns_in(surface, color, top: int, bottom: int) -> list[int]:
    """The x of every column holding a pixel of ``color`` between rows top and bottom."""
    width = surface.get_width()
    return [
        x for x in range(width) if any(pixel(surface, (x, y)) == color for y in range(top, bottom))
    ]


@pytest.mark.parametrize("name", ["testClassic", "minimaxClassic", "smallClassic"])
def test_the_score_bar_of_a_small_layout_keeps_score_and_caption_apart_and_inside(name):
    import pygame

    from pacman.layout import load_layout

    layout = load_layout(name)
    state = GameState.initial(layout)
    surface = pygame.Surface(drawing.frame_size(layout))
    theme = drawing.get_theme("classic")
    caption = "MinimaxAgent  move 118  a key or a click goes on"
    geometry = drawing.draw(surface, state, theme, caption=caption, banner="")
    top = geometry.top + geometry.maze_size[1]
    bottom = top + geometry.bar_height
    score = _columns_in(surface, theme.score[:3], top, bottom)
    text = _columns_in(surface, theme.text[:3], top, bottom)
    assert score and text
    assert geometry.left <= score[0] and score[-1] < text[0]
    assert text[-1] < geometry.left + geometry.maze_size[0]


def test_a_caption_too_long_for_the_bar_loses_its_first_words_not_its_end():
    from pacman.view.canvas import get_font

    font = get_font(drawing._SMALLEST_TEXT)
    width = font.size("\u2026move 51")[0]
    shown = drawing._fitted("GreedyAgent  move 51", 30, width, (255, 255, 255))
    assert shown.get_width() == width
