"""Search speed from the mediumClassic start: nodes (successor calls) per second.

    python benchmarks/bench_search.py [--repeat 5] [--depths 3 4] [--layout mediumClassic]

For each search (alpha-beta with ``scoreEvaluationFunction``, then with
``better``; full-width minimax at depth 4 for comparison with CS188's
0.45-0.65 s), prints the chosen action, the nodes and evaluations, and the
median time of ``--repeat`` runs. Then, for the anytime agent, the depth it
finishes within each ``--budgets`` time (one move from the start, a fresh
agent each time). Speed lives here, never in the tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from agents.anytime import AnytimeAgent
from agents.evaluation import betterEvaluationFunction, scoreEvaluationFunction
from agents.search import ALPHABETA, MINIMAX, SearchConfig, search
from pacman.layout import load_layout
from pacman.state import GameState


def measure(state, depth, evaluate, kind, repeat):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = search(state, SearchConfig(kind, depth), evaluate)
        times.append(time.perf_counter() - started)
    return result, statistics.median(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--layout", default="mediumClassic")
    parser.add_argument("--budgets", type=float, nargs="*", default=[0.05, 0.2, 1.0])
    options = parser.parse_args(argv)

    state = GameState.initial(load_layout(options.layout))
    print(
        f"{options.layout} start, {state.get_num_agents() - 1} ghosts, Python "
        f"{sys.version.split()[0]}, median of {options.repeat}"
    )
    print(f"{'search':<28}{'action':>7}{'nodes':>9}{'evals':>8}{'seconds':>10}{'nodes/s':>11}")
    runs = [("alphabeta", "score", ALPHABETA, scoreEvaluationFunction, d) for d in options.depths]
    runs += [
        ("alphabeta", "better", ALPHABETA, betterEvaluationFunction, d) for d in options.depths
    ]
    runs.append(("minimax", "score", MINIMAX, scoreEvaluationFunction, 4))
    for label, eval_name, kind, evaluate, depth in runs:
        result, seconds = measure(state, depth, evaluate, kind, options.repeat)
        name = f"{label} depth {depth} ({eval_name})"
        print(
            f"{name:<28}{result.action:>7}{result.nodes:>9}{result.evaluations:>8}"
            f"{seconds:>10.4f}{result.nodes / seconds:>11.0f}"
        )
    for budget in options.budgets:
        agent = AnytimeAgent(time=budget)
        action = agent.get_action(state)
        stats = agent.stats
        name = f"anytime {budget:g} s (better)"
        print(
            f"{name:<28}{action:>7}{stats.nodes:>9}{stats.evaluations:>8}"
            f"{stats.seconds:>10.4f}{stats.nodes / stats.seconds:>11.0f}  depth {stats.depths[0]}"
        )


if __name__ == "__main__":
    main()
