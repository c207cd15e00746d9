"""The batched Gymnasium environments: game for game what today's environments return.

``PacmanVectorEnv`` is given ghosts that draw from the batched games' streams (a ghost factory
with one ``StreamRandom`` per game, seeded as the batched game is), so every observation,
reward, end flag and info entry must be equal, through autoresets and time limits.
"""

from __future__ import annotations

import warnings

import pytest

np = pytest.importorskip("numpy")
gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402
from same_values import assert_same  # noqa: E402

from pacman.envs import BATCHED_ID  # noqa: E402
from pacman.envs.batched import kernel  # noqa: E402
from pacman.envs.batched.gymenv import PacmanBatchedEnv, PacmanBatchedVectorEnv  # noqa: E402
from pacman.envs.batched.streams import StreamRandom  # noqa: E402
from pacman.envs.vector import PacmanVectorEnv  # noqa: E402
from pacman.errors import IllegalActionError, LayoutError, PacmanError  # noqa: E402
from pacman.ghosts import DirectionalGhost, RandomGhost  # noqa: E402

GHOSTS = {"random": RandomGhost, "directional": DirectionalGhost}
#: The batched engine's paths: NumPy, and the Numba kernel where it is installed.
PATHS = (False, True) if kernel.available() else (False,)


def object_env(count: int, seed: int, ghost: str, **kwargs) -> PacmanVectorEnv:
    """Today's vector env whose game ``i`` ghosts draw from ``StreamRandom(seed + i)``."""
    streams = [StreamRandom(seed + i) for i in range(count)]
    built: list[int] = []

    def factory(index, rng):
        if index == 1:
            built.append(index)
        return GHOSTS[ghost](index, rng=streams[len(built) - 1])

    return PacmanVectorEnv(count, ghost=factory, **kwargs)


CASES = [
    ("smallClassic", {"observation": "grid"}, "random", "next_step"),
    ("mediumClassic", {"observation": "grid", "reward_scale": 0.01}, "directional", "next_step"),
    ("capsuleClassic", {"observation": "features"}, "directional", "same_step"),
    ("capsuleClassic", {"observation": "features"}, "random", "next_step"),
    ("trickyClassic", {"observation": "window", "window_radius": 3}, "random", "same_step"),
    ("trickyClassic", {"per_ghost_channels": True}, "directional", "same_step"),
    ("powerClassic", {"observation": "window"}, "directional", "next_step"),
    ("trickyClassic", {"observation": "features", "num_ghosts": 1}, "random", "next_step"),
    ("openClassic", {"num_ghosts": 0}, "random", "same_step"),
]


@pytest.mark.parametrize("compiled", PATHS)
@pytest.mark.parametrize(("layout", "kwargs", "ghost", "mode"), CASES)
def test_game_for_game_what_the_object_vector_env_returns(layout, kwargs, ghost, mode, compiled):
    count, seed, limit = 6, 11, 40
    common = dict(layout=layout, max_episode_steps=limit, autoreset_mode=mode, **kwargs)
    old = object_env(count, seed, ghost, **common)
    new = PacmanBatchedVectorEnv(count, ghost=ghost, compiled=compiled, **common)
    assert new.single_observation_space == old.single_observation_space
    assert new.observation_space == old.observation_space  # bounds shared, not copied per game
    assert new.channel_names == old.channel_names and new.feature_names == old.feature_names
    assert_same(old.reset(seed=seed), new.reset(seed=seed), "reset")
    rng = np.random.default_rng(seed)
    ended = 0
    for step in range(300):
        actions = rng.integers(0, 5, size=count)
        expected, got = old.step(actions), new.step(actions)
        assert_same(expected, got, f"step {step}")
        ended += int(expected[2].sum() + expected[3].sum())
    assert ended > 20  # wins, losses and time limits, all autoreset


