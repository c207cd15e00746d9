"""One game on a large generated board with the feature observation: time and peak memory.

    python benchmarks/bench_large_board.py [--layout random:100x100,seed=1] [--steps 3000]

Random legal moves (``action_space.sample(mask=...)``, seeded 0) up to ``--steps`` or the end of
the game. Prints the seconds of ``reset`` (the board and its longest maze distance), the steps
and their seconds, and the process's peak resident memory.
"""

from __future__ import annotations

import argparse
import resource
import time

import gymnasium

import pacman.envs  # noqa: F401  (registers the ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="random:100x100,seed=1")
    parser.add_argument("--steps", type=int, default=3000)
    options = parser.parse_args()
    started = time.perf_counter()
    env = gymnasium.make(
        "pacman.envs:Pacman-v0",
        layout=options.layout,
        observation="features",
        max_episode_steps=options.steps,
    )
    env.action_space.seed(0)
    _, info = env.reset(seed=0)
    reset = time.perf_counter() - started
    steps, done = 0, False
    while not done:
        _, _, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
        steps, done = steps + 1, terminated or truncated
    played = time.perf_counter() - started - reset
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{options.layout}: reset {reset:.2f} s, {steps} steps in {played:.2f} s, peak {peak:.0f} MB"
    )


if __name__ == "__main__":
    main()
