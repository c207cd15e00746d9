"""Batch throughput on this machine: serial, a local process pool, a Dask LocalCluster.

    python benchmarks/bench_scale.py [--games N] [--repeats N] [--submissions N]

Plays one batch of games serially, with ``--jobs 2`` and with ``--scheduler local``
(2 worker processes), then grades N copies of a CS188-style submission against
the project's suite in 2 local grading processes and on a 2-worker LocalCluster.
Each figure includes starting the pool or the cluster, as a user's run does.
Needs the [dask] extra. Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pacman.grading.batch import run_batch
from pacman.grading.options import GradingOptions
from pacman.grading.submission import read_suite
from pacman.grading.suite import load_suite
from pacman.runner import GameSpec, batch, stream_games

REPO = Path(__file__).resolve().parents[1]
HONEST = REPO / "tests" / "fixtures" / "grading" / "cs188_style" / "multiAgents.py"
#: About 0.1 s a game: long enough that handing games out is not what is measured.
GAME = GameSpec(
    layout="mediumClassic",
    pacman="AlphaBetaAgent",
    pacman_args={"depth": "3"},
    ghost="DirectionalGhost",
    num_ghosts=2,
    seed=1,
    max_moves=300,
)


def games_per_second(count: int, repeats: int, **where: object) -> float:
    """The best of ``repeats`` runs: the machine is shared, and others' work only slows a run."""
    best = 0.0
    for _ in range(repeats):
        tic = time.perf_counter()
        played = sum(1 for _ in stream_games(batch(GAME, count), **where))
        best = max(best, played / (time.perf_counter() - tic))
    return best


@contextmanager
def running_cluster() -> Iterator[tuple[str, float]]:
    """A 2-worker LocalCluster started beforehand, as a cluster one connects to by address is."""
    import distributed

    tic = time.perf_counter()
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    )
    try:
        yield cluster.scheduler_address, time.perf_counter() - tic
    finally:
        cluster.close()


def submissions_per_minute(count: int, **where: object) -> float:
    suite_dir = str(REPO / "test_cases")
    questions = [(q.name, q.max_points) for q in load_suite(suite_dir)]
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as scratch:
        root = Path(scratch) / "submissions"
        for index in range(count):
            folder = root / f"student{index:02d}"
            folder.mkdir(parents=True)
            shutil.copy(HONEST, folder / "multiAgents.py")
        with open(os.devnull, "w") as quiet:
            tic = time.perf_counter()
            run_batch(
                str(root),
                ["multiAgents.py"],
                read_suite(suite_dir),
                questions,
                GradingOptions(),
                str(Path(scratch) / "grades"),
                2,
                quiet,
                **where,
            )
            seconds = time.perf_counter() - tic
    return count / seconds * 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=120, help="games in the batch (120)")
    parser.add_argument("--repeats", type=int, default=2, help="best of this many game runs (2)")
    parser.add_argument("--submissions", type=int, default=20, help="submissions graded (20)")
    options = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cores: {os.cpu_count()}, Python {sys.version.split()[0]}, load average {load:.1f}")
    print(
        f"games: {options.games} x AlphaBetaAgent depth=3, mediumClassic, 2 DirectionalGhosts, "
        "--max-moves 300"
    )
    serial = games_per_second(options.games, options.repeats)
    print(f"  serial                      {serial:7.1f} games/s")
    pool = games_per_second(options.games, options.repeats, jobs=2)
    print(f"  --jobs 2                    {pool:7.1f} games/s  ({pool / serial:.2f}x serial)")
    dask = games_per_second(options.games, options.repeats, jobs=2, scheduler="local")
    print(f"  --scheduler local (2)       {dask:7.1f} games/s  ({dask / pool:.0%} of --jobs 2)")
    with running_cluster() as (address, start):
        ready = games_per_second(options.games, options.repeats, scheduler=address)
    print(
        f"  --scheduler ADDRESS (2)     {ready:7.1f} games/s  ({ready / pool:.0%} of --jobs 2; "
        f"a LocalCluster already up, started in {start:.1f} s)"
    )
    print(f"grading: {options.submissions} CS188-style submissions, the project's suite (q1-q7)")
    local = submissions_per_minute(options.submissions)
    print(f"  -j 2                        {local:7.1f} submissions/min")
    cluster = submissions_per_minute(options.submissions, scheduler="local")
    print(
        f"  --scheduler local (2)       {cluster:7.1f} submissions/min  ({cluster / local:.0%} of -j 2)"
    )
    with running_cluster() as (address, _):
        ready = submissions_per_minute(options.submissions, scheduler=address)
    print(
        f"  --scheduler ADDRESS (2)     {ready:7.1f} submissions/min  ({ready / local:.0%} of -j 2; "
        "a LocalCluster already up)"
    )


if __name__ == "__main__":
    main()
