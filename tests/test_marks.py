"""Agents' marks and the search overlay: the API, the game's notes, and the drawing function."""

from __future__ import annotations

import os

import pytest

import agents
from agents.evaluation import scoreEvaluationFunction
from agents.search import ALPHABETA, SearchConfig, search
from pacman.agent import Agent
from pacman.game import Game
from pacman.gametree import GameTree
from pacman.ghosts import RandomGhost
from pacman.layout import load_layout
from pacman.marks import MAX_CELLS, BoardNotes, drawing_of, pv_paths, read_color
from pacman.state import GameState

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


class Painter(Agent):
    """Marks the cell it stands on each move, clears on every third, and goes East if it can."""

    def __init__(self, index: int = 0) -> None:
        super().__init__(index)
        self.turn = 0

    def getAction(self, gameState):  # CS188's spelling, as a student writes it
        self.turn += 1
        if self.turn % 3 == 0:
            self.clearDrawing()
        self.drawCells([gameState.getPacmanPosition()], [0, 0, 1])
        legal = gameState.getLegalActions(0)
        return "East" if "East" in legal else legal[0]


class Listener:
    def __init__(self) -> None:
        self.marks: list[list] = []
        self.searches: list = []

    def annotate(self, notes: BoardNotes) -> None:
        self.marks.append(list(notes.marks))
        self.searches.append(notes.search)


def test_both_spellings_mark_and_clear_exact_cells():
    agent = Painter()
    agent.draw_cells([(1, 1), (2, 1)], (255, 0, 0))
    agent.drawCells([(2, 1)], "#00ff00")  # drawn again: newest, new colour
    agent.debugDraw([(3, 3)], [1, 1, 0])
    assert drawing_of(agent).items() == [
        ((1, 1), (255, 0, 0)),
        ((2, 1), (0, 255, 0)),
        ((3, 3), (255, 255, 0)),
    ]
    agent.draw_cells([(5, 5)], (0, 0, 255), clear=True)
    assert drawing_of(agent).items() == [((5, 5), (0, 0, 255))]
    agent.clearDrawing()
    assert drawing_of(agent).items() == []
    agent.debug_draw((4, 2), (9, 9, 9))  # one cell alone
    agent.debugClear()
    assert drawing_of(Painter()) is None  # an agent that never drew has nothing


def test_drawing_never_raises():
    agent = Painter()
    agent.draw_cells(None)
    agent.draw_cells([("a", 1), (1,), (2.4, 3.6), object()], color=object())
    agent.drawCells(iter([(1, 1)]), color=[float("nan")])
    assert drawing_of(agent).items() == [((2, 4), (255, 0, 0)), ((1, 1), (255, 0, 0))]
    agent.draw_cells([(x, 0) for x in range(MAX_CELLS + 5)])
    assert len(drawing_of(agent).cells) == MAX_CELLS

    class Slotted(Agent):
        __slots__ = ("index",)

    Slotted().draw_cells([(1, 1)])  # nowhere to keep marks: silently nothing


def test_colours_are_read_as_cs188_and_rgb_give_them():
    assert [read_color(c) for c in ([1, 0, 0], (0.5, 0.5, 0), (255, 128, 0), "#0a0b0c", "x")] == [
        (255, 0, 0),
        (128, 128, 0),
        (255, 128, 0),
        (10, 11, 12),
        (255, 0, 0),
    ]


def play(state: GameState, players: list, **options) -> object:
    """One game seeded as the runner seeds games, so its ghosts move alike every time."""
    return Game(state, players, **options).run()


def small_state(ghosts: int = 1) -> GameState:
    return GameState.initial(load_layout("minimaxClassic"), ghosts)


def test_the_game_hands_marks_to_observers_that_annotate():
    listener = Listener()
    state = small_state(1)
    play(state, [Painter(), RandomGhost(1)], observers=[listener], max_moves=4, seed=1)
    start = state.get_pacman_position()
    # Pac-Man's marks after its own moves 1, 2 (two cells), then cleared and one cell on move 3.
    blue = (0, 0, 255)
    assert listener.marks[0] == [(start, blue)]
    assert len(listener.marks[1]) == 2 and listener.marks[1][0] == (start, blue)
    assert len(listener.marks[2]) == 1
    assert listener.searches == [None] * len(listener.marks)


