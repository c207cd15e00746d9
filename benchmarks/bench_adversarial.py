"""The lecture notes' questions about adversarial search, answered by measurement.

    python benchmarks/bench_adversarial.py [--games 100] [--jobs 2] [--layouts mediumClassic smallClassic]
                                           [--depths 2 3 4 5 6] [--skip-games] [--skip-nodes]

1. Which model of the ghosts plays best against DirectionalGhosts? Win rate, mean score and
   time per move of minimax, alpha-beta, expectimax (uniform ghosts), expectimax with the
   directional ghost model, expectiminimax (ghost 1 MIN, ghost 2 chance, directional) and
   MCTS, on each layout: ``--games`` games each, seeded 1, 2, ... (game i is the same game
   for every agent up to its own moves), ``--max-moves 500``, ``evalFn=better``. The search
   agents search 2 rounds (alpha-beta also 3: what pruning buys is depth). MCTS (directional
   ghost model, playouts of 5 moves, and of 0: the evaluation alone) gets the time per move of
   the slowest of them on that layout, as the number of simulations it makes in that time
   (measured on 2 games first), so its games are reproducible and it never has less time.
2. What does move ordering buy alpha-beta? Successor calls from the mediumClassic start at
   each of ``--depths`` (rounds of Pac-Man and both ghosts, so 3 plies each), for full
   minimax (the notes' O(b^m)), alpha-beta in legal-action order, alpha-beta with the
   children of MAX and MIN nodes sorted by ``better`` (best first), and iterative deepening
   with a transposition table (``AnytimeAgent``, every iteration 1..d counted), beside
   sqrt(minimax), the notes' O(b^(m/2)) for perfect ordering.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time

from agents.anytime import AnytimeAgent
from agents.evaluation import betterEvaluationFunction
from agents.search import ALPHABETA, MINIMAX, SearchConfig, search
from agents.search_config import EVALUATION
from pacman.layout import load_layout
from pacman.runner import GameSpec, batch, run_games
from pacman.state import GameState

SEARCHERS = [
    ("minimax d2", "MinimaxAgent", "depth=2"),
    ("alpha-beta d2", "AlphaBetaAgent", "depth=2"),
    ("alpha-beta d3", "AlphaBetaAgent", "depth=3"),
    ("expectimax d2 uniform", "ExpectimaxAgent", "depth=2"),
    ("expectimax d2 directional", "ExpectimaxAgent", "depth=2,ghostModel=directional"),
    (
        "expectiminimax d2 min:chance",
        "ExpectiminimaxAgent",
        "depth=2,layers=min:chance,ghostModel=directional",
    ),
]


def agent_args(text: str) -> dict[str, str]:
    args = dict(part.split("=", 1) for part in text.split(","))
    args["evalFn"] = "better"
    return args


def ms_per_move(stats: str | None) -> float:
    found = re.search(r"([\d.]+) ms/move", stats or "")
    return float(found.group(1)) if found else math.nan


def play(layout: str, agent: str, args: dict[str, str], games: int, jobs: int) -> dict:
    spec = GameSpec(
        layout, agent, args, ghost="DirectionalGhost", num_ghosts=2, seed=1, max_moves=500
    )
    started = time.perf_counter()
    results = list(run_games(batch(spec, games), jobs=jobs))
    moves = sum(r.pacman_moves for r in results)
    # Mean time per move over all moves of all games (each game's stats give its own mean).
    total_ms = sum(ms_per_move(r.stats) * r.pacman_moves for r in results)
    return {
        "wins": sum(r.win for r in results),
        "games": len(results),
        "mean": sum(r.score for r in results) / len(results),
        "ms": total_ms / moves if moves else math.nan,
        "wall": time.perf_counter() - started,
        "stats": results[-1].stats or "",
    }


def games_table(layouts: list[str], games: int, jobs: int) -> None:
    print(
        f"Against 2 DirectionalGhosts, {games} games per agent and layout (seeds 1-{games}), "
        "--max-moves 500, evalFn=better"
    )
    for layout in layouts:
        print(f"\n{layout}")
        print(f"{'agent':<34}{'wins':>9}{'mean score':>12}{'ms/move':>9}{'wall s':>8}")
        slowest = 0.0
        for label, agent, args in SEARCHERS:
            row = play(layout, agent, agent_args(args), games, jobs)
            slowest = max(slowest, row["ms"])
            show(label, row)
        budget = slowest / 1000
        for depth in (5, 0):
            args = {"depth": str(depth), "evalFn": "better", "ghostModel": "directional"}
            simulations = calibrate(layout, {**args, "time": f"{budget:.5f}"}, jobs)
            row = play(layout, "MCTSAgent", {**args, "simulations": str(simulations)}, games, jobs)
            label = f"MCTS sims={simulations} depth={depth}"
            show(label, row)
        sys.stdout.flush()


def calibrate(layout: str, args: dict[str, str], jobs: int) -> int:
    """Simulations per move MCTS makes in ``args["time"]`` seconds (2 games, as busy as the rest).

    The benchmark then plays with that many simulations, so its games depend on their seeds
    alone and not on how busy the machine was.
    """
    spec = GameSpec(
        layout, "MCTSAgent", args, ghost="DirectionalGhost", num_ghosts=2, seed=1, max_moves=100
    )
    counts = []
    for result in run_games(batch(spec, 2), jobs=min(jobs, 2)):
        found = re.search(r"(\d+) simulations/move", result.stats or "")
        counts.append(int(found.group(1)) if found else 1)
    return max(1, round(sum(counts) / len(counts)))


def show(label: str, row: dict, extra: str = "") -> None:
    print(
        f"{label:<34}{row['wins']:>4}/{row['games']:<4}{row['mean']:>12.1f}{row['ms']:>9.2f}"
        f"{row['wall']:>8.1f}{extra}",
        flush=True,
    )


def nodes_table(depths: list[int]) -> None:
    state = GameState.initial(load_layout("mediumClassic"))
    evaluate = betterEvaluationFunction
    print("\nSuccessor calls from the mediumClassic start (evalFn=better; 1 depth = 3 plies)")
    print(
        f"{'depth':>5}{'plies':>6}{'minimax':>11}{'sqrt(mm)':>10}{'alpha-beta':>12}"
        f"{'ab ordered':>12}{'ID + TT':>10}{'ab/mm':>8}{'ord/mm':>8}"
    )
    for depth in depths:
        minimax = search(state, SearchConfig(MINIMAX, depth), evaluate)
        plain = search(state, SearchConfig(ALPHABETA, depth), evaluate)
        ordered = search(state, SearchConfig(ALPHABETA, depth, ordering=EVALUATION), evaluate)
        assert plain.action == ordered.action == minimax.action  # the same move, fewer nodes
        anytime = AnytimeAgent(time=1e6, max_depth=depth)
        anytime.get_action(state)
        print(
            f"{depth:>5}{3 * depth:>6}{minimax.nodes:>11}{math.sqrt(minimax.nodes):>10.0f}"
            f"{plain.nodes:>12}{ordered.nodes:>12}{anytime.stats.nodes:>10}"
            f"{plain.nodes / minimax.nodes:>8.3f}{ordered.nodes / minimax.nodes:>8.3f}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--layouts", nargs="+", default=["mediumClassic", "smallClassic"])
    parser.add_argument("--depths", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    parser.add_argument("--skip-games", action="store_true")
    parser.add_argument("--skip-nodes", action="store_true")
    options = parser.parse_args(argv)
    print(f"Python {sys.version.split()[0]}")
    if not options.skip_nodes:
        nodes_table(options.depths)
    if not options.skip_games:
        print()
        games_table(options.layouts, options.games, options.jobs)


if __name__ == "__main__":
    main()
