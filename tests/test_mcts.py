"""MCTSAgent: reproducible for a seed, stronger than random, right on a tree it can solve."""

from __future__ import annotations

import pytest

from agents.mcts import MCTSAgent
from pacman.errors import AgentError
from pacman.gametree import GameTree
from pacman.runner import GameSpec, play

# The project's q6/4-two-rounds tree: two rounds, chance ghosts with probabilities, a win and
# a loss on the way. Right is worth 30, Left 25 (an expectimax of depth 2 says so).
TWO_ROUNDS = GameTree.from_fields(
    {
        "num_agents": "2",
        "start_state": "root",
        "win_states": "W",
        "lose_states": "L",
        "successors": """
            root Left g1
            root Right g2
            g1 a W 1/4
            g1 b h1 3/4
            h1 Left g3
            h1 Right g4
            g3 a A 1/2
            g3 b B 1/2
            g4 a C 0.9
            g4 b L 0.1
            g2 a h2
            h2 Left g5
            h2 Right g6
            g5 a D 1
            g6 a E 1/2
            g6 b F 1/2
        """,
        "evaluation": "W 100\nA 10\nB -10\nC 20\nL -500\nD 30\nE 40\nF 0",
    }
)


def mcts_on_tree(seed: int, simulations: int) -> tuple[str, MCTSAgent]:
    import random

    agent = MCTSAgent(
        simulations=simulations,
        c=1.4,
        rollout="random",
        evalFn="score",
        ghostModel=TWO_ROUNDS.ghost_model,
        rng=random.Random(seed),
    )
    return agent.get_action(TWO_ROUNDS.start), agent


@pytest.mark.parametrize("seed", range(5))
def test_finds_the_best_action_of_a_tree_given_enough_simulations(seed):
    action, agent = mcts_on_tree(seed, 3000)
    assert action == "Right"
    assert agent.stats.simulations == [3000]


def test_one_simulation_per_root_action_tries_each_once_in_order():
    action, agent = mcts_on_tree(0, 1)
    # One simulation has tried only the first action, so that is the most tried.
    assert action == "Left"
    assert agent.stats.summary().endswith(", 1 simulations/move (1-1)")


def small_game(pacman: str, args: dict[str, str], seed: int):
    spec = GameSpec("smallClassic", pacman, args, num_ghosts=2, seed=seed, max_moves=150)
    return play(spec)


MCTS = {"simulations": "20", "depth": "2"}


def test_a_seed_gives_the_same_game_twice():
    first = small_game("MCTSAgent", MCTS, 11)
    second = small_game("MCTSAgent", MCTS, 11)
    assert first.actions == second.actions and first.score == second.score
    assert len(first.actions) > 50
    assert "20 simulations/move (20-20)" in (first.stats or "")


def test_beats_random_play_by_a_clear_margin_on_small_classic():
    seeds = range(3)
    mcts = [small_game("MCTSAgent", MCTS, seed).score for seed in seeds]
    random_play = [small_game("RandomAgent", {}, seed).score for seed in seeds]
    assert sum(mcts) / 3 > sum(random_play) / 3 + 1000, (mcts, random_play)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"simulations": "10", "time": "0.1"}, "give simulations= or time=, not both"),
        ({"simulations": "0"}, "simulations must be at least 1"),
        ({"rollout": "smart"}, "rollout=smart: unknown playout policy; known: random, greedy"),
        ({"c": "big"}, "bad argument"),
        ({"ghostModel": "sideways"}, "ghostModel=sideways: unknown ghost model"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(AgentError, match=message):
        MCTSAgent(**kwargs)