def test_nothing_is_sent_when_nothing_is_drawn_or_searched():
    listener = Listener()
    play(small_state(1), [agents.GreedyAgent(), RandomGhost(1)], observers=[listener],
         max_moves=5, seed=1)  # fmt: skip
    assert listener.marks == []


def test_search_agents_publish_root_values_and_the_principal_variation():
    listener = Listener()
    state = small_state(1)
    pacman = agents.AlphaBetaAgent(depth=2)
    play(state, [pacman, RandomGhost(1)], observers=[listener], max_moves=1, seed=1)
    first = listener.searches[0]
    assert first is not None and first == search(
        state, SearchConfig(ALPHABETA, 2), scoreEvaluationFunction
    )
    assert (first.action, first.values, first.pv, first.depth, first.nodes) == (
        "West",
        {"West": 8.0, "Stop": -2.0, "East": 8.0},
        ("West", "East", "Stop", "East"),
        2,
        48,
    )


def test_the_lecture_tree_search_result():
    tree = GameTree.from_fields(
        {
            "num_agents": "2",
            "start_state": "max",
            "win_states": "A B C D E F G H I",
            "successors": "\n".join(
                [f"max {a} min{i + 1}" for i, a in enumerate(["Left", "Center", "Right"])]
                + [f"min{i // 3 + 1} {'LCR'[i % 3]} {'ABCDEFGHI'[i]}" for i in range(9)]
            ),
            "evaluation": "A 3\nB 12\nC 8\nD 5\nE 4\nF 6\nG 14\nH 1\nI 11",
        }
    )
    result = search(tree.start, SearchConfig(ALPHABETA, 1), scoreEvaluationFunction)
    # Right's 1 is a bound: alpha-beta stopped at H once min3 could not beat 4.
    assert result.values == {"Left": 3, "Center": 4, "Right": 1}
    assert result.pv == ("Center", "C")


def test_pv_paths_follow_the_real_game():
    state = small_state(1)
    x, y = state.get_pacman_position()
    gx, gy = state.get_ghost_position(1)
    assert pv_paths(state, ("West", "East", "Stop")) == [
        [[x, y], [x - 1, y], [x - 1, y]],
        [[gx, gy], [gx + 1, gy]],
    ]
    # Pac-Man's North is a wall there: the paths end where the line cannot be played.
    assert pv_paths(state, ("West", "North", "North", "East")) == [
        [[x, y], [x - 1, y]],
        [[gx, gy], [gx, gy + 1]],
    ]
    assert pv_paths(None, ("West",)) == []


# ----------------------------------------------------------------- the drawing function

pygame = pytest.importorskip("pygame")
draw = pytest.importorskip("pacman.view.draw")


