"""The PettingZoo parallel game: parallel_api_test, simultaneous moves in game order, rewards."""

from __future__ import annotations

import warnings

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

with warnings.catch_warnings():
    # pettingzoo.test loads PettingZoo's own example environments, which warn about their API.
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import parallel_api_test

from pacman.directions import ACTION_ORDER  # noqa: E402
from pacman.envs import aec_env, parallel_env  # noqa: E402
from pacman.errors import IllegalActionError  # noqa: E402


@pytest.mark.parametrize("layout", ["smallClassic", "mediumClassic", "trickyClassic"])
def test_parallel_api_test_passes(layout, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(parallel_env(layout=layout), num_cycles=300)
    assert [str(w.message) for w in caught] == []
    assert "Passed Parallel API test" in capsys.readouterr().out


def _masked_choices(observations, rng):
    return {
        agent: int(rng.choice(np.flatnonzero(observation["action_mask"])))
        for agent, observation in observations.items()
    }


def test_a_step_is_one_aec_cycle_with_zero_sum_rewards():
    """The same moves give the parallel game the AEC game's states and summed rewards."""
    parallel, aec = parallel_env(layout="smallClassic"), aec_env(layout="smallClassic")
    observations, infos = parallel.reset(seed=0)
    aec.reset(seed=0)
    assert set(observations) == set(infos) == {"pacman_0", "ghost_0", "ghost_1"}
    rng = np.random.default_rng(0)
    steps = 0
    while parallel.agents:
        actions = _masked_choices(observations, rng)
        observations, rewards, terminations, truncations, infos = parallel.step(actions)
        cycle = dict.fromkeys(rewards, 0.0)
        for agent in parallel.possible_agents:
            if aec.terminations[agent]:
                break
            aec.step(actions[agent])
            for name in cycle:
                cycle[name] += aec.rewards[name]
        assert rewards == pytest.approx(cycle)
        assert sum(rewards.values()) == pytest.approx(0.0)
        assert parallel.game == aec.game
        assert np.array_equal(parallel.state(), aec.state())
        assert not any(info["illegal"] for info in infos.values())
        steps += 1
    assert all(terminations.values()) and not any(truncations.values())
    assert parallel.game.is_lose() or parallel.game.is_win()
    assert steps == parallel._cycles > 1


def test_observations_mark_each_agent_and_mask_its_moves():
    env = parallel_env(layout="smallClassic")
    observations, _ = env.reset()
    ghost = observations["ghost_1"]
    assert ghost["observation"].shape == (7, 7, 20)
    # ghost_1 (agent 2) starts at (11, 5): row 7 - 1 - 5 = 1 of the grid.
    assert np.flatnonzero(ghost["observation"][-1]).tolist() == [1 * 20 + 11]
    legal = env.game.get_legal_actions(2)
    assert [ACTION_ORDER[i] for i in np.flatnonzero(ghost["action_mask"])] == legal


def test_illegal_moves_are_replaced_or_raise():
    env = parallel_env(layout="smallClassic")
    env.reset()
    north = ACTION_ORDER.index("North")  # into a wall for Pac-Man at the start
    _, _, _, _, infos = env.step({"pacman_0": north})  # ghosts left out: first legal move
    assert infos["pacman_0"]["illegal"] is True
    assert env.game.get_pacman_position() == (9, 1)  # played as Stop
    assert not infos["ghost_0"]["illegal"]
    strict = parallel_env(layout="smallClassic", illegal_action="error")
    strict.reset()
    with pytest.raises(IllegalActionError, match="action 3 \\(North\\) is illegal for pacman_0"):
        strict.step({"pacman_0": north})


def test_truncation_after_max_cycles_empties_the_agents():
    env = parallel_env(layout="mediumClassic", max_cycles=3)
    observations, _ = env.reset()
    rng = np.random.default_rng(1)
    for cycle in range(3):
        observations, _, terminations, truncations, _ = env.step(_masked_choices(observations, rng))
        assert not any(terminations.values())
        assert all(truncations.values()) == (cycle == 2)
    assert env.agents == []
