"""Training time and evaluation of the learning examples (minutes, not a test).

    python benchmarks/bench_learning.py [--layout smallClassic] [--q-games 300] [--sb3-steps 500000]

Trains examples/approximate_q.py's linear Q-learner and examples/train_sb3.py's
MaskablePPO (skipped, with the install line, without the [learn] extra), then
plays 100 games with each on seeds 1000-1099, beside two random players on the
same seeds: uniform over the legal moves, and uniform over all five actions
(walls played as Stop). Prints wall-clock and CPU seconds of training and the
load average, since the 2-CPU machine is shared.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
)

import approximate_q
from evaluation import evaluate, random_policy


def uniform_policy(seed: int = 0):
    """Any of the five actions, legal or not (what an untrained, unmasked policy does)."""
    rng = np.random.default_rng(seed)
    return lambda observation, mask: int(rng.integers(5))


def timed(train):
    wall, cpu = time.perf_counter(), time.process_time()
    result = train()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def report(name: str, win_rate: float, mean: float, games: int, seconds: str = "") -> None:
    print(
        f"{name:34s} {seconds:>18s}  win rate {win_rate:4.0%}  mean score {mean:8.1f}  ({games} games)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="smallClassic")
    parser.add_argument("--q-games", type=int, default=300, help="training games of the Q-learner")
    parser.add_argument("--sb3-steps", type=int, default=500_000, help="MaskablePPO steps")
    parser.add_argument("--sb3-envs", type=int, default=8)
    parser.add_argument("--eval-games", type=int, default=100)
    args = parser.parse_args()
    layout, games = args.layout, args.eval_games

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"layout {layout}, two RandomGhosts; {os.cpu_count()} CPUs, load average {load:.1f}")
    print(f"{'':34s} {'train wall / CPU s':>18s}")
    report("random, all five actions", *evaluate(layout, uniform_policy(), games), games)
    report("random, legal actions", *evaluate(layout, random_policy(), games), games)

    learner, wall, cpu = timed(lambda: approximate_q.train(layout, args.q_games))
    policy = approximate_q.greedy(learner)
    result = evaluate(layout, policy, games, observation="features")
    report(f"approximate Q, {args.q_games} games", *result, games, f"{wall:.1f} / {cpu:.1f}")

    try:
        import train_sb3

        from pacman.envs._optional import require

        require("torch").set_num_threads(1)
    except Exception as error:  # the [learn] extra is optional
        print(f"MaskablePPO skipped: {error}")
        return
    model, wall, cpu = timed(lambda: train_sb3.train(layout, args.sb3_steps, args.sb3_envs))
    result = evaluate(layout, train_sb3.policy_of(model, True), games, observation="features")
    report(f"MaskablePPO, {args.sb3_steps} steps", *result, games, f"{wall:.0f} / {cpu:.0f}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average at the end {load:.1f}")


if __name__ == "__main__":
    main()
