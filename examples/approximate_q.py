"""A linear approximate Q-learner on the feature observation: only the env API and NumPy.

    python examples/approximate_q.py [--layout smallClassic] [--train-games 300] [--eval-games 100]

Q(s, a) is a weight vector times action ``a``'s row of the feature
observation (``observation.reshape(5, -1)``); after each step the weights move
toward ``reward + gamma * max Q(s', .)``, as in CS188's approximate Q-learning.
Exploration is epsilon-greedy over the legal actions (``info["action_mask"]``).
Training uses seeds 0, 1, ...; evaluation plays greedily on seeds 1000, 1001, ...
and prints the win rate and mean score, beside random legal play on the same seeds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from evaluation import evaluate, make_env, random_policy

from pacman.errors import run_script

# Rewards of +-500 would swamp features in [0, 1]; a hundredth keeps the steps small.
REWARD_SCALE = 0.01


class LinearQ:
    """Q(s, a) = weights . features[a]; the first feature, ``legal``, acts as the bias."""

    def __init__(self, num_features: int, alpha: float, gamma: float, epsilon: float, seed: int):
        self.weights = np.zeros(num_features)
        self.alpha, self.gamma, self.epsilon = alpha, gamma, epsilon
        self.rng = np.random.default_rng(seed)

    def values(self, features: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Q of each action, minus infinity for the illegal ones."""
        return np.where(mask.astype(bool), features @ self.weights, -np.inf)

    def act(self, features: np.ndarray, mask: np.ndarray, explore: bool) -> int:
        if explore and self.rng.random() < self.epsilon:
            return int(self.rng.choice(np.flatnonzero(mask)))
        return int(np.argmax(self.values(features, mask)))

    def learn(self, features, action, reward, next_features, next_mask, done) -> None:
        target = (
            reward if done else reward + self.gamma * self.values(next_features, next_mask).max()
        )
        error = target - features[action] @ self.weights
        self.weights += self.alpha * error * features[action]


def train(layout: str, games: int, seed: int = 0) -> LinearQ:
    """Learn on ``games`` games seeded ``seed``, ``seed + 1``, ..."""
    env = make_env(layout, observation="features", reward_scale=REWARD_SCALE)
    rows = len(env.unwrapped.feature_names)
    learner = LinearQ(rows, alpha=0.02, gamma=0.9, epsilon=0.05, seed=seed)
    for game in range(games):
        observation, info = env.reset(seed=seed + game)
        features, mask = observation.reshape(-1, rows), info["action_mask"]
        done = False
        while not done:
            action = learner.act(features, mask, explore=True)
            observation, reward, terminated, truncated, info = env.step(action)
            next_features, next_mask = observation.reshape(-1, rows), info["action_mask"]
            learner.learn(features, action, reward, next_features, next_mask, terminated)
            features, mask, done = next_features, next_mask, terminated or truncated
    env.close()
    return learner


def greedy(learner: LinearQ):
    """The learner's best legal action, as an evaluation policy."""
    rows = learner.weights.size
    return lambda observation, mask: learner.act(observation.reshape(-1, rows), mask, explore=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="smallClassic")
    parser.add_argument("--train-games", type=int, default=300)
    parser.add_argument("--eval-games", type=int, default=100)
    args = parser.parse_args()

    start = time.perf_counter()
    learner = train(args.layout, args.train_games)
    seconds = time.perf_counter() - start
    print(f"trained on {args.train_games} {args.layout} games in {seconds:.1f} s")
    print("weights: " + ", ".join(f"{w:+.2f}" for w in learner.weights))
    win_rate, mean = evaluate(args.layout, greedy(learner), args.eval_games, observation="features")
    print(
        f"approximate Q: win rate {win_rate:.0%}, mean score {mean:.1f} over {args.eval_games} games"
    )
    win_rate, mean = evaluate(args.layout, random_policy(), args.eval_games)
    print(f"random legal play: win rate {win_rate:.0%}, mean score {mean:.1f}")


if __name__ == "__main__":
    run_script(main, "approximate_q.py")
