"""FrameRecorder: GIFs and PNGs of a game, with no window."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from short_games import run_pacman_without_display, small_game

from pacman.errors import PacmanError, UsageError
from pacman.layout import load_layout
from pacman.state import GameState

pygame = pytest.importorskip("pygame")
Image = pytest.importorskip("PIL.Image")
drawing = pytest.importorskip("pacman.view.draw")
from pacman.view.frames import FrameRecorder, gif_palette  # noqa: E402

#: The checkout, so child processes import this tree's packages.
ROOT = Path(__file__).resolve().parents[1]


def play(recorder, pacman_moves=5, layout="smallClassic"):
    return small_game([recorder], pacman_moves, layout).run()


def pixels(image):
    flat = getattr(image, "get_flattened_data", None)  # Pillow 12+; getdata before
    return flat() if flat is not None else image.getdata()


def gif_frames(path):
    with Image.open(path) as image:
        frames = []
        for index in range(image.n_frames):
            image.seek(index)
            frames.append((image.convert("RGB"), image.info.get("duration")))
        return frames


def test_a_gif_has_one_frame_per_move(tmp_path):
    path = tmp_path / "game.gif"
    recorder = FrameRecorder(gif=path, zoom=0.5, frame_time=0.05)
    result = play(recorder)
    assert result.moves == 15
    frames = gif_frames(path)
    assert len(frames) == recorder.frames == result.moves
    assert recorder.written == [path]
    layout = load_layout("smallClassic")
    assert all(image.size == drawing.frame_size(layout, 0.5) == (300, 123) for image, _ in frames)
    assert [duration for _, duration in frames] == [50] * 14 + [2000]


def test_the_last_gif_frame_is_the_final_state_in_exact_colours(tmp_path):
    path = tmp_path / "game.gif"
    result = play(FrameRecorder(gif=path))
    last, _ = gif_frames(path)[-1]
    expected = drawing.render(result.final_state, caption="move 15", mouth=0.3)
    theme = drawing.CLASSIC
    geometry = drawing.fit(expected.get_size(), result.final_state.layout)
    cell = geometry.cell
    x, y = result.final_state.get_pacman_position()
    points = {
        "wall": geometry.center(0, 0),
        "food": geometry.center(1, 1),
        "pacman": geometry.center(x - 0.25, y)
        if result.final_state.get_pacman_state().get_direction() == "East"
        else geometry.center(x, y),
    }
    colours = {name: last.getpixel(point) for name, point in points.items()}
    assert colours == {"wall": theme.wall_fill, "food": theme.food, "pacman": theme.pacman}
    gx, gy = result.final_state.get_ghost_position(1)
    ghost = geometry.center(gx, gy)
    assert last.getpixel((ghost[0], ghost[1] + round(0.18 * cell))) == theme.ghost_color(1)
    # The whole frame matches the drawing, pixel for pixel, wherever the drawing uses a theme colour.
    palette = set(gif_palette(theme))
    raw = pygame.image.tobytes(expected, "RGB")
    drawn = Image.frombytes("RGB", expected.get_size(), raw)
    differ = sum(
        1 for a, b in zip(pixels(drawn), pixels(last), strict=True) if a != b and a in palette
    )
    assert differ == 0


@pytest.mark.parametrize(("skip", "expected"), [(1, 15), (2, 8), (3, 5), (4, 4), (20, 1)])
def test_frame_skip_keeps_every_kth_move_and_the_last(tmp_path, skip, expected):
    path = tmp_path / "game.gif"
    recorder = FrameRecorder(gif=path, zoom=0.25, frame_skip=skip)
    result = play(recorder)
    assert len(gif_frames(path)) == expected == math.ceil(result.moves / skip)
    assert recorder.expected_frames(result.moves) == expected


def test_png_frames_are_named_by_game_and_move(tmp_path):
    recorder = FrameRecorder(frames_dir=tmp_path / "frames", zoom=0.25, frame_skip=4)
    play(recorder)
    names = sorted(path.name for path in (tmp_path / "frames").iterdir())
    assert names == [
        "game1_move00004.png",
        "game1_move00008.png",
        "game1_move00012.png",
        "game1_move00015.png",
    ]
    assert [path.name for path in recorder.written] == names
    size = drawing.frame_size(load_layout("smallClassic"), 0.25)
    assert pygame.image.load(str(recorder.written[0])).get_size() == size


def test_a_second_game_goes_to_a_numbered_gif(tmp_path):
    recorder = FrameRecorder(gif=tmp_path / "run.gif", zoom=0.25)
    play(recorder, pacman_moves=1)
    play(recorder, pacman_moves=2)
    assert [path.name for path in recorder.written] == ["run.gif", "run-2.gif"]
    assert len(gif_frames(tmp_path / "run.gif")) == 3
    assert len(gif_frames(tmp_path / "run-2.gif")) == 6


def test_a_game_stopped_half_way_leaves_a_playable_gif(tmp_path):
    path = tmp_path / "cut.gif"
    recorder = FrameRecorder(gif=path, zoom=0.25)
    state = GameState.initial(load_layout("smallClassic"), 2)
    recorder.initialize(state)
    for _ in range(3):
        state = state.generate_successor(0, "East")
        recorder.update(state, 0, "East")
    # No finish(): the window was closed, say. The file on disk is still a whole GIF.
    assert len(gif_frames(path)) == 3
    recorder.close()
    assert [duration for _, duration in gif_frames(path)] == [100, 100, 2000]


def test_bad_arguments_are_usage_errors():
    with pytest.raises(UsageError, match="needs a GIF file"):
        FrameRecorder()
    with pytest.raises(UsageError, match="frame skip must be 1 or more, not 0"):
        FrameRecorder(gif="x.gif", frame_skip=0)


def test_missing_pillow_is_one_line_with_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(PacmanError) as caught:
        FrameRecorder(gif="x.gif")
    assert str(caught.value) == "writing a GIF needs Pillow: pip install 'pillow>=10' 'pygame>=2.5'"


def test_recording_needs_no_display(tmp_path):
    code = (
        "import os, random\n"
        "for name in ('DISPLAY', 'WAYLAND_DISPLAY', 'SDL_VIDEODRIVER'): os.environ.pop(name, None)\n"
        "from pacman.agent import Agent\n"
        "from pacman.game import run_game\n"
        "from pacman.ghosts import RandomGhost\n"
        "from pacman.view.frames import FrameRecorder\n"
        "class Stay(Agent):\n"
        "    def get_action(self, state): return 'Stop'\n"
        f"recorder = FrameRecorder(gif={str(tmp_path / 'headless.gif')!r}, zoom=0.25)\n"
        "run_game('smallClassic', Stay(), [RandomGhost(1, rng=random.Random(0))],"
        " observers=[recorder], max_moves=3)\n"
        "print(recorder.frames)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout == "6\n"
    assert len(gif_frames(tmp_path / "headless.gif")) == 6


def test_the_cli_records_a_gif_headless_with_one_frame_per_move(tmp_path):
    path = tmp_path / "cli.gif"
    out = run_pacman_without_display(
        "-l", "smallClassic", "-p", "GreedyAgent", "-k", "2",
        "-q", "--seed", "3", "--max-moves", "4", "--gif", str(path), "-z", "0.5",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    assert "Game stopped after 4 Pac-Man moves" in out.stdout
    frames = gif_frames(path)
    assert len(frames) == 4 * 3
    assert frames[0][0].size == (300, 123)
