"""The PettingZoo AEC game: API and seed tests, turn order, zero-sum rewards, observations."""

from __future__ import annotations

import warnings

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

with warnings.catch_warnings():
    # pettingzoo.test loads PettingZoo's own example environments, which warn about their API.
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test, seed_test

from pacman.directions import ACTION_ORDER  # noqa: E402
from pacman.envs import aec_env  # noqa: E402
from pacman.envs.observation import GridEncoder  # noqa: E402
from pacman.errors import IllegalActionError, PacmanError  # noqa: E402
from pacman.layout import load_layout  # noqa: E402
from pacman.state import GameState  # noqa: E402

# api_test says these of every Dict observation with an action mask (it only
# exempts PettingZoo's own classic games by name).
DICT_OBSERVATION_NOTES = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


@pytest.mark.parametrize(
    "layout", ["mediumClassic", "smallClassic", "minimaxClassic", "testClassic"]
)
def test_api_and_seed_tests_pass(layout):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(aec_env(layout=layout), num_cycles=200)
        seed_test(lambda: aec_env(layout=layout), num_cycles=200)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_NOTES


def test_agents_spaces_and_metadata():
    env = aec_env(layout="trickyClassic")
    env.reset(seed=0)
    assert env.possible_agents == ["pacman_0", "ghost_0", "ghost_1", "ghost_2", "ghost_3"]
    assert env.agents == env.possible_agents and env.agent_selection == "pacman_0"
    assert env.metadata["is_parallelizable"] is False
    space = env.observation_space("ghost_2")
    assert space["observation"].shape == (7, 13, 20)
    assert space["action_mask"].shape == (5,) and space["action_mask"].dtype == np.int8
    assert env.channel_names[-1] == "self"
    assert env.state().shape == env.state_space.shape == (6, 13, 20)
    assert env.action_space("pacman_0").n == 5


def _play(env, rng, moves):
    """Masked random moves; returns (agent, reward dict, score change) per move."""
    log = []
    for _ in range(moves):
        agent = env.agent_selection
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            return log
        before = env.game.get_score()
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
        log.append((agent, dict(env.rewards), env.game.get_score() - before))
    return log


def test_turn_order_and_zero_sum_rewards():
    env = aec_env(layout="mediumClassic")
    env.reset()
    log = _play(env, np.random.default_rng(1), 400)
    order = ["pacman_0", "ghost_0", "ghost_1"]
    assert [agent for agent, _, _ in log] == [order[i % 3] for i in range(len(log))]
    for _, rewards, change in log:
        assert rewards["pacman_0"] == change
        assert rewards["ghost_0"] == rewards["ghost_1"] == -change / 2
        assert sum(rewards.values()) == 0
    assert env.game.is_terminal()
    assert all(env.terminations.values())
    # The cumulative rewards Pac-Man is handed add up to the final score.
    assert sum(rewards["pacman_0"] for _, rewards, _ in log) == env.game.get_score()


def test_observations_masks_and_self_channel():
    env = aec_env(layout="smallClassic")
    env.reset()
    rng = np.random.default_rng(2)
    fresh = GridEncoder(env.layout, env.num_ghosts)
    for _ in range(60):
        if env.game.is_terminal():
            break
        state = env.game
        grid = fresh.reset(state)
        for index, agent in enumerate(env.possible_agents):
            observation = env.observe(agent)
            assert np.array_equal(observation["observation"][:-1], grid)
            position = (
                state.get_pacman_position() if index == 0 else state.get_ghost_position(index)
            )
            own = np.zeros(grid.shape[1:], dtype=np.float32)
            own[fresh.cell(position)] = 1.0
            assert np.array_equal(observation["observation"][-1], own)
            legal = state.get_legal_actions(index)
            assert observation["action_mask"].tolist() == [int(a in legal) for a in ACTION_ORDER]
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_illegal_and_out_of_range_actions_raise():
    env = aec_env(layout="mediumClassic")
    env.reset()
    with pytest.raises(IllegalActionError, match=r"action 3 \(North\) is illegal for pacman_0"):
        env.step(3)
    with pytest.raises(PacmanError, match="not in Discrete"):
        env.step(7)
    env.step(1)  # Pac-Man stops; ghosts may not
    with pytest.raises(IllegalActionError, match="ghost_0"):
        env.step(1)


def test_truncation_after_max_cycles():
    env = aec_env(layout="mediumClassic", num_ghosts=0, max_cycles=3)
    env.reset()
    for _ in range(3):
        assert not env.truncations["pacman_0"]
        env.step(1)
    assert env.truncations == {"pacman_0": True}
    env.step(None)
    assert env.agents == []


def test_reset_from_a_state_and_rendering():
    layout = load_layout("smallClassic")
    start = GameState.initial(layout).generate_successor(0, "West")
    for misuse in (lambda env: env.observe("pacman_0"), lambda env: env.step(1)):
        with pytest.raises(PacmanError, match="reset"):
            misuse(aec_env(layout=layout))
    env = aec_env(layout=layout, render_mode="ansi")
    env.reset(options={"state": start})
    assert env.game is start
    assert env.render() == str(start) + "\n"
    env = aec_env(layout=layout, render_mode="rgb_array")
    env.reset()
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 4
    env.close()
    env.close()


def test_human_mode_with_a_dummy_driver(monkeypatch):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = aec_env(layout="testClassic", render_mode="human")
    env.metadata = {**env.metadata, "render_fps": 1000}
    env.reset()
    env.step(1)
    env.step(int(np.flatnonzero(env.observe("ghost_0")["action_mask"])[0]))
    assert env.render() is None
    env.close()
    env.close()
