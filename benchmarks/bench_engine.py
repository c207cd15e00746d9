"""Engine throughput on this machine; prints figures, asserts nothing about time.

    python benchmarks/bench_engine.py [--quick]

CS188's engine on a 2-core machine (RULES.md): 16-19 k successors/s, about
30 random games/s on mediumClassic (70 on smallClassic), 0.45-0.65 s for a
full-width minimax of depth 4 from the mediumClassic start.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import replace

from pacman.layout import load_layout
from pacman.runner import GameSpec, play
from pacman.state import GameState


def median_seconds(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        tic = time.perf_counter()
        work()
        times.append(time.perf_counter() - tic)
    return statistics.median(times)


def full_width(state: GameState, plies: int, agent: int, counts: list[int]) -> None:
    """Expand every state to ``plies`` single-agent moves (minimax without evaluation)."""
    if plies == 0 or state.is_win() or state.is_lose():
        return
    counts[0] += 1
    following = (agent + 1) % state.get_num_agents()
    for action in state.get_legal_actions(agent):
        counts[1] += 1
        full_width(state.generate_successor(agent, action), plies - 1, following, counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    repeats = 3 if parser.parse_args().quick else 7
    start = GameState.initial(load_layout("mediumClassic"))

    actions = start.get_legal_actions(0)
    loops = 50_000
    seconds = median_seconds(
        lambda: [start.generate_successor(0, a) for _ in range(loops) for a in actions], repeats
    )
    print(
        f"successors/s, Pac-Man moves from the mediumClassic start: {loops * len(actions) / seconds:,.0f}"
    )

    counts = [0, 0]
    full_width(start, 12, 0, counts)
    seconds = median_seconds(lambda: full_width(start, 12, 0, [0, 0]), repeats)
    print(
        f"successors/s, full-width search from the mediumClassic start: {counts[1] / seconds:,.0f}"
    )
    print(
        f"full-width minimax depth 4 from the mediumClassic start: {counts[0]:,} expanded, "
        f"{counts[1]:,} generated, {seconds * 1000:.1f} ms (CS188: 4,393 / 8,361, 450-650 ms)"
    )

    for name, games in (("mediumClassic", 300), ("smallClassic", 600)):
        spec = GameSpec(layout=name, pacman="RandomAgent", ghost="RandomGhost")
        play(spec)  # warm the layout cache and imports
        moves = [0]

        def batch(spec: GameSpec = spec, games: int = games, moves: list[int] = moves) -> None:
            moves[0] = sum(play(replace(spec, seed=seed)).moves for seed in range(games))

        seconds = median_seconds(batch, repeats)
        print(
            f"random Pac-Man vs random ghosts on {name}: {games / seconds:,.0f} games/s, "
            f"{moves[0] / seconds:,.0f} moves/s"
        )


if __name__ == "__main__":
    main()
