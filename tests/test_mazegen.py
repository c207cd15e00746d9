"""Generated layouts: valid, connected, the same for a seed; ``random:`` names and --save-layout.

``PACMAN_MAZEGEN_SEEDS=10000 python -m pytest tests/test_mazegen.py -k seeds`` checks 10,000
seeds (about a minute); the suite checks 300.
"""

from __future__ import annotations

import os
import random
from collections import deque

import pytest

from pacman.cli import main
from pacman.errors import LayoutError
from pacman.ghosts import RandomGhost
from pacman.layout import load_layout, parse_layout
from pacman.mazegen import board_draw, generate, parse_spec
from pacman.state import GameState

SEEDS = int(os.environ.get("PACMAN_MAZEGEN_SEEDS", "300"))


def _arguments(seed: int) -> dict:
    """A spread of sizes and contents, decided by the seed."""
    picker = random.Random(seed)
    width, height = picker.randint(5, 40), picker.randint(5, 30)
    # At most an eighth of the inside each: a 5x5 board has only 8 open cells.
    most = min(4, (width - 2) * (height - 2) // 8)
    return {
        "width": width,
        "height": height,
        "ghosts": picker.randint(0, most),
        "capsules": picker.randint(0, most),
        "food": picker.choice([0.1, 0.5, 1.0]),
    }


def _check_board(layout, arguments: dict) -> None:
    """Size, border, counts, one connected region with no dead end, and a playable game."""
    assert (layout.width, layout.height) == (arguments["width"], arguments["height"])
    assert layout.num_ghosts == arguments["ghosts"]
    assert len(layout.capsules) == arguments["capsules"]
    assert layout.food_positions
    walls = layout.walls.data
    open_cells = {
        (x, y) for x in range(layout.width) for y in range(layout.height) if not walls[x][y]
    }
    start = layout.agent_positions[0][1]
    reached, frontier = {start}, deque([start])
    while frontier:
        x, y = frontier.popleft()
        exits = [c for c in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)) if c in open_cells]
        assert len(exits) >= 2, ("dead end", (x, y))
        for cell in exits:
            if cell not in reached:
                reached.add(cell)
                frontier.append(cell)
    assert reached == open_cells  # so every food, capsule and ghost is reachable
    # The object engine plays it: random Pac-Man and ghosts until the end or 300 moves.
    rng = random.Random(0)
    state = GameState.initial(layout)
    ghosts = [RandomGhost(i, rng=rng) for i in range(1, state.get_num_agents())]
    for _ in range(300):
        legal = state.get_legal_actions(0)
        state = state.generate_successor(0, legal[int(rng.random() * len(legal))])
        for ghost in ghosts:
            if state.is_terminal():
                break
            state = state.generate_successor(ghost.index, ghost.get_action(state))
        if state.is_terminal():
            break


def test_seeds_give_connected_valid_layouts_that_the_engine_plays():
    for seed in range(SEEDS):
        arguments = _arguments(seed)
        layout = generate(**arguments, seed=seed)
        _check_board(layout, arguments)
        # What the generator writes is a layout file that parses back to the same board.
        again = parse_layout(str(layout), name=layout.name)
        assert again.rows == layout.rows and again.agent_positions == layout.agent_positions


def test_the_same_seed_gives_the_same_board_and_names_it():
    first = generate(20, 11, ghosts=2, capsules=2, seed=42)
    assert first.name == "random:20x11,seed=42"
    assert first.rows == generate(20, 11, 2, 2, seed=42).rows
    assert first.rows != generate(20, 11, 2, 2, seed=43).rows
    assert load_layout("random:20x11,seed=42").rows == first.rows
    named = generate(9, 7, ghosts=1, capsules=0, food=0.5, seed=3)
    assert named.name == "random:9x7,seed=3,ghosts=1,capsules=0,food=0.5"
    assert load_layout(named.name).rows == named.rows


