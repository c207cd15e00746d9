"""Train on generated boards only, then play CS188's boards the learner never saw.

    python examples/generalise.py [--size 20x11] [--train-games 300] [--num-envs 16] [--eval-games 100]

The approximate Q-learner of ``approximate_q.py`` (a weight per feature, CS188's update after
every move, epsilon-greedy over the legal moves) trains on the batched engine
(``PacmanBatchedVectorEnv``, ``--num-envs`` games at once) with ``layout="random:20x11"``: every
game starts on a new generated board, the boards of game ``i`` drawn from seed ``i``. The
feature observation describes what each move leads to in maze distances scaled by the board's
longest one, so it means the same on any board. Then the greedy learner plays 100 games
(seeds 1000-1099, two RandomGhosts, ``PacmanEnv``) on smallClassic and mediumClassic, which it
never saw, and on fresh generated boards (drawn from the evaluation seeds; the script checks that
none was a training board), beside random legal play on smallClassic.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from approximate_q import REWARD_SCALE, LinearQ, greedy
from evaluation import evaluate, random_policy

from pacman.envs.batched.gymenv import PacmanBatchedVectorEnv
from pacman.errors import run_script

UNSEEN = ("smallClassic", "mediumClassic")


def train(size: str, games: int, num_envs: int, seed: int = 0) -> tuple[LinearQ, set[str], int]:
    """Learn from ``games`` finished games on ``random:<size>`` boards; the learner, the names of
    the boards it trained on and the number of moves it learned from."""
    envs = PacmanBatchedVectorEnv(
        num_envs,
        layout=f"random:{size}",
        observation="features",
        reward_scale=REWARD_SCALE,
        max_episode_steps=1000,
    )
    rows = len(envs.feature_names)
    learner = LinearQ(rows, alpha=0.02, gamma=0.9, epsilon=0.05, seed=seed)
    observations, info = envs.reset(seed=seed)
    features, masks = observations.reshape(num_envs, -1, rows), info["action_mask"]
    boards = {envs.games.layout_of(i).name for i in range(num_envs)}
    restarting = np.zeros(num_envs, dtype=bool)
    finished = moves = 0
    while finished < games:
        actions = np.ones(num_envs, dtype=np.int64)  # a restarting game ignores its action
        for i in np.flatnonzero(masks.any(axis=1)):
            actions[i] = learner.act(features[i], masks[i], explore=True)
        observations, rewards, terminated, truncated, info = envs.step(actions)
        following = observations.reshape(num_envs, -1, rows)
        for i in np.flatnonzero(~restarting):  # a restart's step is no move to learn from
            learner.learn(
                features[i],
                actions[i],
                rewards[i],
                following[i],
                info["action_mask"][i],
                terminated[i],
            )
            moves += 1
        for i in np.flatnonzero(restarting):
            boards.add(envs.games.layout_of(i).name)
        restarting = terminated | truncated
        finished += int(restarting.sum())
        features, masks = following, info["action_mask"]
    return learner, boards, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="20x11", help="generated boards' WIDTHxHEIGHT")
    parser.add_argument("--train-games", type=int, default=300)
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--eval-games", type=int, default=100)
    args = parser.parse_args()

    start = time.perf_counter()
    learner, trained_on, moves = train(args.size, args.train_games, args.num_envs)
    seconds = time.perf_counter() - start
    print(
        f"trained on {args.train_games} games on generated {args.size} boards "
        f"({len(trained_on)} boards dealt, {moves} moves, {args.num_envs} games at once) "
        f"in {seconds:.1f} s"
    )
    print("weights: " + ", ".join(f"{w:+.2f}" for w in learner.weights))
    policy = greedy(learner)
    for layout in UNSEEN:
        wins, mean = evaluate(layout, policy, args.eval_games, observation="features")
        print(f"{layout} (never seen): win rate {wins:.0%}, mean score {mean:.1f}")
    fresh: list[str] = []
    spec = f"random:{args.size}"
    wins, mean = evaluate(spec, policy, args.eval_games, boards=fresh, observation="features")
    seen = len(set(fresh) & trained_on)
    print(
        f"{len(set(fresh))} fresh {args.size} boards ({seen} seen in training): "
        f"win rate {wins:.0%}, mean score {mean:.1f}"
    )
    wins, mean = evaluate(UNSEEN[0], random_policy(), args.eval_games)
    print(f"random legal play on {UNSEEN[0]}: win rate {wins:.0%}, mean score {mean:.1f}")


if __name__ == "__main__":
    run_script(main, "generalise.py")
