"""Stable-Baselines3: its check_env on the feature observation, and the batched VecEnv adapter.

These need the [learn] extra (stable-baselines3, sb3-contrib and torch), which
CI's [test] extra leaves out: see "Dependencies" in docs/envs.md.
"""

from __future__ import annotations

import warnings

import pytest

np = pytest.importorskip("numpy")
gym = pytest.importorskip("gymnasium")
pytest.importorskip(
    "stable_baselines3", reason="stable-baselines3 is in the [learn] extra, not in [test]"
)

from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from pacman.envs.sb3 import PacmanSB3VecEnv  # noqa: E402


@pytest.mark.parametrize("layout", ["smallClassic", "mediumClassic"])
def test_sb3_check_env_passes_without_warnings_on_features(layout):
    env = gym.make("pacman.envs:Pacman-v0", layout=layout, observation="features")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
        check_env(env)
    assert [str(w.message) for w in caught] == []


def _same_step(got, expected) -> None:
    for a, b in zip(got[:3], expected[:3], strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    for info, other in zip(got[3], expected[3], strict=True):
        assert info.keys() == other.keys()
        for key, value in info.items():
            assert type(value) is type(other[key]), key
            assert np.array_equal(value, other[key]), key


@pytest.mark.parametrize("observation", ["features", "grid"])
def test_adapter_gives_dummy_vec_env_trajectories(observation):
    kwargs = {"layout": "smallClassic", "observation": observation}
    adapter = PacmanSB3VecEnv(4, max_episode_steps=30, **kwargs)
    single = DummyVecEnv(
        [lambda: gym.make("pacman.envs:Pacman-v0", max_episode_steps=30, **kwargs)] * 4
    )
    assert adapter.observation_space == single.observation_space
    adapter.seed(5)
    single.seed(5)
    assert np.array_equal(adapter.reset(), single.reset())
    ended = 0
    for actions in np.random.default_rng(0).integers(0, 5, size=(150, 4)):
        got, expected = adapter.step(actions), single.step(actions)
        _same_step(got, expected)
        for info, other in zip(adapter.reset_infos, single.reset_infos, strict=True):
            assert np.array_equal(info["action_mask"], other["action_mask"])
        ended += int(got[2].sum())
    assert ended >= 20  # both losses and the 30-step limit restarted games


def test_adapter_serves_action_masks_and_attributes():
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="sb3-contrib is in the [learn] extra")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    adapter = PacmanSB3VecEnv(2, layout="smallClassic", observation="features")
    adapter.reset()
    assert is_masking_supported(adapter)
    masks = get_action_masks(adapter)
    assert masks.tolist() == [[True, True, True, False, False]] * 2
    assert np.array_equal(adapter.action_masks(), masks)
    assert adapter.get_attr("num_ghosts") == [2, 2]
    assert adapter.env_is_wrapped(gym.Wrapper) == [False, False]
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", adapter, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(total_timesteps=32)
    assert model.num_timesteps == 32
