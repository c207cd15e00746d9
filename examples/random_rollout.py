"""A random Pac-Man rollout through the Gymnasium and PettingZoo interfaces. Trains nothing.

    python examples/random_rollout.py [--layout smallClassic] [--seed 0] [--render ansi]

Shows the action order, the action mask in ``info`` (and how to sample with
it), that the rewards add up to the game score, and one cycle of the
multi-agent (AEC) game. ``--render ansi`` prints the board after each move;
``--render human`` opens a window.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gymnasium as gym

from pacman.envs import ACTIONS
from pacman.errors import run_script


def single_agent(layout: str, seed: int, render_mode: str | None) -> None:
    env = gym.make("pacman.envs:Pacman-v0", layout=layout, render_mode=render_mode)
    print(f"actions: {dict(enumerate(ACTIONS))}")
    print(f"observation: {env.observation_space}, channels {env.unwrapped.channel_names}")

    env.action_space.seed(seed)
    _, info = env.reset(seed=seed)
    total, steps, terminated, truncated = 0.0, 0, False, False
    while not (terminated or truncated):
        mask = info["action_mask"]  # 1 for each legal action of the current state
        action = env.action_space.sample(mask=mask)
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
        steps += 1
        if steps <= 5:
            legal = [ACTIONS[i] for i in mask.nonzero()[0]]
            print(f"step {steps}: legal {legal}, played {ACTIONS[action]}, reward {reward:+.0f}")
        if render_mode == "ansi":
            print(env.render())
    state = env.unwrapped.state
    outcome = "won" if state.is_win() else "lost" if state.is_lose() else "truncated"
    print(
        f"episode {outcome} after {steps} steps; return {total:+.0f} = score {info['score']:+.0f}"
    )
    env.close()


def multi_agent(layout: str, seed: int) -> None:
    try:
        from pacman.envs import aec_env

        env = aec_env(layout=layout)
    except Exception as error:  # pettingzoo is an optional extra
        print(f"(skipping the AEC game: {error})")
        return
    env.reset(seed=seed)
    for agent in env.possible_agents:
        observation, _, _, _, _ = env.last()
        action = env.action_space(agent).sample(mask=observation["action_mask"])
        env.step(action)
        print(f"{agent} plays {ACTIONS[action]}; rewards {env.rewards}")
    env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="smallClassic")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--render", choices=["ansi", "human"], default=None)
    args = parser.parse_args()
    single_agent(args.layout, args.seed, args.render)
    multi_agent(args.layout, args.seed)


if __name__ == "__main__":
    run_script(main, "random_rollout.py")
