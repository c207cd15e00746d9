"""MaskablePPO (sb3-contrib) on the feature observation, through the batched SB3 adapter.

    pip install torch --index-url https://download.pytorch.org/whl/cpu   # a CPU build
    pip install '.[learn]'                                               # in the project's folder
    python examples/train_sb3.py [--layout smallClassic] [--steps 500000] [--envs 8] [--eval-games 100]

Trains on ``PacmanSB3VecEnv`` (the in-process ``PacmanVectorEnv`` behind
SB3's ``VecEnv`` interface), whose ``action_masks()`` keeps the policy to legal
moves, then plays 100 games deterministically on seeds 1000, 1001, ... and
prints the win rate and mean score beside random legal play on the same seeds.
``--algorithm ppo`` trains plain PPO instead (illegal moves are played as Stop).
"""

from __future__ import annotations

import argparse
import time

from evaluation import evaluate, random_policy

from pacman.envs._optional import require
from pacman.errors import run_script

# Scores of +-500 make PPO's value loss explode; a hundredth keeps returns near 1-10.
REWARD_SCALE = 0.01


def train(layout: str, steps: int, envs: int, algorithm: str = "maskable", seed: int = 0):
    """A model trained for ``steps`` environment steps on ``envs`` games seeded from ``seed``."""
    from pacman.envs.sb3 import PacmanSB3VecEnv

    vec_env = PacmanSB3VecEnv(
        envs, layout=layout, observation="features", reward_scale=REWARD_SCALE
    )
    vec_env.seed(seed)
    if algorithm == "maskable":
        model_class = require("sb3_contrib").MaskablePPO
    else:
        model_class = require("stable_baselines3").PPO
    model = model_class(
        "MlpPolicy", vec_env, n_steps=256, batch_size=512, gamma=0.95, seed=seed, device="cpu"
    )
    model.learn(total_timesteps=steps)
    vec_env.close()
    return model


def policy_of(model, masked: bool):
    """The model's deterministic choice, given the legal actions when it was trained with them."""

    def choose(observation, mask) -> int:
        if masked:
            action, _ = model.predict(
                observation, action_masks=mask.astype(bool), deterministic=True
            )
        else:
            action, _ = model.predict(observation, deterministic=True)
        return int(action)

    return choose


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="smallClassic")
    parser.add_argument("--steps", type=int, default=500_000)
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--algorithm", choices=["maskable", "ppo"], default="maskable")
    parser.add_argument("--eval-games", type=int, default=100)
    args = parser.parse_args()
    require("torch").set_num_threads(1)  # small networks: threads cost more than they give

    start = time.perf_counter()
    model = train(args.layout, args.steps, args.envs, args.algorithm)
    seconds = time.perf_counter() - start
    print(f"{args.algorithm} trained for {args.steps} steps on {args.layout} in {seconds:.0f} s")
    policy = policy_of(model, args.algorithm == "maskable")
    win_rate, mean = evaluate(args.layout, policy, args.eval_games, observation="features")
    print(
        f"{args.algorithm}: win rate {win_rate:.0%}, mean score {mean:.1f} over {args.eval_games} games"
    )
    win_rate, mean = evaluate(args.layout, random_policy(), args.eval_games)
    print(f"random legal play: win rate {win_rate:.0%}, mean score {mean:.1f}")


if __name__ == "__main__":
    run_script(main, "train_sb3.py")
