"""The Gymnasium environment: API conformance, exact observations, masks, rewards, seeding."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

gym = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from pacman.directions import ACTION_ORDER  # noqa: E402
from pacman.envs import MAX_EPISODE_STEPS, env_ids  # noqa: E402
from pacman.envs._optional import require  # noqa: E402
from pacman.envs.observation import GridEncoder  # noqa: E402
from pacman.envs.render import numpy_frame  # noqa: E402
from pacman.envs.single import ACTIONS, PacmanEnv  # noqa: E402
from pacman.errors import IllegalActionError, PacmanError  # noqa: E402
from pacman.layout import layout_names, load_layout  # noqa: E402
from pacman.state import GameState  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _python(code: str, **env_changes: str | None) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter from the checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def _rollout(env, seed: int, steps: int, policy_seed: int = 0) -> list:
    """Observations, rewards, flags and infos of masked random play, resetting on episode end."""
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    record = [(obs, info)]
    for _ in range(steps):
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        record.append((obs, reward, terminated, truncated, info))
        if terminated or truncated:
            obs, info = env.reset()
            record.append((obs, info))
    return record


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
    return type(a) is type(b) and a == b


# ---------------------------------------------------------------- packaging


def test_importing_pacman_does_not_import_gymnasium():
    result = _python(
        "import sys, pacman\n"
        "from pacman import GameState, load_layout\n"
        "GameState.initial(load_layout('smallClassic'))\n"
        "assert 'gymnasium' not in sys.modules and 'pygame' not in sys.modules, sys.modules.keys()\n"
        "assert 'numpy' not in sys.modules\n"
    )
    assert result.returncode == 0, result.stderr


def test_make_works_in_a_fresh_interpreter_without_prior_import():
    result = _python(
        "import gymnasium\n"
        "env = gymnasium.make('pacman.envs:Pacman-v0')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(obs.shape, env.spec.max_episode_steps, env.unwrapped.layout.name)\n"
        "env = gymnasium.make('pacman.envs:Pacman-v0', layout='smallClassic')\n"
        "print(env.reset(seed=0)[0].shape)\n"
        "env = gymnasium.make('pacman.envs:Pacman-smallClassic-v0')\n"
        "print(env.reset(seed=0)[0].shape)\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n") == [
        f"(6, 11, 20) {MAX_EPISODE_STEPS} mediumClassic",
        "(6, 7, 20)",
        "(6, 7, 20)",
        "",
    ]


def test_every_bundled_layout_has_an_id():
    ids = env_ids()
    assert ids["Pacman-v0"] == "mediumClassic"
    for name in layout_names():
        spec = gym.spec(f"Pacman-{name}-v0")
        assert spec.kwargs == {"layout": name}
        assert spec.max_episode_steps == MAX_EPISODE_STEPS
    assert len(ids) == len(layout_names()) + 1


def test_missing_dependency_gives_an_install_hint():
    with pytest.raises(
        PacmanError, match=r"pip install 'gymnasium>=1.1' 'numpy>=1.24' 'pygame>=2.5'$"
    ):
        require("gymnasium.no_such_module_here")
    result = _python(
        "import sys\n"
        "sys.modules['gymnasium'] = None  # as if it were not installed\n"
        "from pacman.errors import PacmanError\n"
        "try:\n"
        "    import pacman.envs\n"
        "except PacmanError as error:\n"
        "    print(error)\n"
    )
    assert result.stdout == (
        "gymnasium is not installed; install it with: "
        "pip install 'gymnasium>=1.1' 'numpy>=1.24' 'pygame>=2.5'\n"
    )


# ---------------------------------------------------------- Gymnasium checks


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("Pacman-v0", {}),
        ("Pacman-smallClassic-v0", {}),
        ("Pacman-originalClassic-v0", {}),
        ("Pacman-minimaxClassic-v0", {"ghost": "directional"}),
        ("Pacman-trickyClassic-v0", {"observation": "dict", "per_ghost_channels": True}),
        ("Pacman-smallClassic-v0", {"observation": "features"}),
        ("Pacman-mediumClassic-v0", {"observation": "window", "window_radius": 2}),
    ],
)
def test_check_env_passes_without_warnings(monkeypatch, env_id, kwargs):
    # check_env also renders every declared mode; "human" then needs a (dummy) video driver.
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = gym.make(f"pacman.envs:{env_id}", **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
    env.close()


def test_observation_space_is_fixed_and_shaped_by_the_layout():
    env = PacmanEnv("mediumClassic")
    space = env.observation_space
    assert space.shape == (6, 11, 20) and space.dtype == np.float32
    assert env.channel_names == (
        "walls",
        "food",
        "capsules",
        "pacman",
        "ghosts",
        "scared_ghosts",
    )
    for seed in (1, 2):
        obs, _ = env.reset(seed=seed)
        assert env.observation_space is space and obs.shape == space.shape
    per_ghost = PacmanEnv("trickyClassic", per_ghost_channels=True)
    assert per_ghost.observation_space.shape == (9, 13, 20)
    assert per_ghost.channel_names[4:] == (
        "ghost_0",
        "ghost_1",
        "ghost_2",
        "ghost_3",
        "scared_ghosts",
    )
    assert PacmanEnv(
        "mediumClassic", num_ghosts=1, per_ghost_channels=True
    ).observation_space.shape == (
        6,
        11,
        20,
    )


def test_reset_observation_is_exact():
    env = PacmanEnv("mediumClassic")
    obs, info = env.reset(seed=0)
    layout = load_layout("mediumClassic")
    top = layout.height - 1
    walls = sum(layout.is_wall(x, y) for x in range(layout.width) for y in range(layout.height))
    assert obs.sum(axis=(1, 2)).tolist() == [walls, 97, 2, 1, 2, 0]
    for x, y in layout.food_positions:
        assert obs[1, top - y, x] == 1
    for x, y in layout.capsules:
        assert obs[2, top - y, x] == 1
    (_, (px, py)), *ghosts = layout.agent_positions
    assert obs[3, top - py, px] == 1
    for _, (gx, gy) in ghosts:
        assert obs[4, top - gy, gx] == 1
    # Pac-Man starts between walls above and below: West, Stop, East.
    assert info["action_mask"].tolist() == [1, 1, 1, 0, 0]
    assert info["action_mask"].dtype == np.int8
    assert info["score"] == 0.0 and info["illegal"] is False


def _towards_capsules(state, rng) -> int:
    """Mostly step along a shortest path to the nearest capsule (then food), else at random."""
    legal = state.get_legal_actions(0)
    targets = state.get_capsules() or state.get_food_positions()
    if rng.random() < 0.2 or not targets:
        return ACTIONS.index(legal[int(rng.integers(len(legal)))])
    walls = state.get_walls()
    frontier, distance = list(targets), dict.fromkeys(targets, 0)
    for x, y in frontier:  # breadth-first from the targets
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nxt = (x + dx, y + dy)
            if not walls[nxt[0]][nxt[1]] and nxt not in distance:
                distance[nxt] = distance[(x, y)] + 1
                frontier.append(nxt)
    x, y = state.get_pacman_position()
    moves = {"West": (-1, 0), "East": (1, 0), "North": (0, 1), "South": (0, -1)}
    best = min(
        (a for a in legal if a in moves),
        key=lambda a: distance.get((x + moves[a][0], y + moves[a][1]), 10**6),
    )
    return ACTIONS.index(best)


@pytest.mark.parametrize(
    "layout", ["mediumClassic", "trickyClassic", "powerClassic", "testClassic"]
)
@pytest.mark.parametrize("per_ghost", [False, True])
def test_incremental_observation_matches_a_full_rebuild(layout, per_ghost):
    env = PacmanEnv(layout, per_ghost_channels=per_ghost)
    fresh = GridEncoder(env.layout, env.num_ghosts, per_ghost)
    rng = np.random.default_rng(5)
    saw_scared = False
    env.reset(seed=11)
    for _ in range(600):
        obs, _, terminated, _, _ = env.step(_towards_capsules(env.state, rng))
        assert np.array_equal(obs, fresh.reset(env.state))
        saw_scared |= bool(obs[-1].any())
        if terminated:
            env.reset()
    if env.layout.capsules:
        assert saw_scared, "the run should have eaten a capsule"


def test_half_cell_ghosts_are_shown_on_the_nearer_cell():
    layout = load_layout("mediumClassic")
    encoder = GridEncoder(layout, 2)
    assert encoder.cell((3.5, 2.0)) == (layout.height - 1 - 2, 4)
    assert encoder.cell((3.0, 2.5)) == (layout.height - 1 - 3, 3)


# ------------------------------------------------------ actions and rewards


def test_action_mask_matches_the_legal_actions_and_rewards_are_score_changes():
    env = gym.make("pacman.envs:Pacman-smallClassic-v0")
    rng = np.random.default_rng(3)
    _, info = env.reset(seed=4)
    total = 0.0
    episodes = 0
    while episodes < 5:
        state = env.unwrapped.state
        legal = state.get_legal_actions(0)
        assert info["action_mask"].tolist() == [int(a in legal) for a in ACTION_ORDER]
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        before = state.get_score()
        _, reward, terminated, truncated, info = env.step(action)
        after = env.unwrapped.state
        assert isinstance(reward, float) and reward == after.get_score() - before
        assert info["score"] == after.get_score()
        total += reward
        assert terminated == (after.is_win() or after.is_lose())
        if terminated or truncated:
            assert total == after.get_score()
            if terminated:
                assert info["action_mask"].tolist() == [0, 1, 0, 0, 0]  # Stop alone
            episodes += 1
            total = 0.0
            _, info = env.reset()


def test_actions_follow_the_documented_order():
    assert ACTIONS == ("West", "Stop", "East", "North", "South")
    env = PacmanEnv("mediumClassic", num_ghosts=0)
    env.reset(seed=0)
    x, y = env.state.get_pacman_position()
    env.step(0)
    assert env.state.get_pacman_position() == (x - 1, y)
    env.step(2)
    env.step(2)
    assert env.state.get_pacman_position() == (x + 1, y)


def test_illegal_action_is_stop_by_default():
    env = PacmanEnv("mediumClassic", num_ghosts=0)
    _, info = env.reset(seed=0)
    start = env.state.get_pacman_position()
    assert info["action_mask"][3] == 0  # North is a wall at the start
    _, reward, _, _, info = env.step(3)
    assert env.state.get_pacman_position() == start
    assert reward == -1.0 and info["illegal"] is True
    _, _, _, _, info = env.step(1)
    assert info["illegal"] is False


def test_illegal_action_can_raise():
    env = PacmanEnv("mediumClassic", illegal_action="error")
    env.reset(seed=0)
    with pytest.raises(
        IllegalActionError,
        match=r"action 3 \(North\) is illegal .* legal: 0 \(West\), 1 \(Stop\), 2 \(East\)",
    ):
        env.step(3)
    for bad in (5, -1, 1.5, "North"):
        with pytest.raises(PacmanError, match="not in Discrete"):
            env.step(bad)
    env.step(np.int64(2))


def test_bad_arguments_and_misuse_are_clear_errors():
    with pytest.raises(PacmanError, match="illegal_action"):
        PacmanEnv(illegal_action="ignore")
    with pytest.raises(PacmanError, match="observation"):
        PacmanEnv(observation="pixels")
    with pytest.raises(PacmanError, match="render_mode"):
        PacmanEnv(render_mode="video")
    with pytest.raises(PacmanError, match="unknown ghost"):
        PacmanEnv(ghost="PinkyGhost")
    env = PacmanEnv("testClassic")
    with pytest.raises(PacmanError, match="reset"):
        env.step(1)


def test_stepping_a_finished_episode_is_refused():
    env = PacmanEnv("testClassic", num_ghosts=0)
    _, info = env.reset(seed=0)
    terminated = False
    rng = np.random.default_rng(0)
    while not terminated:
        _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert env.state.is_win()
    with pytest.raises(PacmanError, match="episode has ended"):
        env.step(1)


def test_truncation_comes_from_max_episode_steps():
    env = gym.make("pacman.envs:Pacman-v0", num_ghosts=0, max_episode_steps=5)
    env.reset(seed=0)
    flags = [env.step(1)[2:4] for _ in range(5)]
    assert flags == [(False, False)] * 4 + [(False, True)]


def test_reset_can_start_from_a_given_state():
    env = PacmanEnv("smallClassic")
    start = GameState.initial(env.layout).generate_successor(0, "West")
    obs, _ = env.reset(seed=0, options={"state": start})
    assert env.state is start
    assert np.array_equal(obs, GridEncoder(env.layout, 2).reset(start))
    with pytest.raises(PacmanError, match="ghosts"):
        env.reset(options={"state": GameState.initial(env.layout, 1)})
    with pytest.raises(PacmanError, match="layout"):
        env.reset(options={"state": GameState.initial(load_layout("mediumClassic"))})


# ------------------------------------------------------------------ seeding


@pytest.mark.parametrize("ghost", ["random", "directional"])
def test_same_seed_gives_identical_trajectories(ghost):
    first = _rollout(PacmanEnv("mediumClassic", ghost=ghost), seed=42, steps=400)
    second = _rollout(PacmanEnv("mediumClassic", ghost=ghost), seed=42, steps=400)
    assert _same(first, second)
    other = _rollout(PacmanEnv("mediumClassic", ghost=ghost), seed=43, steps=400)
    assert not _same(first, other)


def test_reset_without_seed_continues_the_seeded_sequence():
    env = PacmanEnv("smallClassic")
    a = _rollout(env, seed=9, steps=300)
    b = _rollout(env, seed=9, steps=300)
    assert _same(a, b)


def test_dict_observation():
    env = PacmanEnv("mediumClassic", observation="dict")
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"grid", "pacman", "ghosts", "scared_timers"}
    assert obs in env.observation_space
    assert obs["pacman"].tolist() == [9.0, 1.0]
    assert obs["ghosts"].shape == (2, 2) and obs["scared_timers"].tolist() == [0, 0]


def test_custom_ghost_factory_gets_index_and_seeded_rng():
    made = []

    class StillGhost:
        def __init__(self, index, rng):
            self.index = index
            made.append((index, rng))

        def get_action(self, state):
            return state.get_legal_actions(self.index)[0]

    env = PacmanEnv("mediumClassic", ghost=StillGhost)
    env.reset(seed=0)
    env.step(1)
    assert [index for index, _ in made] == [1, 2]
    assert all(rng is env._ghost_rng for _, rng in made)


def test_ghost_classes_and_names_build_the_same_ghosts():
    from pacman.ghosts import DirectionalGhost

    by_class = _rollout(PacmanEnv("smallClassic", ghost=DirectionalGhost), seed=3, steps=100)
    by_name = _rollout(PacmanEnv("smallClassic", ghost="DirectionalGhost"), seed=3, steps=100)
    assert _same(by_class, by_name)


# ---------------------------------------------------------------- rendering


def test_rgb_array_without_a_display():
    result = _python(
        "import gymnasium, numpy as np\n"
        "env = gymnasium.make('pacman.envs:Pacman-v0', render_mode='rgb_array')\n"
        "env.reset(seed=0)\n"
        "env.step(0)\n"
        "frame = env.render()\n"
        "try:\n"
        "    from pacman.view.draw import frame_size\n"
        "    width, height = frame_size(env.unwrapped.layout)\n"
        "except ImportError:\n"
        "    width, height = 20 * 16, 11 * 16\n"
        "print(frame.shape == (height, width, 3), frame.dtype, frame.flags.c_contiguous)\n"
        "print(len(np.unique(frame.reshape(-1, 3), axis=0)) > 4)\n"
        "env.close(); env.close()\n",
        DISPLAY=None,
        WAYLAND_DISPLAY=None,
        SDL_VIDEODRIVER=None,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "True uint8 True\nTrue\n"


def test_numpy_frame_is_drawn_cell_by_cell():
    env = PacmanEnv("mediumClassic")
    env.reset(seed=0)
    frame = numpy_frame(env.state)
    assert frame.shape == (11 * 16, 20 * 16, 3) and frame.dtype == np.uint8
    x, y = env.state.get_pacman_position()
    centre = frame[(10 - int(y)) * 16 + 8, int(x) * 16 + 8]
    assert centre.tolist() == [255, 255, 61]
    assert frame[0, 0].tolist() == [0, 51, 255]  # a wall corner


def test_ansi_render_is_the_text_board():
    env = PacmanEnv("smallClassic", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text == str(env.state) + "\n" and "Score: 0" in text


def test_human_mode_with_a_dummy_driver_and_idempotent_close(monkeypatch):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = PacmanEnv("smallClassic", render_mode="human")
    env.metadata = {**env.metadata, "render_fps": 1000}
    env.reset(seed=0)
    env.step(1)
    assert env.render() is None
    env.close()
    env.close()


# ------------------------------------------------------------------- vector


@pytest.mark.parametrize("mode", [None, "sync", "async"])
def test_make_vec_runs(mode):
    envs = gym.make_vec("pacman.envs:Pacman-smallClassic-v0", num_envs=2, vectorization_mode=mode)
    try:
        obs, info = envs.reset(seed=[1, 2])
        assert obs.shape == (2, 6, 7, 20)
        assert info["action_mask"].shape == (2, 5)
        for _ in range(30):
            actions = np.array(
                [envs.single_action_space.sample(mask=m) for m in info["action_mask"]]
            )
            obs, rewards, _, _, info = envs.step(actions)
            assert obs.shape == (2, 6, 7, 20) and rewards.shape == (2,)
    finally:
        envs.close()


def _vector_run(mode, actions, **kwargs):
    envs = gym.make_vec(
        "pacman.envs:Pacman-smallClassic-v0",
        num_envs=actions.shape[1],
        vectorization_mode=mode,
        **kwargs,
    )
    try:
        record = [envs.reset(seed=5)]
        record += [envs.step(row) for row in actions]
        return type(envs.unwrapped).__name__, record
    finally:
        envs.close()


def test_default_make_vec_is_the_batched_env_and_matches_sync_exactly():
    # Illegal actions included; a short time limit exercises truncation and autoreset.
    actions = np.random.default_rng(0).integers(0, 5, size=(300, 3))
    name, batched = _vector_run(None, actions, max_episode_steps=40)
    sync_name, sync = _vector_run("sync", actions, max_episode_steps=40)
    assert (name, sync_name) == ("PacmanVectorEnv", "SyncVectorEnv")
    assert _same(batched, sync)
    truncations = sum(int(step[3].sum()) for step in batched[1:])
    terminations = sum(int(step[2].sum()) for step in batched[1:])
    assert truncations > 0 and terminations > 0


def test_example_rollout_runs():
    result = _python(
        f"import runpy, sys; sys.argv = ['random_rollout.py', '--layout', 'testClassic']\n"
        f"runpy.run_path({str(ROOT / 'examples' / 'random_rollout.py')!r}, run_name='__main__')\n"
    )
    assert result.returncode == 0, result.stderr
    assert "actions: {0: 'West', 1: 'Stop', 2: 'East', 3: 'North', 4: 'South'}" in result.stdout
    assert "pacman_0 plays" in result.stdout


def test_human_mode_without_a_display_says_what_to_use():
    pytest.importorskip("pygame")
    result = _python(
        "import gymnasium\n"
        "from pacman.errors import DisplayUnavailable\n"
        "env = gymnasium.make('pacman.envs:Pacman-v0', render_mode='human')\n"
        "try:\n"
        "    env.reset(seed=0)\n"
        "except DisplayUnavailable as error:\n"
        "    print(error)\n",
        DISPLAY=None,
        WAYLAND_DISPLAY=None,
        SDL_VIDEODRIVER=None,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("render_mode='human': cannot open a window")
    assert result.stdout.endswith("without a display use 'rgb_array' or 'ansi'\n")


def test_missing_pettingzoo_gives_an_install_hint(monkeypatch):
    import pacman.envs

    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    with pytest.raises(
        PacmanError,
        match=r"pip install 'gymnasium>=1.1' 'numpy>=1.24' 'pettingzoo>=1.24' 'pygame>=2.5'$",
    ):
        pacman.envs.aec_env()


def test_check_env_on_a_directly_built_env_adds_only_the_no_spec_notice():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(PacmanEnv("smallClassic"))
    assert len(caught) == 1
    assert "Not able to test alternative render modes" in str(caught[0].message)


def test_partial_reset_matches_sync():
    from gymnasium.vector import AutoresetMode

    def run(mode, **kwargs):
        envs = gym.make_vec(
            "pacman.envs:Pacman-smallClassic-v0",
            num_envs=3,
            vectorization_mode=mode,
            max_episode_steps=30,
            **kwargs,
        )
        record = [envs.reset(seed=5)]
        for row in np.random.default_rng(0).integers(0, 5, size=(120, 3)):
            step = envs.step(row)
            record.append(step)
            done = step[2] | step[3]
            if done.any():
                record.append(envs.reset(options={"reset_mask": done}))
        envs.close()
        return record

    manual = {"autoreset_mode": AutoresetMode.DISABLED}
    assert _same(run(None), run("sync", vector_kwargs=manual))
