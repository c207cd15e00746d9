"""The same seed gives the same games for any agent, in every way a batch runs.

CS188 students' agents break ties with Python's ``random`` module, and CS188's own
``ghostAgents.RandomGhost`` draws from it too: a course folder's games must repeat under
``--seed`` exactly as the project's agents' do, serially, with ``--jobs``, on Dask, alone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pacman import run_game

#: A student's agent: random among the legal moves but Stop, drawn from ``random``.
COURSE_AGENT = """import random

from game import Agent


class TieBreakAgent(Agent):
    def getAction(self, gameState):
        moves = [move for move in gameState.getLegalActions(self.index) if move != "Stop"]
        return random.choice(moves)
"""

#: A ghost as a course ships it: its own class, drawing from the module ``random``.
COURSE_GHOST = """import random

from game import Agent


class RandomGhost(Agent):
    def __init__(self, index):
        self.index = index

    def getAction(self, state):
        return random.choice(state.getLegalActions(self.index))
"""


@pytest.fixture
def course(tmp_path: Path) -> Path:
    (tmp_path / "myAgents.py").write_text(COURSE_AGENT)
    (tmp_path / "ghostAgents.py").write_text(COURSE_GHOST)
    return tmp_path


def _games(course: Path, *flags: str) -> list[tuple[float, int, bool]]:
    out = course / f"games{len(list(course.glob('games*.jsonl')))}.jsonl"
    command = [sys.executable, "-m", "pacman", "-l", "smallClassic", "-q", "-n", "4"]
    command += ["-p", "TieBreakAgent", "-g", "RandomGhost", "--seed", "7", "--json", str(out)]
    done = subprocess.run(
        [*command, *flags], cwd=course, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    return [(record["score"], record["moves"], record["win"]) for record in records]


def test_a_course_folders_random_agents_repeat_under_a_seed_in_every_mode(course):
    serial = _games(course)
    assert len(set(serial)) > 1, serial  # four different games, not one repeated
    assert _games(course) == serial
    assert _games(course, "--jobs", "2") == serial
    pytest.importorskip("distributed")
    assert _games(course, "--scheduler", "local", "--jobs", "2") == serial


def test_any_game_of_a_batch_replays_alone(course):
    batch = _games(course)
    # Game i of a batch seeded S is the one game seeded S + i.
    alone = _games(course, "-n", "1", "--seed", "9")
    assert alone == [batch[2]]


def test_run_game_with_a_seed_repeats_for_agents_that_draw_from_random(monkeypatch, course):
    monkeypatch.chdir(course)
    from pacman.loading import find_class

    agent_class = find_class("TieBreakAgent")
    ghost_class = find_class("RandomGhost", "ghost")

    def once(seed: int) -> tuple[float, int]:
        ghosts = [ghost_class(1), ghost_class(2)]
        result = run_game("smallClassic", agent_class(), ghosts, seed=seed)
        return result.score, result.moves

    first = once(1)
    assert [once(1), once(1)] == [first, first]
    assert once(2) != first


def test_search_statistics_are_per_game_serially_and_in_parallel(tmp_path):
    def stats(*flags: str) -> list[dict]:
        out = tmp_path / f"stats{len(flags)}.jsonl"
        command = [sys.executable, "-m", "pacman", "-l", "smallClassic", "-q", "-n", "3"]
        command += ["-p", "AlphaBetaAgent", "-a", "depth=2", "--seed", "3", "--max-moves", "30"]
        done = subprocess.run(
            [*command, "--json", str(out), *flags], capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        # "30 moves, 2319 nodes (77/move), 811 evaluations, 0.3 ms/move ...": counts, not times.
        lines = out.read_text().splitlines()
        return [json.loads(line)["stats"].split(", ")[:3] for line in lines]

    serial = stats()
    assert stats("--jobs", "2") == serial
    assert len({tuple(game) for game in serial}) == 3
    assert all(game[0] == "30 moves" for game in serial)


def test_a_course_folder_plays_the_same_games_in_process_and_sandboxed(course):
    """The student's agent and the course's own ghosts each draw from Python's ``random``:
    in-process each gets its own stream in turn, as each has in its own sandboxed worker,
    so with the same seed and secret the games are the same."""
    secret = ("--game-secret", "course")
    in_process = _games(course, *secret)
    assert _games(course, *secret, "--isolation", "sandbox") == in_process
    assert _games(course, "--game-secret", "another") != in_process


def test_each_agent_has_a_stream_of_its_own_and_the_ghosts_need_the_secret():
    from pacman.seeding import GameSeeds

    seeds = GameSeeds(7, "secret")
    own = [seeds.for_agent(index) for index in range(4)]
    assert len(set(own)) == 4
    assert own == [GameSeeds(7, "secret").for_agent(i) for i in range(4)]  # the same again
    # Pac-Man's stream is the seed's alone; every ghost's changes with the secret and seed.
    assert GameSeeds(7, "other").for_agent(0) == own[0]
    assert all(GameSeeds(7, "other").for_agent(i) != own[i] for i in (1, 2, 3))
    assert all(GameSeeds(8, "secret").for_agent(i) != own[i] for i in range(4))
    assert 7 not in own and own[0] != GameSeeds(7).for_agent(1)


def test_agents_sharing_the_random_module_draw_as_each_would_alone():
    import random

    from pacman.seeding import ModuleStreams

    streams = ModuleStreams({0: 11, 2: 22})
    draws: dict[int, list[float]] = {0: [], 2: []}
    for index in (0, 2, 2, 0, 2, 0, 0):
        with streams.playing(index):
            draws[index].append(random.random())
    alone = {index: random.Random(seed) for index, seed in ((0, 11), (2, 22))}
    assert draws == {i: [alone[i].random() for _ in draws[i]] for i in draws}
