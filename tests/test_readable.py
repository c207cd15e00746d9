"""Readable at every size: values shortened and placed by one set of rules, windows of small
layouts 600 pixels wide with no text over another (under Xvfb), trees' silent cases said."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import agents
from pacman.cli import main
from pacman.layout import load_layout
from pacman.state import GameState
from pacman.view.labels import label_texts, place_labels, short_value
from pacman.view.searchtree import observe

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("value", "text"),
    [(1234.56, "1.2k"), (-5514, "-5.5k"), (-461, "-461"), (3.25, "3.2"), (12345, "12k"),
     (999.4, "999"), (999.6, "1k"), (-2.5e6, "-2.5M"), (float("inf"), "+inf"), (None, "?")],
)  # fmt: skip
def test_values_are_shortened_to_a_few_characters(value, text):
    assert short_value(value) == text


def test_a_label_is_its_initial_and_value_then_the_value_then_the_value_shortened():
    assert label_texts("East", -5514) == ["E -5514", "-5514", "-5.5k"]
    assert label_texts("Stop", -461) == ["Stop -461", "-461"]


class _Geometry:
    """A maze of 30-pixel cells at the surface's corner, as canvas.Geometry places it."""

    def __init__(self, layout, cell=30):
        self.cell, self.left, self.top = cell, 0, 0
        self.columns, self.rows = layout.width, layout.height
        self.maze_size = (layout.width * cell, layout.height * cell)

    def center(self, x, y):
        return round((x + 0.5) * self.cell), round((self.rows - 1 - y + 0.5) * self.cell)


def _overlap(a, b):
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_labels_stay_in_the_maze_apart_and_off_the_agents_on_minimax_classic():
    from pacman.view.labels import label_gap

    layout = load_layout("minimaxClassic")
    state = GameState.initial(layout)
    geometry = _Geometry(layout)
    walls = layout.walls.data
    values = {"West": -5514.25, "Stop": -461.5, "East": 1234.56}
    agents_at = [state.get_pacman_position(), *state.get_ghost_positions()]
    labels = place_labels(
        values, state.get_pacman_position(), geometry, lambda x, y: walls[x][y], agents_at,
        lambda text, size: (round(len(text) * size * 0.55), round(size * 0.7)),
    )  # fmt: skip
    assert [label.action for label in labels] == ["West", "Stop", "East"]
    gap = label_gap(30)
    bodies = [(x * 30 + 1, (4 - y) * 30 + 1, 28, 28) for x, y in agents_at]  # 0.46 of a cell
    for index, label in enumerate(labels):
        x, y, w, h = label.box
        assert min(x, y) >= 0 and x + w <= 9 * 30 and y + h <= 5 * 30
        spaced = (x - gap, y - gap, w + 2 * gap, h + 2 * gap)
        assert not any(_overlap(spaced, other.box) for other in labels[index + 1 :])
        assert not any(_overlap(label.box, body) for body in bodies), label
    assert [(label.text, label.size, label.box) for label in labels] == [
        ("W -5514", 21, (3, 7, 85, 17)),  # a ghost on the cell and beside it: the cell above
        ("Stop -462", 21, (21, 67, 108, 17)),  # under Pac-Man's cell
        ("E 1235", 21, (99, 37, 73, 17)),  # East: a corridor, room for it all
    ]


def test_reflex_agent_of_a_cs188_student_draws_its_move_scores():
    class StudentReflex:  # CS188's ReflexAgent shape: no last_result, a (state, action) score
        def getAction(self, gameState):
            legal = gameState.getLegalActions()
            scores = [self.evaluationFunction(gameState, action) for action in legal]
            return legal[scores.index(max(scores))]

        def evaluationFunction(self, currentGameState, action):
            return currentGameState.generatePacmanSuccessor(action).getScore() + len(action)

    state = GameState.initial(load_layout("minimaxClassic"))
    tree = observe(StudentReflex(), state)
    assert tree.root_values() == {"West": 13.0, "Stop": 3.0, "East": 3.0}
    assert (tree.action, tree.root.value) == ("West", 13.0)
    assert [node.leaf for node in tree] == [False, True, True, True]


def test_mcts_replies_are_named_by_the_ghosts_actions():
    import random

    state = GameState.initial(load_layout("minimaxClassic"))
    tree = observe(agents.MCTSAgent(simulations=30, rng=random.Random(3)), state)
    replies = {node.action for node in tree if node.ply == 2}
    moves = {"N", "S", "E", "W", "-"}
    assert replies and all(set(reply.split()) <= moves for reply in replies)
    assert all(len(reply.split()) == 3 for reply in replies)  # minimaxClassic's three ghosts


def test_move_without_replay_is_refused_in_one_line(capsys):
    assert main(["tree", "--move", "3"]) == 2
    assert capsys.readouterr().err == (
        "pacman tree: --move 3: only with --replay FILE (a recorded game's position before "
        "Pac-Man's move N)\n"
    )


def test_an_algorithm_that_is_not_the_agent_s_is_said_on_the_page(tmp_path, capsys):
    from pacman.view.html import embedded_data

    page = tmp_path / "tree.html"
    assert main(["tree", "-p", "AlphaBetaAgent", "--algorithm", "expectimax", "--html",
                 str(page)]) == 0  # fmt: skip
    note = (
        "drawn as expectimax, but AlphaBetaAgent searches with alphabeta: the values are "
        "backed up as expectimax would back them up, not as the agent computed them"
    )
    assert f"pacman tree: warning: {note}\n" in capsys.readouterr().err
    assert embedded_data(page.read_text(), "tree-data")["note"] == note
    assert main(["tree", "-p", "AlphaBetaAgent", "--algorithm", "alphabeta", "--html",
                 str(page)]) == 0  # fmt: skip
    assert "note" not in embedded_data(page.read_text(), "tree-data")


