"""Fixed-seed evaluation shared by the training examples and benchmarks/bench_learning.py."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gymnasium as gym

#: Evaluation game ``i`` is seeded ``EVAL_SEED + i``; training seeds stay below it.
EVAL_SEED = 1000
#: ``(observation, action_mask) -> action``
Policy = Callable[[np.ndarray, np.ndarray], int]


def make_env(layout: str, **env_kwargs: Any) -> gym.Env:
    """The registered environment (1000-step limit) on ``layout``."""
    return gym.make("pacman.envs:Pacman-v0", layout=layout, **env_kwargs)


def evaluate(
    layout: str,
    policy: Policy,
    games: int = 100,
    boards: list[str] | None = None,
    **env_kwargs: Any,
) -> tuple[float, float]:
    """Win rate and mean game score of ``policy`` over ``games`` games seeded from EVAL_SEED.

    ``boards`` collects the name of each game's board (a ``random:`` layout draws new ones).
    """
    env = make_env(layout, **env_kwargs)
    wins, scores = 0, []
    for game in range(games):
        observation, info = env.reset(seed=EVAL_SEED + game)
        if boards is not None:
            boards.append(env.unwrapped.layout.name)
        done = False
        while not done:
            action = policy(observation, info["action_mask"])
            observation, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        wins += env.unwrapped.state.is_win()
        scores.append(info["score"])
    env.close()
    return wins / games, float(np.mean(scores))


def random_policy(seed: int = 0) -> Policy:
    """Uniform over the legal actions."""
    rng = np.random.default_rng(seed)
    return lambda observation, mask: int(rng.choice(np.flatnonzero(mask)))