def test_a_spec_without_a_seed_names_the_board_it_drew():
    layout = load_layout("random:15x9")
    assert layout.name.startswith("random:15x9,seed=")
    assert load_layout(layout.name).rows == layout.rows
    draw = board_draw("random:15x9,ghosts=3")
    assert draw is not None and draw(5).rows == generate(15, 9, 3, seed=5).rows
    assert board_draw("random:15x9,seed=1") is None and board_draw("smallClassic") is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("random:20", "layout spec 'random:20': size '20' must be WIDTHxHEIGHT, e.g. random:20x11"),
        ("random:4x9", "layout spec 'random:4x9': width 4 is out of range 5 to 100"),
        ("random:9x101", "layout spec 'random:9x101': height 101 is out of range 5 to 100"),
        (
            "random:9x9,seeds=1",
            "layout spec 'random:9x9,seeds=1': bad option 'seeds=1' "
            "(give each of seed=, ghosts=, capsules=, food= at most once)",
        ),
        (
            "random:9x9,ghosts=11",
            "layout spec 'random:9x9,ghosts=11': ghosts=11 is out of range 0 to 10",
        ),
        (
            "random:9x9,food=2",
            "layout spec 'random:9x9,food=2': food=2 must be a fraction of the free cells, "
            "above 0 and up to 1",
        ),
        ("random:9x9,seed=x", "layout spec 'random:9x9,seed=x': seed='x' is not a whole number"),
        ("random:9x9,food=x", "layout spec 'random:9x9,food=x': food='x' is not a number"),
        (
            "random:" + "9" * 5000 + "x11",
            "layout spec 'random:" + "9" * 53 + "'... (5010 characters): "
            "width of 5000 digits is out of range 5 to 100",
        ),
        (
            "random:9x9,seed=" + "1" * 5000,
            "layout spec 'random:9x9,seed=" + "1" * 44 + "'... (5016 characters): "
            "seed= has more than 30 characters",
        ),
        ("random:9x9,seed=-1", "layout spec 'random:9x9,seed=-1': seed=-1 must be 0 or more"),
        (
            "random:5x5,ghosts=10,capsules=10",
            "random:5x5,seed=0,ghosts=10,capsules=10: the board has 8 open cells, fewer than the "
            "22 that Pac-Man, 10 ghosts, 10 capsules and one food need",
        ),
    ],
)
def test_bad_specs_are_one_line_layout_errors(spec, message):
    with pytest.raises(LayoutError) as caught:
        parse_spec(spec).board(0)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_the_cli_plays_a_spec_saves_it_and_replays_it_from_the_file(capsys, tmp_path):
    saved = tmp_path / "board.lay"
    common = ["-p", "GreedyAgent", "-q", "-n", "3", "--seed", "7"]
    assert main(["-l", "random:20x11,seed=4", *common, "--save-layout", str(saved)]) == 0
    from_spec = capsys.readouterr().out
    assert saved.read_text() == str(generate(20, 11, seed=4)) + "\n"
    assert main(["-l", str(saved), *common]) == 0
    assert capsys.readouterr().out == from_spec


def test_a_spec_without_seed_is_one_board_for_every_worker(capsys, tmp_path):
    saved = tmp_path / "drawn.lay"
    common = ["-p", "GreedyAgent", "-q", "-n", "4", "--seed", "2"]
    assert main(["-l", "random:14x9", *common, "--jobs", "2", "--save-layout", str(saved)]) == 0
    drawn = capsys.readouterr().out
    assert main(["-l", str(saved), *common]) == 0
    assert capsys.readouterr().out == drawn


def test_cli_mistakes_are_one_line_and_exit_2(capsys, tmp_path):
    assert main(["-l", "random:20x3", "-q", "-p", "GreedyAgent"]) == 2
    _, err = capsys.readouterr()
    assert err == "pacman: layout spec 'random:20x3': height 3 is out of range 5 to 100\n"
    missing = tmp_path / "no" / "such.lay"
    args = ["-l", "random:9x9", "-q", "-p", "GreedyAgent", "--save-layout", str(missing)]
    assert main(args) == 2
    _, err = capsys.readouterr()
    assert err == f"pacman: --save-layout {missing}: cannot write (No such file or directory)\n"


def test_pacman_env_draws_a_new_board_each_episode_the_same_for_a_seed():
    gym = pytest.importorskip("gymnasium")
    env = gym.make("pacman.envs:Pacman-v0", layout="random:13x9", observation="features")

    def board(seed: int | None = None) -> str:
        env.reset(seed=seed)
        return env.unwrapped.layout.name

    first = [board(5), board(), board()]
    assert len(set(first)) == 3 and all(name.startswith("random:13x9,seed=") for name in first)
    assert [board(5), board(), board()] == first
    assert env.observation_space.shape == (50,)