WINDOWS = """
import json, math, os, random, sys
from pacman.view.pygame_view import PygameDisplay
from pacman.view.canvas import fit, get_font
from pacman.view.labels import AGENT_REACH
from pacman.game import Game
from pacman.ghosts import RandomGhost
from pacman.layout import load_layout
from pacman.state import GameState
from agents import AlphaBetaAgent

found = {}
for name in sys.argv[2:]:
    layout = load_layout(name)
    state = GameState.initial(layout, min(4, layout.num_ghosts))
    ghosts = [RandomGhost(i, rng=random.Random(i)) for i in range(1, state.get_num_agents())]
    window = PygameDisplay(frame_time=0.0, hold=0, values=True, agent_name="AlphaBetaAgent")
    Game(state, [AlphaBetaAgent(depth=2), *ghosts], observers=[window], seed=3,
         max_moves=3).run()
    size = window._pygame.display.get_surface().get_size()
    cell = fit(size, layout).cell
    for paused in (False, True):
        window._paused = paused
        suffix = "-paused" if paused else ""
        window.screenshot(os.path.join(sys.argv[1], f"window-{name}{suffix}.png"))
        # Each agent's body where it is and where it came from (the window slides it between).
        geometry, bodies = fit(size, layout), []
        final = window._state
        for index in range(final.get_num_agents()):
            agent = final.get_pacman_state() if index == 0 else final.get_ghost_state(index)
            (x, y), heading = agent.get_position(), agent.get_direction()
            step = {"North": (0, 1), "South": (0, -1), "East": (1, 0), "West": (-1, 0)}
            dx, dy = step.get(heading, (0, 0))
            for at in {(x, y), (x - dx, y - dy)}:
                cx, cy = geometry.center(*at)
                half = math.ceil(cell * AGENT_REACH)
                bodies.append([cx - half, cy - half, 2 * half, 2 * half])
        found[name + suffix] = {
            "size": size, "cell": cell, "bodies": bodies,
            "boxes": [[t, list(b)] for t, b in window.text_boxes],
        }
    window.close()
print(json.dumps(found))
"""


def _labels(boxes):
    """The value labels of the texts the window drew: they come first, then the banner (if
    any), the score and the caption."""
    texts = [text for text, _ in boxes]
    return boxes[: texts.index("PAUSED") if "PAUSED" in texts else len(texts) - 2]


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="no Xvfb here (apt-get install xvfb)")
def test_windows_of_small_and_large_layouts_at_1280_by_1024_keep_their_text_apart(tmp_path):
    from pacman.view.canvas import get_font
    from pacman.view.labels import SMALLEST_LABEL, label_gap

    folder = Path(os.environ.get("PACMAN_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    layouts = ["testClassic", "minimaxClassic", "originalClassic"]
    env = {k: v for k, v in os.environ.items() if k not in ("SDL_VIDEODRIVER", "DISPLAY")}
    done = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", sys.executable, "-c", WINDOWS,
         str(folder), *layouts],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    smallest = get_font(SMALLEST_LABEL).size("0")[1]  # the smallest letters' line, in pixels
    for name in [f"{layout}{suffix}" for layout in layouts for suffix in ("", "-paused")]:
        (width, height), boxes = found[name]["size"], found[name]["boxes"]
        assert 600 <= width <= 1280 * 0.9 and height <= 1024 * 0.9
        texts = [text for text, _ in boxes]
        assert texts[-2].startswith("SCORE")
        assert texts[-1].endswith("nodes")  # the caption keeps its end: the search's numbers
        labels = _labels(boxes)
        assert len(labels) >= 2  # the values too, with V on
        for index, (text, (x, y, w, h)) in enumerate(boxes):
            assert min(x, y) >= 0 and x + w <= width and y + h <= height, text
            assert h >= smallest, (name, text, h)  # no letters smaller than the values' smallest
            for other, box in boxes[index + 1 :]:
                assert not _overlap((x, y, w, h), box), (text, other)
        gap = label_gap(found[name]["cell"])
        for index, (text, (x, y, w, h)) in enumerate(labels):
            spaced = (x - gap, y - gap, w + 2 * gap, h + 2 * gap)
            assert not any(_overlap(spaced, box) for _, box in labels[index + 1 :]), text
            assert not any(_overlap((x, y, w, h), body) for body in found[name]["bodies"]), text
    assert found["minimaxClassic-paused"]["boxes"][-3][0] == "PAUSED"
    assert "space resumes, right arrow steps" in found["minimaxClassic-paused"]["boxes"][-1][0]
    assert found["minimaxClassic"]["size"] == [603, 415]
    assert found["testClassic"]["size"][0] == 600


def test_the_smallest_letters_drawn_have_capitals_10_pixels_tall():
    from pacman.view.canvas import get_font
    from pacman.view.labels import SMALLEST_LABEL, label_sizes

    capital = get_font(SMALLEST_LABEL).render("W", True, (255, 255, 255)).get_bounding_rect()
    assert capital.height == 10  # pygame's default font at 21: capitals 10 pixels tall
    assert all(min(label_sizes(cell)) == SMALLEST_LABEL for cell in (8, 15, 30, 67, 120))