def test_marks_are_drawn_on_exactly_their_cells():
    state = small_state(1)
    surface = draw.render(state)
    geometry = draw.fit(surface.get_size(), state.layout)
    marks = [((1, 1), (0, 200, 0)), ((50, 50), (1, 2, 3)), ((3, 2), (200, 0, 200))]
    assert draw.draw_marks(surface, geometry, marks) == [(1, 1), (3, 2)]
    for (x, y), color in marks[::2]:
        cx, cy = geometry.center(x, y)
        corner = (cx - geometry.cell // 2, cy - geometry.cell // 2)
        assert tuple(surface.get_at(corner))[:3] == color  # the solid border


def test_the_overlay_puts_each_value_beside_pacman_and_draws_the_pv():
    state = small_state(1)
    result = search(state, SearchConfig(ALPHABETA, 2), scoreEvaluationFunction)
    notes = BoardNotes([], result, state)
    surface = draw.render(state)
    geometry = draw.fit(surface.get_size(), state.layout)
    x, y = state.get_pacman_position()
    assert draw.draw_overlay(surface, geometry, notes, draw.CLASSIC) == {
        "West": (x - 1, y),
        "Stop": (x, y),
        "East": (x + 1, y),
    }
    # The PV's first step, West, then back East: the thick line passes half way between.
    cx, cy = geometry.center(x - 0.5, y)
    assert (
        tuple(surface.get_at((cx, cy - 1)))[:3] == draw.PV_COLOR
        or tuple(surface.get_at((cx, cy)))[:3] == draw.PV_COLOR
    )
    assert draw.draw_overlay(surface, geometry, BoardNotes(), draw.CLASSIC) == {}


def test_draw_shows_depth_and_nodes_only_with_the_overlay():
    state = small_state(1)
    notes = BoardNotes(
        [((1, 1), (0, 255, 0))],
        search(state, SearchConfig(depth=2), scoreEvaluationFunction),
        state,
    )
    plain = draw.render(state, caption="A")
    marked = draw.render(state, caption="A", notes=notes)
    shown = draw.render(state, caption="A", notes=notes, overlay=True)
    geometry = draw.fit(plain.get_size(), state.layout)
    bar = pygame.Rect(0, geometry.top + geometry.maze_size[1], *plain.get_size())
    bar.height = geometry.bar_height
    assert pygame.image.tobytes(plain.subsurface(bar), "RGB") == pygame.image.tobytes(
        marked.subsurface(bar), "RGB"
    )
    assert pygame.image.tobytes(plain.subsurface(bar), "RGB") != pygame.image.tobytes(
        shown.subsurface(bar), "RGB"
    )
    cx, cy = geometry.center(1, 1)
    corner = (cx - geometry.cell // 2, cy - geometry.cell // 2)
    assert tuple(marked.get_at(corner))[:3] == (0, 255, 0)
    assert tuple(plain.get_at(corner))[:3] != (0, 255, 0)


def test_the_v_key_toggles_the_overlay_in_the_window():
    if os.environ.get("SDL_VIDEODRIVER") != "dummy":
        pytest.skip("drives the window through SDL's dummy video driver")
    from pacman.view.pygame_view import PygameDisplay

    window = PygameDisplay(frame_time=0.0, hold=0)
    try:
        assert window.show_values is False
        state = small_state(1)
        window.initialize(state)
        window.annotate(
            BoardNotes([], search(state, SearchConfig(depth=1), scoreEvaluationFunction), state)
        )
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_v))
        window.pump()
        assert window.show_values is True
        surface = pygame.display.get_surface()
        geometry = draw.fit(surface.get_size(), state.layout)
        x, y = state.get_pacman_position()
        cx, cy = geometry.center(x - 0.5, y)
        column = {tuple(surface.get_at((cx, cy + dy)))[:3] for dy in range(-3, 4)}
        assert draw.PV_COLOR in column
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_v))
        window.pump()
        assert window.show_values is False
    finally:
        window.close()


def test_frames_draw_marks_and_with_values_the_overlay(tmp_path):
    from pacman.view.frames import FrameRecorder

    state = small_state(1)
    recorder = FrameRecorder(frames_dir=tmp_path, values=True)
    play(state, [Painter(), RandomGhost(1)], observers=[recorder], max_moves=1, seed=1)
    first = pygame.image.load(str(recorder.written[0]))
    geometry = draw.fit(first.get_size(), state.layout)
    x, y = state.get_pacman_position()
    cx, cy = geometry.center(x, y)
    assert tuple(first.get_at((cx - geometry.cell // 2, cy - geometry.cell // 2)))[:3] == (
        0,
        0,
        255,
    )


class Garbled(Painter):
    """Publishes a last_result of no known shape: infinities, NaN, a PV that is a number."""

    def getAction(self, gameState):
        from types import SimpleNamespace

        self.last_result = SimpleNamespace(
            action=3, values={"West": float("inf"), "East": float("nan"), "Stop": "x"}, pv=7
        )
        return super().getAction(gameState)


def test_a_garbled_search_result_never_breaks_a_game_or_its_pictures(tmp_path):
    from pacman.view.frames import FrameRecorder
    from pacman.view.html import embedded_data
    from pacman.view.html_replay import HtmlReplay

    state = small_state(1)
    pages = HtmlReplay(tmp_path / "g.html")
    frames = FrameRecorder(frames_dir=tmp_path / "f", values=True)
    result = play(state, [Garbled(), RandomGhost(1)], observers=[pages, frames], max_moves=2,
                  seed=1)  # fmt: skip
    assert not result.crashed and len(frames.written) == result.moves
    notes = embedded_data(pages.written[0].read_text(), "replay-data")["notes"]
    assert notes[0]["search"] == {
        "action": None,
        "pv": [],
        "values": {"West": None, "East": None, "Stop": None},
        "depth": None,
        "nodes": None,
        "paths": [],
    }
