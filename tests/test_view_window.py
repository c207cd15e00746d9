"""The pygame window under SDL's dummy video driver: opening, playing, keys, closing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from short_games import env_without_display, run_pacman_without_display, small_game

from pacman.errors import DisplayUnavailable
from pacman.game import QuitRequested
from pacman.layout import load_layout, parse_layout
from pacman.state import GameState
from pacman.view.pygame_view import PygameDisplay

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
pygame = pytest.importorskip("pygame")
drawing = pytest.importorskip("pacman.view.draw")

#: The checkout, so child processes import this tree's packages.
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def display():
    if os.environ.get("SDL_VIDEODRIVER") != "dummy":
        pytest.skip("these tests drive the window through SDL's dummy video driver")
    window = PygameDisplay(zoom=0.5, frame_time=0.0, hold=0, agent_name="EastFirst")
    pygame.event.clear()
    yield window
    window.close()


def press(key: int, up: bool = False) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYUP if up else pygame.KEYDOWN, key=key))


def test_the_window_opens_plays_a_short_game_and_closes(display):
    assert PygameDisplay.active() is display
    result = small_game([display]).run()
    assert result.pacman_moves == 4
    assert result.moves == 4 * 3  # four rounds: Pac-Man and two ghosts
    assert display.moves == result.moves
    surface = pygame.display.get_surface()
    layout = load_layout("smallClassic")
    assert surface.get_size() == drawing.frame_size(layout, 0.5) == (300, 123)
    geometry = drawing.fit(surface.get_size(), layout)
    assert tuple(surface.get_at(geometry.center(0, 0)))[:3] == drawing.CLASSIC.wall_fill
    assert tuple(surface.get_at(geometry.center(1, 1)))[:3] == drawing.CLASSIC.food
    display.close()
    assert PygameDisplay.active() is None
    assert not pygame.display.get_init()
    with pytest.raises(QuitRequested):
        display.update(result.final_state, 0, "Stop")


class SteppingClock:
    """Stands in for ``time`` in the window: every reading is 5 ms after the previous one."""

    def __init__(self):
        self.now = 0.0

    def monotonic(self):
        self.now += 0.005
        return self.now


def test_moves_are_animated_when_the_frame_time_is_positive(display, monkeypatch):
    from pacman.view import pygame_view

    monkeypatch.setattr(pygame_view, "time", SteppingClock())  # no dependence on real time
    display.frame_time = 0.1
    display.fps = 1000  # the frame limiter need not sleep here
    frames = []
    real = display._redraw
    display._redraw = lambda positions=None: (frames.append(positions), real(positions))
    result = small_game([display], max_moves=1).run()
    assert display.moves == result.moves == 3
    between = [p for p in frames if p is not None]
    assert between, "no in-between frames were drawn"
    # Every in-between position lies on the segment of the agent's move (x or y fractional).
    assert any(x % 1 or y % 1 for positions in between for x, y in positions)


def test_escape_ends_the_run_with_quit_requested(display):
    press(pygame.K_ESCAPE)
    with pytest.raises(QuitRequested):
        small_game([display]).run()
    assert PygameDisplay.active() is None


def test_closing_the_window_ends_the_run_with_quit_requested(display):
    game = small_game([display], max_moves=50)
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    with pytest.raises(QuitRequested):
        game.run()


def test_space_pauses_and_right_arrow_steps_one_move(display):
    state = GameState.initial(load_layout("smallClassic"), 2)
    display.initialize(state)
    waits = []
    real_idle = display.idle

    def idle(notice=""):
        waits.append(notice)
        real_idle(notice)
        if len(waits) == 3:
            press(pygame.K_RIGHT)

    display.idle = idle
    press(pygame.K_SPACE)
    state = state.generate_successor(0, "East")
    display.update(state, 0, "East")  # pauses after drawing, until Right is pressed
    assert len(waits) == 4 and display.paused
    press(pygame.K_SPACE)
    state = state.generate_successor(1, state.get_legal_actions(1)[0])
    display.update(state, 1, "x")
    assert len(waits) == 4 and not display.paused
    assert display.moves == 2


def test_plus_and_minus_halve_and_double_the_frame_time(display):
    display.frame_time = 0.1
    press(pygame.K_PLUS)
    display.pump()
    assert display.frame_time == 0.05
    press(pygame.K_MINUS)
    press(pygame.K_KP_MINUS)
    display.pump()
    assert display.frame_time == 0.2
    for _ in range(6):
        press(pygame.K_EQUALS)
    display.pump()
    assert display.frame_time == 0.0
    press(pygame.K_MINUS)
    display.pump()
    assert display.frame_time == 0.01


def test_direction_keys_are_kept_for_the_keyboard_agent(display):
    assert display.take_direction() is None
    press(pygame.K_a)
    assert display.take_direction() == "West"
    assert display.take_direction() == "West"  # still held
    press(pygame.K_a, up=True)
    assert display.take_direction() is None
    press(pygame.K_UP)
    press(pygame.K_UP, up=True)
    assert display.take_direction() == "North"  # a tap counts once
    assert display.take_direction() is None
    press(pygame.K_d)
    press(pygame.K_DOWN)
    assert display.take_direction() == "South"
    press(pygame.K_DOWN, up=True)
    assert display.take_direction() == "East"  # the key still held
    press(pygame.K_q)
    assert display.take_direction() == "Stop"  # CS188's stop key, not quit
    assert PygameDisplay.active() is display


def test_no_display_is_one_line_with_the_fix(monkeypatch):
    for name in ("SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    with pytest.raises(DisplayUnavailable) as caught:
        PygameDisplay()
    message = str(caught.value)
    assert "\n" not in message
    assert message == (
        "cannot open a window: no display, DISPLAY and WAYLAND_DISPLAY are unset "
        "(use --web for a browser, -t or -q for text, --gif FILE to record)"
    )


def test_missing_pygame_is_one_line_with_the_install_hint():
    code = (
        "import sys; sys.modules['pygame'] = None\n"
        "from pacman.errors import DisplayUnavailable\n"
        "from pacman.view.pygame_view import PygameDisplay\n"
        "try:\n    PygameDisplay()\nexcept DisplayUnavailable as error:\n    print(error)\n"
    )
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    )
    assert out.stdout == (
        "pygame is not installed: pip install 'pygame>=2.5' for the window, or use -t/-q for text\n"
    )


def test_the_cli_without_a_display_says_so_in_one_line_and_plays_in_text():
    if not sys.platform.startswith("linux"):
        pytest.skip("the DISPLAY check is Linux's")
    out = run_pacman_without_display(
        "-l", "smallClassic", "-p", "AlphaBetaAgent", "--max-moves", "3", "--frameTime", "0", "--seed", "1",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    warning = out.stderr.splitlines()
    assert len(warning) == 1
    assert warning[0].startswith(
        "pacman: cannot open a window: no display, DISPLAY and WAYLAND_DISPLAY are unset "
        "(use --web for a browser, -t or -q for text, --gif FILE to record)"
    )
    assert "Score:" in out.stdout and "%%%%%%%%%%%%%%%%%%%%" in out.stdout  # the text board


def test_a_display_that_cannot_be_reached_is_one_line_too():
    if not sys.platform.startswith("linux"):
        pytest.skip("X11 displays are Linux's here")
    env = env_without_display(DISPLAY=":87")  # no X server listens there
    code = (
        "from pacman.errors import DisplayUnavailable\n"
        "from pacman.view.pygame_view import PygameDisplay\n"
        "try:\n    PygameDisplay()\nexcept DisplayUnavailable as error:\n    print(error)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60
    )
    lines = out.stdout.splitlines()
    assert len(lines) == 1, out
    assert lines[0].startswith("cannot open a window: ")
    assert lines[0].endswith(" (use --web for a browser, -t or -q for text, --gif FILE to record)")
    assert ":87" in lines[0]  # SDL's words vary with its version; the display is always named


def test_without_a_display_the_keyboard_game_names_a_command_that_works():
    if not sys.platform.startswith("linux"):
        pytest.skip("the DISPLAY check is Linux's")
    expected = (
        "pacman: playing with the keyboard (-p KeyboardAgent, the default) needs a window, and "
        "none can be opened here (no display, DISPLAY and WAYLAND_DISPLAY are unset); to play "
        "in a browser instead: pacman --web -l smallClassic; to watch an agent play in text "
        "instead: pacman -p GreedyAgent -t -l smallClassic\n"
    )
    for asked in (["-l", "smallClassic"], ["-l", "smallClassic", "-t"]):
        out = run_pacman_without_display(*asked)
        assert (out.returncode, out.stdout, out.stderr) == (2, "", expected)
    suggested = expected.rstrip("\n").rpartition(": pacman ")[2].split()
    out = run_pacman_without_display(*suggested, "--frameTime", "0", "--max-moves", "2")
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout.startswith("%%%%%%%%%%%%%%%%%%%%\n")  # the text board
    assert "Game stopped after 2 Pac-Man moves" in out.stdout


def test_with_a_display_text_and_the_keyboard_game_say_to_leave_out_the_flag():
    out = subprocess.run(
        [sys.executable, "-m", "pacman", "-q"],
        capture_output=True,
        text=True,
        env=env_without_display(DISPLAY=":87"),
        timeout=120,
        cwd=ROOT,
    )
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (
        "pacman: playing with the keyboard (-p KeyboardAgent, the default) needs a window, which "
        "-q does not open: leave out -q to play yourself; to play in a browser instead: "
        "pacman --web -l mediumClassic; to watch an agent play in text "
        "instead: pacman -p GreedyAgent -t -l mediumClassic\n"
    )


def test_stepping_while_paused_is_not_a_turn_for_the_keyboard_agent(display):
    from agents.keyboard import KeyboardAgent

    state = GameState.initial(load_layout("smallClassic"), 2)
    display.initialize(state)
    player = KeyboardAgent(window=display)
    press(pygame.K_LEFT)
    press(pygame.K_LEFT, up=True)
    assert player.get_action(state) == "West"
    press(pygame.K_SPACE)
    press(pygame.K_RIGHT)  # one more move, please
    press(pygame.K_RIGHT, up=True)
    display.pump()
    assert display.paused and display.take_direction() is None
    assert player.get_action(state) == "West"  # still the way it was sent, not East
    waits = []
    display.idle = waits.append
    display.update(state.generate_successor(0, "West"), 0, "West")  # the step: no wait
    assert waits == []
    press(pygame.K_SPACE)
    press(pygame.K_RIGHT)  # playing again: Right is a turn
    assert display.take_direction() == "East" and not display.paused


CAUGHT_IN_THE_MIDDLE = """\
%%%%%%%%%%%%%%%%%%%%
%..................%
%..................%
%........PG........%
%..................%
%..................%
%%%%%%%%%%%%%%%%%%%%
"""


def test_the_game_over_box_leaves_the_agents_in_sight():
    state = GameState.initial(parse_layout(CAUGHT_IN_THE_MIDDLE)).generate_successor(0, "East")
    assert state.is_lose() and state.get_pacman_position() == (10, 3)
    boxed = drawing.render(state, zoom=0.5)
    plain = drawing.render(state, zoom=0.5, banner="")
    width, height = boxed.get_size()
    box = {
        (x, y)
        for x in range(width)
        for y in range(height)
        if boxed.get_at((x, y)) != plain.get_at((x, y))
    }
    geometry = drawing.fit((width, height), state.layout)
    maze_width, maze_height = geometry.maze_size
    assert len(box) > 20 * geometry.cell  # the box is drawn...
    assert all(x < maze_width and y < maze_height for x, y in box)  # ...over the maze
    half = geometry.cell // 2
    for position in (state.get_pacman_position(), *state.get_ghost_positions()):
        cx, cy = geometry.center(*position)
        agent = {(x, y) for x in range(cx - half, cx + half) for y in range(cy - half, cy + half)}
        assert not box & agent, position


@pytest.fixture
def answerable_window(monkeypatch):
    """A window that waits for an answer at the end, as a real one does; its clock is fake."""
    if os.environ.get("SDL_VIDEODRIVER") != "dummy":
        pytest.skip("these tests drive the window through SDL's dummy video driver")
    from pacman.view import pygame_view

    monkeypatch.setattr(pygame_view, "time", SteppingClock())
    window = PygameDisplay(zoom=0.5, frame_time=0.1)
    assert not window.waits_for_answer  # nobody could answer a dummy window: it does not wait
    window.waits_for_answer = True
    window.fps = 100_000  # the frame limiter need not sleep here
    pygame.event.clear()
    yield window
    window.close()


@pytest.mark.parametrize(
    "answer",
    [
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_n),
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=(5, 5)),
    ],
    ids=["key", "click"],
)
def test_the_final_board_stays_until_a_key_or_a_click(answerable_window, answer):
    window = answerable_window
    state = GameState.initial(parse_layout(CAUGHT_IN_THE_MIDDLE)).generate_successor(0, "East")
    window.initialize(state)
    frames = []
    real_idle = window.idle

    def idle(notice=""):
        frames.append(notice)
        real_idle(notice)
        if len(frames) == 300:  # long after the 1 s death animation of the fake clock
            pygame.event.post(answer)

    window.idle = idle
    press(pygame.K_LEFT)  # pressed while playing, before the end: not an answer
    window.finish(state, None)
    assert len(frames) == 301
    assert window.take_direction() is None


def test_a_frame_time_of_0_does_not_wait_at_the_end(answerable_window):
    window = answerable_window
    window.frame_time = 0.0
    state = GameState.initial(parse_layout(CAUGHT_IN_THE_MIDDLE)).generate_successor(0, "East")
    window.initialize(state)
    frames = []
    window.idle = frames.append
    window.finish(state, None)
    assert frames == []


@pytest.mark.parametrize(
    ("name", "zoom", "size"),
    [
        ("originalClassic", 1.5, (896, 902)),
        ("originalClassic", 1.0, (840, 846)),
        ("smallClassic", 1.0, (600, 246)),
    ],
)
def test_a_window_larger_than_the_screen_is_drawn_smaller(monkeypatch, display, name, zoom, size):
    monkeypatch.setattr(PygameDisplay, "_screen_size", lambda self: (1280, 1024))
    display.zoom = zoom
    assert display._window_size(load_layout(name)) == size
    assert size[0] <= 1280 * 0.9 and size[1] <= 1024 * 0.9