def test_partial_reset_matches_the_object_vector_env():
    old = object_env(4, 3, "random", layout="smallClassic")
    new = PacmanBatchedVectorEnv(4, layout="smallClassic")
    assert_same(old.reset(seed=3), new.reset(seed=3), "reset")
    actions = np.array([0, 2, 3, 4])
    for _ in range(5):
        assert_same(old.step(actions), new.step(actions), "step")
    mask = {"reset_mask": np.array([True, False, True, False])}
    assert_same(old.reset(options=mask), new.reset(options=mask), "partial reset")
    for _ in range(5):
        assert_same(old.step(actions), new.step(actions), "step after")


@pytest.mark.parametrize("layout", ["smallClassic", "random:12x9,ghosts=3"])
def test_make_vec_default_is_the_batched_env_and_equals_sync_and_async(layout):
    kwargs = dict(num_envs=3, layout=layout, ghost="directional")
    batched = gym.make_vec(f"pacman.envs:{BATCHED_ID}", **kwargs)
    sync = gym.make_vec(f"pacman.envs:{BATCHED_ID}", vectorization_mode="sync", **kwargs)
    assert type(batched).__name__ == "PacmanBatchedVectorEnv"
    assert batched.max_episode_steps == 1000
    assert_same(batched.reset(seed=5), sync.reset(seed=5), "reset")
    rng = np.random.default_rng(5)
    for step in range(250):
        actions = rng.integers(0, 5, size=3)
        assert_same(batched.step(actions), sync.step(actions), f"step {step}")
    async_envs = gym.make_vec(f"pacman.envs:{BATCHED_ID}", vectorization_mode="async", **kwargs)
    try:
        assert_same(batched.reset(seed=9)[0], async_envs.reset(seed=9)[0], "async reset")
    finally:
        async_envs.close()


