"""What learners use: feature and window observations, action_masks(), reward options, vectors."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

gym = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

from pacman.envs.compact import FEATURE_NAMES, longest_distance  # noqa: E402
from pacman.envs.single import ACTIONS, PacmanEnv  # noqa: E402
from pacman.envs.vector import PacmanVectorEnv  # noqa: E402
from pacman.errors import PacmanError  # noqa: E402
from pacman.layout import load_layout  # noqa: E402
from pacman.state import GameState  # noqa: E402
from tests.test_envs import ROOT, _python, _same  # noqa: E402


def _column(name: str) -> int:
    return FEATURE_NAMES.index(name)


def test_features_at_the_small_classic_start():
    env = PacmanEnv("smallClassic", observation="features")
    observation, _ = env.reset(seed=0)
    assert env.observation_space.shape == (5 * len(FEATURE_NAMES),)
    assert env.observation_space.contains(observation)
    rows = observation.reshape(5, -1)
    scale = longest_distance(env.layout)
    assert scale == 23
    # Pac-Man at (9, 1) between two dots; North and South are walls.
    assert rows[:, _column("legal")].tolist() == [1, 1, 1, 0, 0]
    assert rows[:, _column("eats_food")].tolist() == [1, 0, 1, 0, 0]
    assert not rows[3:].any()  # illegal actions' rows are all zeros
    stop = ACTIONS.index("Stop")
    assert rows[stop, _column("food_distance")] == pytest.approx(1 / scale)
    # West to (8, 1): the capsule at (3, 3) is 7 moves on, the ghosts at (8, 5) and (11, 5) 10.
    west = ACTIONS.index("West")
    assert rows[west, _column("capsule_distance")] == pytest.approx(7 / scale)
    assert rows[west, _column("ghost_distance")] == pytest.approx(10 / scale)
    assert rows[:3, _column("scared_ghost_distance")].tolist() == [1, 1, 1]  # none scared
    assert not rows[:, _column("ghost_danger")].any()


def _features_of(layout_name: str, pacman_moves: list[str]) -> np.ndarray:
    """The feature rows after Pac-Man alone plays ``pacman_moves`` from the start."""
    layout = load_layout(layout_name)
    state = GameState.initial(layout)
    for action in pacman_moves:
        state = state.generate_successor(0, action)
    env = PacmanEnv(layout, observation="features")
    observation, _ = env.reset(options={"state": state})
    return observation.reshape(5, -1)


def test_danger_is_an_unscared_ghost_within_one_move_of_where_an_action_leads():
    # testClassic: Pac-Man at (1, 6), the ghost at (2, 7); East and North lead next to it.
    rows = _features_of("testClassic", ["North"] * 5)
    assert rows[:, _column("legal")].tolist() == [0, 1, 1, 1, 1]
    assert rows[:, _column("ghost_danger")].tolist() == [0, 0, 1, 1, 0]
    assert rows[:, _column("ghost_distance")] * 9 == pytest.approx([0, 2, 1, 1, 3])


def test_capsules_and_scared_ghosts():
    # smallClassic: Pac-Man at (4, 3), the capsule at (3, 3) one move West.
    rows = _features_of("smallClassic", ["West"] * 5 + ["North", "North"])
    assert rows[:, _column("legal")].tolist() == [1, 1, 0, 1, 1]
    assert rows[:, _column("eats_capsule")].tolist() == [1, 0, 0, 0, 0]
    assert rows[1, _column("capsule_distance")] * 23 == pytest.approx(1)
    # Eaten: both ghosts scared for 40 moves, the nearer 11 moves from Pac-Man's (3, 3).
    rows = _features_of("smallClassic", ["West"] * 5 + ["North", "North", "West"])
    assert rows[:, _column("legal")].tolist() == [0, 1, 1, 0, 0]
    assert rows[1:3, _column("scared_time")].tolist() == [1, 1]
    assert rows[1:3, _column("scared_ghost_distance")] * 23 == pytest.approx([11, 10])
    assert rows[1:3, _column("ghost_distance")].tolist() == [1, 1]  # no unscared ghost
    assert not rows[:, _column("ghost_danger")].any()


def test_window_is_centred_on_pacman_with_walls_beyond_the_maze():
    env = PacmanEnv("smallClassic", observation="window", window_radius=2)
    observation, _ = env.reset(seed=0)
    assert env.channel_names == ("walls", "food", "capsules", "ghosts", "scared_ghosts")
    assert observation.shape == (5, 5, 5)
    walls, food = observation[0], observation[1]
    # Rows 3 to 5 of the layout file (Pac-Man on row 5, column 9), columns 7 to 11, then beyond.
    assert walls.tolist() == [[0] * 5, [1] * 5, [0] * 5, [1] * 5, [1] * 5]
    assert food.tolist() == [[1] * 5, [0] * 5, [1, 1, 0, 1, 1], [0] * 5, [0] * 5]


def test_window_matches_the_grid_at_every_step():
    env = PacmanEnv("mediumClassic", observation="window", window_radius=3)
    grid_env = PacmanEnv("mediumClassic")
    rng = np.random.default_rng(3)
    observation, info = env.reset(seed=3)
    grid, _ = grid_env.reset(seed=3)
    keep = [i for i, name in enumerate(grid_env.channel_names) if name != "pacman"]
    for _ in range(300):
        x, y = env.state.get_pacman_position()
        padded = np.pad(grid[keep], ((0, 0), (3, 3), (3, 3)))
        padded[0, :3], padded[0, -3:], padded[0, :, :3], padded[0, :, -3:] = 1, 1, 1, 1
        row = env.layout.height - 1 - y
        assert np.array_equal(observation, padded[:, row : row + 7, x : x + 7])
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        observation, _, terminated, _, info = env.step(action)
        grid, *_ = grid_env.step(action)
        if terminated:
            break


def test_action_masks_agree_with_info_and_the_legal_actions_on_1000_states():
    checked = 0
    for layout in ("smallClassic", "mediumClassic", "trickyClassic"):
        env = PacmanEnv(layout, observation="features")
        rng = np.random.default_rng(len(layout))
        _, info = env.reset(seed=0)
        for _ in range(400):
            masks = env.action_masks()
            assert masks.dtype == bool
            ended = env.state.is_terminal()
            legal = ["Stop"] if ended else env.state.get_legal_actions(0)  # never an empty mask
            assert [ACTIONS[i] for i in np.flatnonzero(masks)] == legal
            assert np.array_equal(masks, info["action_mask"].astype(bool))
            rows = env.observation_array().reshape(5, -1)
            # The features describe the board: no move is left in an ended game.
            features = np.zeros(5, dtype=bool) if ended else masks
            assert np.array_equal(rows[:, _column("legal")].astype(bool), features)
            checked += 1
            if env.state.is_terminal():
                _, info = env.reset()
                continue
            _, _, _, _, info = env.step(int(rng.integers(5)))
    assert checked >= 1000


def test_reward_scale_and_reward_function():
    plain = PacmanEnv("smallClassic")
    scaled = PacmanEnv("smallClassic", reward_scale=0.01)
    eaten = PacmanEnv(
        "smallClassic",
        reward_fn=lambda before, after: before.get_num_food() - after.get_num_food(),
        reward_scale=2.0,
    )
    for env in (plain, scaled, eaten):
        env.reset(seed=7)
    for action in [0, 0, 1, 2, 2, 2]:
        _, reward, _, _, info = plain.step(action)
        _, small, _, _, scaled_info = scaled.step(action)
        _, food, _, _, _ = eaten.step(action)
        assert small == pytest.approx(reward / 100)
        assert scaled_info["score"] == info["score"]  # the game score is never scaled
        assert food == (2.0 if reward == 9 else 0.0)
    with pytest.raises(PacmanError, match="observation must be one of"):
        PacmanEnv("smallClassic", observation="pixels")
    with pytest.raises(PacmanError, match="window_radius"):
        PacmanEnv("smallClassic", observation="window", window_radius=0)


@pytest.mark.parametrize("kind", ["features", "window"])
def test_vector_env_batches_every_array_observation_as_sync_does(kind):
    kwargs = {"layout": "smallClassic", "observation": kind}
    actions = np.random.default_rng(1).integers(0, 5, size=(150, 3))
    fast = gym.make_vec("pacman.envs:Pacman-v0", num_envs=3, **kwargs)
    sync = gym.make_vec("pacman.envs:Pacman-v0", num_envs=3, vectorization_mode="sync", **kwargs)
    assert isinstance(fast, PacmanVectorEnv)
    assert fast.single_observation_space == sync.single_observation_space
    assert _same(fast.reset(seed=4), sync.reset(seed=4))
    for row in actions:
        assert _same(fast.step(row), sync.step(row))


def test_same_step_autoreset_matches_sync():
    def single():
        return gym.wrappers.TimeLimit(
            PacmanEnv("smallClassic", observation="features", reward_scale=0.5), 40
        )

    fast = PacmanVectorEnv(
        3,
        max_episode_steps=40,
        autoreset_mode="same_step",
        layout="smallClassic",
        observation="features",
        reward_scale=0.5,
    )
    sync = SyncVectorEnv([single] * 3, autoreset_mode=AutoresetMode.SAME_STEP)
    assert fast.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert _same(fast.reset(seed=[1, 2, 3]), sync.reset(seed=[1, 2, 3]))
    ended = 0
    for row in np.random.default_rng(2).integers(0, 5, size=(200, 3)):
        got, expected = fast.step(row), sync.step(row)
        assert _same(got[:4], expected[:4])
        got_info, expected_info = got[4], expected[4]
        assert got_info.keys() == expected_info.keys()
        for key in got_info:
            if key == "final_obs":
                assert [o is None for o in got_info[key]] == [o is None for o in expected_info[key]]
                for a, b in zip(got_info[key], expected_info[key], strict=True):
                    assert a is None or np.array_equal(a, b)
            else:
                assert _same(got_info[key], expected_info[key]), key
        ended += int(np.sum(got[2] | got[3]))
    assert ended >= 10  # losses and 40-step time limits both happened
    with pytest.raises(PacmanError, match="autoreset_mode"):
        PacmanVectorEnv(1, autoreset_mode="disabled")


def test_the_q_learning_example_learns_to_beat_random_play():
    """A short run of examples/approximate_q.py: fixed seeds, so its figures are exact."""
    script = ROOT / "examples" / "approximate_q.py"
    result = subprocess.run(
        [sys.executable, str(script), "--train-games", "40", "--eval-games", "10"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("trained on 40 smallClassic games in ")
    learned = re.fullmatch(
        r"approximate Q: win rate (\d+)%, mean score (\S+) over 10 games", lines[2]
    )
    random = re.fullmatch(r"random legal play: win rate 0%, mean score (\S+)", lines[3])
    assert learned and random, lines
    assert float(learned[2]) > float(random[1]) + 500


def test_missing_stable_baselines3_gives_an_install_hint():
    result = _python(
        "import sys\n"
        "sys.modules['stable_baselines3'] = None  # as if it were not installed\n"
        "from pacman.errors import PacmanError\n"
        "try:\n"
        "    import pacman.envs.sb3\n"
        "except PacmanError as error:\n"
        "    print(error)\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "stable_baselines3 is not installed; install it with: "
        "pip install torch --index-url https://download.pytorch.org/whl/cpu, then pip install "
        "'gymnasium>=1.1' 'numpy>=1.24' 'pygame>=2.5' 'sb3-contrib>=2.4' 'stable-baselines3>=2.4'\n"
    )
