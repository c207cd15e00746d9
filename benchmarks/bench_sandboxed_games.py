"""What the sandbox costs an ordinary game, and a leaderboard game.

    python benchmarks/bench_sandboxed_games.py [--games 20] [--depth 2]

1. The runner: the same seeded games of a CS188-style ``ExpectimaxAgent`` (the honest
   grading fixture, ``evalFn=better``) on smallClassic against two random ghosts, played
   in-process and with ``isolation="sandbox"``; prints seconds per game and per move of
   each, checks that the games are equal, and the ratio.
2. The leaderboard: ``autograder.py --submissions DIR --leaderboard`` over one submission
   whose EvalAgentTest plays the same number of games; prints the whole run's wall time
   per game (worker start and proof included) beside in-process play of as many games.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HONEST = REPO / "tests" / "fixtures" / "grading" / "cs188_style" / "multiAgents.py"


def _runner(games: int, depth: int) -> None:
    sys.path.insert(0, str(REPO))
    from pacman.runner import GameSpec, batch, run_games
    from pacman.sandbox import games as sandboxed

    spec = GameSpec(
        layout="smallClassic",
        pacman=f"{HONEST}:ExpectimaxAgent",
        pacman_args={"depth": str(depth), "evalFn": "better"},
        ghost="RandomGhost",
        num_ghosts=2,
        seed=0,
        max_moves=300,
        # One secret for both runs (a sandboxed run draws a fresh one otherwise), so the
        # games compared are the same games.
        secret="bench",
    )
    timings = {}
    outcomes = {}
    for isolation in ("none", "sandbox"):
        started = time.perf_counter()
        results = list(run_games(batch(replace(spec, isolation=isolation), games)))
        timings[isolation] = time.perf_counter() - started
        outcomes[isolation] = [(r.score, r.moves, r.actions) for r in results]
        moves = sum(r.moves for r in results)
        print(
            f"runner, {isolation:7}: {timings[isolation] / games:.3f} s per game, "
            f"{1000 * timings[isolation] / moves:.2f} ms per move ({games} games, {moves} moves)"
        )
    sandboxed.close_all()
    same = "equal" if outcomes["none"] == outcomes["sandbox"] else "DIFFERENT"
    print(f"runner: sandbox/in-process = {timings['sandbox'] / timings['none']:.2f}x; games {same}")


def _leaderboard(games: int, depth: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        suite = root / "suite" / "contest"
        suite.mkdir(parents=True)
        (suite.parent / "CONFIG").write_text('order: "contest"\n')
        (suite / "CONFIG").write_text('max_points: "1"\nclass: "PartialCreditQuestion"\n')
        (suite / "grade-agent.test").write_text(
            'class: "EvalAgentTest"\nagentName: "ExpectimaxAgent"\n'
            f'agentArgs: "evalFn=better,depth={depth}"\nlayoutName: "smallClassic"\n'
            f'maxTime: "120"\nnumGames: "{games}"\nrandomSeed: "0"\n'
            'ghosts: "[RandomGhost(1), RandomGhost(2)]"\nwinsThresholds: "1"\n'
        )
        (root / "submissions" / "one").mkdir(parents=True)
        (root / "submissions" / "one" / "multiAgents.py").write_bytes(HONEST.read_bytes())
        command = [
            sys.executable,
            str(REPO / "autograder.py"),
            "--test-directory",
            str(suite.parent),
            "--submissions",
            str(root / "submissions"),
            "--summary",
            str(root / "grades"),
            "--leaderboard",
        ]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, cwd=root)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"bench_sandboxed_games: the leaderboard run failed: {done.stderr}")
        print(
            f"leaderboard ({games} games, whole run incl. startup and proof): "
            f"{elapsed / games:.3f} s per game"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--depth", type=int, default=2)
    args = parser.parse_args()
    _runner(args.games, args.depth)
    _leaderboard(args.games, args.depth)


if __name__ == "__main__":
    main()