def test_same_step_autoreset_equals_gymnasiums():
    kwargs = dict(layout="minimaxClassic", max_episode_steps=None)
    batched = PacmanBatchedVectorEnv(3, autoreset_mode="same_step", **kwargs)
    sync = SyncVectorEnv(
        [lambda: gym.make(f"pacman.envs:{BATCHED_ID}", **kwargs)] * 3,
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    assert_same(batched.reset(seed=1), sync.reset(seed=1), "reset")
    rng = np.random.default_rng(1)
    for step in range(60):
        actions = rng.integers(0, 5, size=3)
        assert_same(batched.step(actions), sync.step(actions), f"step {step}")


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"layout": "random:15x9"},
        {"observation": "features", "layout": "smallClassic"},
        {"observation": "window", "ghost": "directional", "per_ghost_channels": True},
    ],
)
def test_check_env_passes_without_warnings(kwargs):
    env = gym.make(f"pacman.envs:{BATCHED_ID}", **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


def test_a_distribution_draws_a_new_board_each_episode_the_same_for_a_seed():
    envs = PacmanBatchedVectorEnv(4, layout="random:11x9,capsules=1", max_episode_steps=5)

    def boards() -> list[str]:
        return [envs.games.layout_of(i).name for i in range(4)]

    envs.reset(seed=0)
    first = boards()
    assert len(set(first)) == 4 and all(name.startswith("random:11x9,seed=") for name in first)
    for _ in range(6):  # the time limit ends every game at step 5; step 6 restarts them
        envs.step(np.ones(4, dtype=np.int64))
    second = boards()
    assert not set(first) & set(second)
    envs.reset(seed=0)
    assert boards() == first


def test_bad_arguments_are_one_line_errors():
    for count in (0, -2, 2.5, "8", True):
        with pytest.raises(PacmanError, match=r"^num_envs must be a whole number of games >= 1"):
            PacmanBatchedVectorEnv(count)
    with pytest.raises(LayoutError, match=r"^layout spec 'random:3x9': width 3 is out of range"):
        PacmanBatchedVectorEnv(2, layout="random:3x9")
    with pytest.raises(PacmanError, match=r"^observation must be one of"):
        PacmanBatchedVectorEnv(2, observation="dict")
    with pytest.raises(PacmanError, match=r"^the batched engine has no GameStates to hand"):
        PacmanBatchedVectorEnv(2, reward_fn=lambda before, after: 0.0)
    with pytest.raises(PacmanError, match=r"^the batched environments do not render"):
        PacmanBatchedVectorEnv(2, render_mode="rgb_array")
    with pytest.raises(PacmanError, match=r"^the batched engine's ghosts are 'random'"):
        PacmanBatchedVectorEnv(2, ghost=lambda index, rng: None)
    envs = PacmanBatchedVectorEnv(2, layout="smallClassic")
    envs.reset(seed=0)
    with pytest.raises(PacmanError, match=r"^step got actions of shape \(3,\); expected \(2,\)"):
        envs.step([0, 1, 2])
    with pytest.raises(PacmanError, match=r"^action 7 is not in Discrete\(5\): use 0 to 4"):
        envs.step([1, 7])
    with pytest.raises(PacmanError, match=r"no 'state'"):
        envs.reset(options={"state": None})


def test_illegal_actions_are_stop_or_an_error():
    envs = PacmanBatchedVectorEnv(2, layout="smallClassic")
    _, info = envs.reset(seed=0)
    north = 3  # Pac-Man starts under a wall on smallClassic
    assert info["action_mask"][:, north].tolist() == [0, 0]
    *_, info = envs.step([north, 1])
    assert info["illegal"].tolist() == [True, False]
    strict = PacmanBatchedVectorEnv(2, layout="smallClassic", illegal_action="error")
    strict.reset(seed=0)
    with pytest.raises(
        IllegalActionError,
        match=r"^action 3 \(North\) is illegal for Pac-Man in game 0; legal: 0 \(West\), 1 \(Stop\)",
    ):
        strict.step([north, 1])


def test_one_game_env_refuses_a_finished_episode_and_masks_as_pacman_env():
    env = PacmanBatchedEnv(layout="minimaxClassic")
    _, info = env.reset(seed=2)
    assert env.action_masks().tolist() == info["action_mask"].astype(bool).tolist()
    terminated = False
    rng = np.random.default_rng(0)
    while not terminated:
        _, _, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        )
        assert not truncated
    assert info["action_mask"].tolist() == [0, 1, 0, 0, 0]  # Stop alone: never an empty mask
    with pytest.raises(PacmanError, match=r"episode has ended"):
        env.step(1)


# ------------------------------------------------------------ Gymnasium's conventions


@pytest.mark.parametrize("vector", [PacmanBatchedVectorEnv, PacmanVectorEnv])
@pytest.mark.parametrize(
    ("given", "same_step"),
    [(AutoresetMode.SAME_STEP, True), (AutoresetMode.NEXT_STEP, False), ("SameStep", True),
     ("NextStep", False), ("same_step", True), ("next_step", False)],
)  # fmt: skip
def test_autoreset_mode_takes_gymnasium_s_enum_and_names_as_sync_does(vector, given, same_step):
    envs = vector(2, layout="smallClassic", autoreset_mode=given)
    wanted = AutoresetMode.SAME_STEP if same_step else AutoresetMode.NEXT_STEP
    assert (envs.same_step, envs.metadata["autoreset_mode"]) == (same_step, wanted)
    if isinstance(given, AutoresetMode) or given[0].isupper():  # Gymnasium's own forms
        sync = SyncVectorEnv(
            [lambda: PacmanBatchedEnv(layout="smallClassic")], autoreset_mode=given
        )
        assert sync.metadata["autoreset_mode"] == wanted


@pytest.mark.parametrize("vector", [PacmanBatchedVectorEnv, PacmanVectorEnv])
def test_an_autoreset_mode_without_a_pacman_meaning_is_one_line(vector):
    with pytest.raises(PacmanError) as refused:
        vector(2, autoreset_mode=AutoresetMode.DISABLED)
    assert str(refused.value) == (
        "autoreset_mode must be one of 'next_step', 'same_step' (or Gymnasium's AutoresetMode "
        "of the same name), not <AutoresetMode.DISABLED: 'Disabled'>"
    )


