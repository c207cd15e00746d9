"""Every figure README.md and docs/*.md quote (speeds, win rates, times), each with an id and
the command that measures it; prints the machine's load average beside each.

    python benchmarks/figures.py                 # the ids, what each measures, its command
    python benchmarks/figures.py envs approximate-q
    python benchmarks/figures.py all             # every figure this machine can measure

For each figure: ``== ID: COMMAND``, then the 1-minute load average before and after and the
wall time, then what the command printed (and, for a batch of games, the wins). The docs
quote a figure with its load and its id, in this form:

    1.5 M steps a second (load 1.2; `python benchmarks/figures.py envs`)

``tests/test_figures.py`` checks that every id the docs quote is listed here, that every id
listed here is quoted, and that every paragraph of the docs naming a load average names the
figure it belongs to. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def wins(name: str) -> Callable[[Path], str]:
    """The wins of the batch whose JSON lines ``name`` holds (in the run's folder)."""

    def count(folder: Path) -> str:
        games = [json.loads(line) for line in (folder / name).read_text().splitlines()]
        return f"wins: {sum(game['win'] for game in games)} of {len(games)} games"

    return count


@dataclass(frozen=True)
class Figure:
    what: str  # what the docs quote from it, and where
    command: str  # as a user types it in the checkout's folder (``NAME=VALUE`` first: set)
    needs: str | None = None  # a module it imports: where it is missing, the figure is skipped
    needs_env: str | None = None  # a variable it reads: where it is unset, the figure is skipped
    summary: Callable[[Path], str] | None = None  # read from the files it wrote


PYTEST = "python -m pytest -q -p no:cacheprovider"

FIGURES: dict[str, Figure] = {
    "batch-100": Figure(
        "README: 100 depth-3 alpha-beta games, wall time and wins",
        "pacman -p AlphaBetaAgent -a depth=3,evalFn=better -q -n 100 --jobs 2 --seed 1 "
        "--max-moves 500 --json games.jsonl",
        summary=wins("games.jsonl"),
    ),
    "batch-200": Figure(
        "README (Batch games): 200 depth-2 games against directional ghosts, wall time",
        "pacman -p AlphaBetaAgent -a depth=2 -l mediumClassic -g DirectionalGhost -q -n 200 "
        "--jobs 2 --seed 1 --max-moves 500 --json out.jsonl",
        summary=wins("out.jsonl"),
    ),
    "engine": Figure(
        "README (Speed): successors and random games a second, the depth-4 minimax",
        "python benchmarks/bench_engine.py",
    ),
    "search": Figure(
        "README (Speed): alpha-beta per move, the anytime search's depths",
        "python benchmarks/bench_search.py",
    ),
    "grading": Figure(
        "README (Speed), docs/grading.md: the CS188 suite graded, a worker's start",
        "python benchmarks/bench_grading.py",
    ),
    "envs": Figure(
        "README, docs/envs.md (Speed, the batched engine): steps a second of every env",
        "python benchmarks/bench_envs.py",
        needs="gymnasium",
    ),
    "envs-batched": Figure(
        "docs/envs.md (Speed): the batched engine beside Jumanji's PacMan, run in turn",
        "python benchmarks/bench_envs.py --only batched --repeat 3",
        needs="gymnasium",
    ),
    "similarity": Figure(
        "docs/course.md (Similar submissions): classes of 100 and 1,000 compared",
        "python benchmarks/bench_similarity.py",
    ),
    "grading-profile": Figure(
        "docs/scale.md (One grade): wall and CPU of a whole grade, where its seconds go",
        "python benchmarks/bench_grading.py --runs 5 --profile",
    ),
    "grading-vs-cs188": Figure(
        "README (Speed), docs/scale.md: the CS188 suite graded here and by CS188's own autograder",
        "python benchmarks/bench_grading.py --runs 5",
        needs_env="PACMAN_CS188_DIR",
    ),
    "food-grid": Figure(
        "docs/scale.md (One grade): a state's food grid built and listed",
        'python -m timeit -s "from pacman.layout import load_layout; from pacman.state import '
        "GameState; s = GameState.initial(load_layout('smallClassic'), 2); g = s.get_food()\" "
        '"s._food_grid = None; s.get_food(); g.asList()"',
    ),
    "engine-quick": Figure(
        "docs/scale.md (One grade): random mediumClassic games a second",
        "python benchmarks/bench_engine.py --quick",
    ),
    "approximate-q": Figure(
        "README, docs/envs.md: the linear learner's training time, win rate, mean score",
        "python examples/approximate_q.py",
        needs="gymnasium",
    ),
    "generalise": Figure(
        "README, docs/envs.md: trained on generated boards, played on boards never seen",
        "python examples/generalise.py",
        needs="gymnasium",
    ),
    "sb3-maskable": Figure(
        "docs/envs.md: MaskablePPO's training time and win rate",
        "python examples/train_sb3.py",
        needs="sb3_contrib",
    ),
    "sb3-ppo": Figure(
        "docs/envs.md: PPO's training time and win rate",
        "python examples/train_sb3.py --algorithm ppo",
        needs="sb3_contrib",
    ),
    "learning": Figure(
        "docs/envs.md: every learner's training time, wall and CPU",
        "python benchmarks/bench_learning.py",
        needs="sb3_contrib",
    ),
    "batched-checks": Figure(
        "docs/envs.md: the batched engine checked move by move against the object engine",
        f"{PYTEST} tests/test_batched_engine.py",
    ),
    "envs-checks": Figure(
        "docs/envs.md (Checks): the batched engine's, env's, game's, boards' and learner's tests",
        f"{PYTEST} tests/test_batched_engine.py tests/test_batched_gymenv.py "
        "tests/test_batched_zoo.py tests/test_mazegen.py tests/test_generalise.py",
    ),
    "mazegen-10000": Figure(
        "docs/envs.md: 10,000 generated boards checked and played",
        f"PACMAN_MAZEGEN_SEEDS=10000 {PYTEST} tests/test_mazegen.py -k seeds",
    ),
    "sandboxed-games": Figure(
        "docs/course.md: what the sandbox costs a game and a leaderboard game",
        "python benchmarks/bench_sandboxed_games.py",
    ),
    "scale": Figure(
        "docs/scale.md: games and submissions a second, serial, --jobs 2, Dask",
        "python benchmarks/bench_scale.py",
        needs="dask",
    ),
    "adversarial": Figure(
        "docs/search.md: the lecture notes' questions about adversarial search",
        "python benchmarks/bench_adversarial.py",
    ),
    "draw": Figure(
        "docs/viewer.md: a frame's drawing time",
        "python benchmarks/bench_draw.py",
        needs="pygame",
    ),
    "tree": Figure(
        "docs/search-views.md: tree pages' nodes, sizes and times",
        "python benchmarks/bench_tree.py",
    ),
    "suitegen": Figure(
        "docs/grading.md: a fresh suite of about 200 trees generated",
        "python benchmarks/bench_suitegen.py",
    ),
}


def load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def command_line(figure: Figure) -> tuple[list[str], dict[str, str]]:
    """The command as run (this interpreter for ``python`` and ``pacman``, the checkout's
    files by path) and the variables it sets."""
    words = shlex.split(figure.command)
    settings = {}
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        settings[name] = value
    if words[0] == "pacman":
        words[:1] = [sys.executable, "-m", "pacman"]
    elif words[0] == "python":
        words[0] = sys.executable
    return [str(REPO / word) if (REPO / word).is_file() else word for word in words], settings


def measure(name: str, figure: Figure) -> int:
    """Run one figure's command and print it with the load; its exit status."""
    print(f"== {name}: {figure.command}", flush=True)
    if figure.needs and find_spec(figure.needs) is None:
        print(f"   skipped: {figure.needs} is not installed here\n", flush=True)
        return 0
    if figure.needs_env and not os.environ.get(figure.needs_env):
        print(f"   skipped: ${figure.needs_env} is not set here\n", flush=True)
        return 0
    folder = Path(tempfile.mkdtemp(prefix=f"figure-{name}-"))
    before, started = load(), time.monotonic()
    try:
        # In a folder of its own (what it writes goes there), the checkout's files by path.
        args, settings = command_line(figure)
        done = subprocess.run(
            args,
            cwd=folder,
            env={**os.environ, **settings},
            capture_output=True,
            text=True,
        )
        seconds = time.monotonic() - started
        print(f"   load {before} before, {load()} after; {seconds:.1f} s; exit {done.returncode}")
        if done.returncode != 0:
            print(done.stdout.rstrip()[-2000:], done.stderr.rstrip()[-2000:], sep="\n")
        else:  # a batch's own summary is a line a game: the figure is its count
            print(figure.summary(folder) if figure.summary else done.stdout.rstrip())
        print(flush=True)
        return done.returncode
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="*", help="figures to measure, or 'all' (none: list them)")
    args = parser.parse_args(argv)
    if not args.ids:
        for name, figure in FIGURES.items():
            print(f"{name:16} {figure.what}\n{'':16} {figure.command}")
        return 0
    names = list(FIGURES) if args.ids == ["all"] else args.ids
    unknown = [name for name in names if name not in FIGURES]
    if unknown:
        print(f"figures.py: no figure {unknown[0]!r} (run it alone for the list)", file=sys.stderr)
        return 2
    print(f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {os.cpu_count()} CPUs, load {load()}\n")
    failed = [name for name in names if measure(name, FIGURES[name]) != 0]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
