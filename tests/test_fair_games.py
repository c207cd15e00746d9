"""The ghosts' randomness is the game's: no agent can predict it.

An oracle agent (:mod:`ghost_oracle`) tries every generator an attacker could hope shares
the ghosts' stream: a copy of ``random.getstate()``, ``random.Random`` of the test's seed
and of the first 10,000 integers. It follows the ghosts only where it is handed their
true stream (the control), and otherwise calls their moves no better than a blind guess:
in graded games, in a class leaderboard and in sandboxed games.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from ghost_oracle import ORACLE, assert_no_better_than_chance, oracle_games
from grading_submissions import one_game_question

from pacman import run_game
from pacman.game import Game
from pacman.ghosts import RandomGhost
from pacman.layout import load_layout
from pacman.loading import find_class
from pacman.seeding import GameSeeds
from pacman.state import GameState

REPO = Path(__file__).resolve().parents[1]

GRADED = """class: "EvalAgentTest"
agentName: "Oracle"
agentArgs: "seed=5"
layoutName: "smallClassic"
maxTime: "60"
numGames: "3"
randomSeed: "5"
ghosts: "[RandomGhost(1), RandomGhost(2)]"
scoreThresholds: "0"
"""


@pytest.fixture
def oracle_file(tmp_path: Path) -> Path:
    folder = tmp_path / "hand-in"
    folder.mkdir()
    path = folder / "multiAgents.py"
    path.write_text(ORACLE)
    return path


def _oracle(path: Path, **args: object):
    return find_class(f"{path}:Oracle")(**{k: str(v) for k, v in args.items()})


def test_the_oracle_follows_ghosts_whose_stream_it_knows(oracle_file, capsys):
    """The control: the oracle is right where the ghosts draw from a stream it has, so its
    failures elsewhere are the game's doing, not its own."""
    seeds = GameSeeds(5, "a secret")
    run_game(
        "smallClassic",
        _oracle(oracle_file, hint=seeds.for_agent(1)),
        [RandomGhost(1)],
        seed=5,
        secret="a secret",
    )
    (game,) = oracle_games(capsys.readouterr().out)
    assert game["informative"] >= 40
    assert game["hinted"] == game["informative"]  # every ghost move called right
    assert game["survivors"] == 0

    # As games were seeded before: the ghost drawing from random.Random(test seed).
    layout = load_layout("smallClassic")
    ghost = RandomGhost(1, rng=random.Random(5))
    Game(GameState.initial(layout, 1), [_oracle(oracle_file, seed=5), ghost]).run()
    (old,) = oracle_games(capsys.readouterr().out)
    # Random(5) three times over (the test's seed, the game's, the integer 5) follows it;
    # only the first guess, made before any ghost move was seen, can miss.
    assert old["survivors"] == 3 and old["hits"] >= old["informative"] - 1 >= 40


def _autograde(*flags: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(REPO / "autograder.py"), *map(str, flags)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=cwd)


def _report(results: dict) -> str:
    return "\n".join(test["output"] for test in results["tests"])


def _scores(results: dict) -> str:
    return next(line for line in _report(results).splitlines() if "Scores:" in line)


def test_graded_games_cannot_be_predicted_and_repeat_with_their_secret(oracle_file, tmp_path):
    suite = one_game_question(tmp_path, GRADED, 1)
    runs = []
    given = ([], [], ["--game-secret", "x"], ["--game-secret", "y"], ["--game-secret", "z"])
    for name, secret in zip("abcde", given, strict=True):
        results = tmp_path / f"{name}.json"
        flags = ["--test-directory", suite, "--code-directory", oracle_file.parent]
        done = _autograde(*flags, "--results", results, *secret, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(results.read_text()))
    # Without a secret the test's own, derived from it: the same games on every run.
    assert _report(runs[0]) == _report(runs[1])
    games = [game for run in (runs[0], *runs[2:]) for game in oracle_games(_report(run))]
    assert len(games) == 12
    assert_no_better_than_chance(games)
    # Each secret its own ghosts' moves, its own games.
    assert len({_scores(run) for run in (runs[0], *runs[2:])}) == 4
    repeat = tmp_path / "f.json"
    flags = ["--test-directory", suite, "--code-directory", oracle_file.parent]
    done = _autograde(*flags, "--results", repeat, "--game-secret", "x", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _scores(json.loads(repeat.read_text())) == _scores(runs[2])


def test_a_leaderboard_cannot_be_predicted(oracle_file, tmp_path):
    suite = one_game_question(tmp_path, GRADED, 1)
    hand_ins = tmp_path / "submissions"
    for name in ("first", "second"):
        (hand_ins / name).mkdir(parents=True)
        (hand_ins / name / "multiAgents.py").write_text(ORACLE)
    prefix = tmp_path / "grades"
    flags = ["--test-directory", suite, "--submissions", hand_ins, "--summary", prefix]
    done = _autograde(*flags, "--leaderboard", "-j", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = json.loads(Path(f"{prefix}.json").read_text())["submissions"]
    reports = [test["report"] for r in records for test in r["questions"]["q1"]["tests"]]
    games = [game for report in reports for game in oracle_games(report)]
    assert len(games) == 6
    assert_no_better_than_chance(games)
    # No secret drawn per submission: both submissions (the same code) play the same games.
    first, second = (r["questions"]["q1"]["tests"][0]["games"]["scores"] for r in records)
    assert first == second


def _pacman(*flags: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pacman", *map(str, flags)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox is Linux's")
def test_sandboxed_games_cannot_be_predicted_and_equal_in_process_ones(oracle_file):
    flags = ["-p", f"{oracle_file.name}:Oracle", "-a", "seed=5", "-l", "smallClassic", "-k", "2"]
    flags += ["-q", "-n", "3", "--seed", "5"]
    sandboxed = _pacman(*flags, "--isolation", "sandbox", cwd=oracle_file.parent)
    assert sandboxed.returncode == 0, sandboxed.stderr
    assert_no_better_than_chance(oracle_games(sandboxed.stderr))
    # With the same secret, the same games as in-process play (where the oracle, which can
    # read the game's memory there, is not the point).
    secret = ["--game-secret", "shared"]
    alone = _pacman(*flags, *secret, "--isolation", "sandbox", cwd=oracle_file.parent)
    in_process = _pacman(*flags, *secret, cwd=oracle_file.parent)
    assert alone.returncode == in_process.returncode == 0
    # (In-process, what the agent prints goes to stdout; sandboxed, escaped to stderr.)
    played = [line for line in in_process.stdout.splitlines() if not line.startswith("ORACLE")]
    assert alone.stdout.splitlines() == played
    assert played[-1].startswith("Record:") and len(oracle_games(alone.stderr)) == 3


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/PID/cmdline is Linux's")
def test_a_secret_given_on_the_command_line_is_masked_where_other_processes_read_it():
    # Any process may read another's /proc/PID/cmdline (student code too, where no namespace
    # or Landlock keeps it out of /proc): the grader overwrites the secret there as it reads it.
    show = (
        "import sys; from pacman.grade_cli import parse; parse(sys.argv[1:]); "
        "sys.stdout.buffer.write(open('/proc/self/cmdline', 'rb').read())"
    )
    for given in (["--game-secret", "hush-4f9a"], ["--game-secret=hush-4f9a"]):
        done = subprocess.run(
            [sys.executable, "-c", show, *given], capture_output=True, timeout=60, check=True
        )
        assert b"hush-4f9a" not in done.stdout and b"*********" in done.stdout