@pytest.mark.parametrize("vector", [PacmanBatchedVectorEnv, PacmanVectorEnv])
def test_np_random_seed_is_each_game_s_seed_as_sync_gives_it(vector):
    envs = vector(2, layout="smallClassic")
    sync = SyncVectorEnv([lambda: PacmanBatchedEnv(layout="smallClassic")] * 2)
    for seed in (3, [7, 20]):
        envs.reset(seed=seed)
        sync.reset(seed=seed)
        assert envs.np_random_seed == sync.np_random_seed == ((3, 4) if seed == 3 else (7, 20))
    envs.reset()  # no seed: the games go on, their seeds as they were
    sync.reset()
    assert envs.np_random_seed == sync.np_random_seed == (7, 20)
    envs.reset(seed=9, options={"reset_mask": np.array([False, True])})
    assert envs.np_random_seed == (7, 10)


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_a_finished_game_s_mask_is_stop_alone_as_sync_s(mode):
    kwargs = dict(layout="minimaxClassic", max_episode_steps=None)
    batched = PacmanBatchedVectorEnv(3, autoreset_mode=mode, **kwargs)
    sync = SyncVectorEnv(
        [lambda: gym.make(f"pacman.envs:{BATCHED_ID}", **kwargs)] * 3,
        autoreset_mode=mode.title().replace("_", ""),
    )
    batched.reset(seed=1)
    sync.reset(seed=1)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(60):
        actions = rng.integers(0, 5, size=3)
        got, expected = batched.step(actions), sync.step(actions)
        assert_same(got, expected, "step")
        info = got[4]
        if mode == "same_step":  # the finished games' last info, beside the restarted ones'
            over = info.get("_final_info", np.zeros(3, dtype=bool))
            masks = info["final_info"]["action_mask"] if over.any() else None
        else:
            over, masks = got[2], info["action_mask"]
        for game in np.flatnonzero(over):
            assert masks[game].tolist() == [0, 1, 0, 0, 0]
            ended += 1
        assert info["action_mask"].sum(axis=1).min() >= 1  # no row without an action
    assert ended >= 3


@pytest.mark.parametrize("vector", [PacmanBatchedVectorEnv, PacmanVectorEnv])
def test_a_closed_env_refuses_to_step_or_reset_in_one_line(vector):
    envs = vector(2, layout="smallClassic")
    envs.reset(seed=0)
    envs.close()
    name = vector.__name__
    for call in (lambda: envs.step(np.ones(2, dtype=np.int64)), lambda: envs.reset(seed=0)):
        with pytest.raises(PacmanError) as refused:
            call()
        assert str(refused.value) == (
            f"{name} is closed: make a new one to play (close() ends it for good)"
        )
    one = PacmanBatchedEnv(layout="smallClassic")
    one.reset(seed=0)
    one.close()
    with pytest.raises(PacmanError, match=r"^PacmanBatchedEnv is closed"):
        one.step(1)


def test_copy_false_returns_the_env_s_own_array_with_the_same_values():
    copied = PacmanBatchedVectorEnv(3, layout="smallClassic")
    shared = PacmanBatchedVectorEnv(3, layout="smallClassic", copy=False)
    first, _ = shared.reset(seed=4)
    assert_same(copied.reset(seed=4), (first.copy(), _), "reset")
    rng = np.random.default_rng(4)
    for step in range(60):
        actions = rng.integers(0, 5, size=3)
        expected, got = copied.step(actions), shared.step(actions)
        assert got[0] is first  # rewritten in place, never copied
        assert_same(expected, got, f"step {step}")
    one = gym.make(f"pacman.envs:{BATCHED_ID}", layout="smallClassic", copy=False)
    assert one.reset(seed=4)[0].shape == first.shape[1:]
