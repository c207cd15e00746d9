"""The batched multi-agent game: PettingZoo's tests, and PacmanParallelEnv game for game."""

from __future__ import annotations

import warnings

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

with warnings.catch_warnings():
    # pettingzoo.test loads PettingZoo's own example environments, which warn about their API.
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import parallel_api_test, parallel_seed_test

from same_values import assert_same  # noqa: E402

from pacman.envs.batched.zoo import PacmanBatchedParallelEnv  # noqa: E402
from pacman.envs.parallel import PacmanParallelEnv  # noqa: E402
from pacman.errors import IllegalActionError, PacmanError  # noqa: E402


@pytest.mark.parametrize("layout", ["smallClassic", "trickyClassic", "random:12x9"])
def test_parallel_api_test_passes(layout, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(PacmanBatchedParallelEnv(layout=layout), num_cycles=300)
    assert [str(w.message) for w in caught] == []
    assert "Passed Parallel API test" in capsys.readouterr().out


def test_parallel_seed_test_passes_with_drawn_boards():
    parallel_seed_test(lambda: PacmanBatchedParallelEnv(layout="random:12x8"))


@pytest.mark.parametrize("layout", ["smallClassic", "capsuleClassic"])
def test_one_game_is_the_object_parallel_game(layout):
    rng = np.random.default_rng(1)
    for game in range(12):
        old = PacmanParallelEnv(layout=layout, max_cycles=50)
        new = PacmanBatchedParallelEnv(layout=layout, max_cycles=50)
        observations, infos = old.reset()
        assert_same((observations, infos), new.reset(seed=game), "reset")
        while old.agents:
            actions = {}
            for agent in old.agents:
                legal = np.flatnonzero(observations[agent]["action_mask"])
                # Some illegal moves (played as Stop or a first legal move) and a missing agent.
                wild = rng.random() < 0.2
                actions[agent] = int(rng.integers(0, 5) if wild else rng.choice(legal))
            if rng.random() < 0.1:
                actions.pop(old.agents[-1])
            expected = old.step(actions)
            assert_same(expected, new.step(actions), f"game {game}")
            observations = expected[0]
            assert old.agents == new.agents


def test_batched_games_are_the_object_games_with_autoreset():
    count, layout = 5, "capsuleClassic"
    rng = np.random.default_rng(2)
    new = PacmanBatchedParallelEnv(count, layout=layout, max_cycles=30)
    olds = [PacmanParallelEnv(layout=layout, max_cycles=30) for _ in range(count)]
    new.reset(seed=0)
    for old in olds:
        old.reset()
    restart = [False] * count
    restarts = 0
    for _ in range(200):
        actions = {agent: rng.integers(0, 5, size=count) for agent in new.possible_agents}
        observations, rewards, terminations, truncations, infos = new.step(actions)
        for i, old in enumerate(olds):
            if restart[i]:  # the game restarted: its actions were ignored
                expected = old.reset()[0]
                restart[i], restarts = False, restarts + 1
                for agent in new.possible_agents:
                    assert rewards[agent][i] == 0 and not terminations[agent][i]
            else:
                step = old.step({agent: int(moves[i]) for agent, moves in actions.items()})
                expected = step[0]
                for agent in new.possible_agents:
                    assert step[1][agent] == rewards[agent][i]
                    assert step[2][agent] == terminations[agent][i]
                    assert step[3][agent] == truncations[agent][i]
                    assert step[4][agent]["illegal"] == infos[agent]["illegal"][i]
                restart[i] = not old.agents
            for agent in new.possible_agents:
                mine = {key: value[i] for key, value in observations[agent].items()}
                assert_same(expected[agent], mine, f"game {i}")
    assert restarts > 10


def test_batched_spaces_sample_with_the_masks_and_errors_are_one_line():
    env = PacmanBatchedParallelEnv(4, layout="smallClassic", illegal_action="error")
    observations, _ = env.reset(seed=0)
    for agent in env.possible_agents:
        space = env.action_space(agent)
        actions = space.sample(mask=observations[agent]["action_mask"])
        assert actions.shape == (4,)
        assert observations[agent]["action_mask"][np.arange(4), actions].all()
        assert observations[agent] in env.observation_space(agent)
    with pytest.raises(PacmanError, match=r"^action \[9\] of pacman_0 is not in Discrete\(5\)"):
        env.step({"pacman_0": [9]})
    with pytest.raises(IllegalActionError, match=r"^action 3 \(North\) is illegal for pacman_0"):
        env.step({"pacman_0": np.full(4, 3)})
    with pytest.raises(PacmanError, match=r"^num_envs must be a whole number of games >= 1"):
        PacmanBatchedParallelEnv(0)
