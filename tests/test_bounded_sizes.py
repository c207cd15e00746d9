"""Sizes a user types, bounded: the feature observation's memory on a large board, and a
``num_envs`` that no memory holds as one PacmanError (generated boards' sizes: test_mazegen)."""

from __future__ import annotations

import random

import pytest

gym = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

import pacman.envs  # noqa: E402,F401  (registers the ids)
from pacman import distances  # noqa: E402
from pacman.distances import MazeDistances  # noqa: E402
from pacman.envs import limits  # noqa: E402
from pacman.envs.batched.zoo import PacmanBatchedParallelEnv  # noqa: E402
from pacman.envs.compact import FeatureEncoder, longest_distance  # noqa: E402
from pacman.errors import PacmanError  # noqa: E402
from pacman.layout import layout_names, load_layout, parse_layout  # noqa: E402
from pacman.state import GameState, maze_of  # noqa: E402

BOARDS = [*layout_names(), *(f"random:{w}x{h},seed={s}" for w, h, s in [(40, 30, 1), (25, 25, 2)])]


def every_search(layout) -> int:
    """The longest distance the way it used to be found: a search from every open cell."""
    table = MazeDistances(layout)
    return max(
        1, *(table.nearest_first(c, keep=False)[-1][1] for c in maze_of(layout).pacman_moves)
    )


@pytest.mark.parametrize("name", [*BOARDS, "random:9x9,seed=4", "random:13x31,seed=8"])
def test_the_longest_distance_is_exact(name):
    layout = load_layout(name)
    assert longest_distance(layout) == every_search(layout)


def test_the_longest_distance_is_exact_on_many_generated_boards():
    draw = random.Random(0)
    for seed in range(40):
        layout = load_layout(f"random:{draw.randint(5, 30)}x{draw.randint(5, 30)},seed={seed}")
        assert longest_distance(layout) == every_search(layout), layout.name


def test_the_longest_distance_of_a_board_in_two_parts_is_the_larger_part_s():
    layout = parse_layout("%%%%%%%%%\n%P. %   %\n%%%%%%%%%\n%.G     %\n%%%%%%%%%")
    assert (longest_distance(layout), every_search(layout)) == (6, 6)


def features_of_a_game(name_or_layout, seed: int) -> list:
    layout = load_layout(name_or_layout) if isinstance(name_or_layout, str) else name_or_layout
    encoder = FeatureEncoder(layout, layout.num_ghosts)
    state, draw = GameState.initial(layout, layout.num_ghosts), random.Random(seed)
    seen = []
    for move in range(300):
        seen.append(encoder.encode(state).copy())
        if state.is_terminal():
            break
        agent = move % state.get_num_agents()
        state = state.generate_successor(agent, draw.choice(state.get_legal_actions(agent)))
    return seen


@pytest.mark.parametrize("name", ["mediumClassic", "originalClassic", "random:40x30,seed=1"])
def test_features_are_the_same_when_few_searches_are_kept(monkeypatch, name):
    kept = features_of_a_game(name, seed=3)
    monkeypatch.setattr(distances, "KEPT_ENTRIES", 1)  # every search dropped at the next
    assert len(kept) > 20
    again = features_of_a_game(name, seed=3)
    assert len(again) == len(kept) and all(map(np.array_equal, again, kept))


def test_the_searches_kept_stay_within_their_bound(monkeypatch):
    monkeypatch.setattr(distances, "KEPT_ENTRIES", 5000)
    layout = load_layout("random:60x60,seed=5")
    cells = len(maze_of(layout).pacman_moves)
    features_of_a_game(layout, seed=1)
    table = distances.maze_distances(layout)
    sizes = [len(order) for _, order in table._kept.values()]
    assert cells > 1000 and sum(sizes) == table._entries <= 5000 and len(sizes) == 5000 // cells


GiB = 1 << 30


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (
            lambda n: gym.make_vec("pacman.envs:Pacman-v0", num_envs=n),
            "num_envs=9223372036854775808: that many games need at least 536870912.0 PiB of "
            "memory and 1.0 GiB are free; at most 16384 fit",
        ),
        (
            lambda n: gym.make_vec("pacman.envs:PacmanBatched-v0", num_envs=n),
            "num_envs=9223372036854775808: that many games need at least 148619264.0 PiB of "
            "memory and 1.0 GiB are free; at most 59185 fit",
        ),
        (
            lambda n: gym.make_vec(
                "pacman.envs:PacmanBatched-v0", num_envs=n, observation="features"
            ),
            "num_envs=9223372036854775808: that many games need at least 45400064.0 PiB of "
            "memory and 1.0 GiB are free; at most 193746 fit",
        ),
        (
            lambda n: PacmanBatchedParallelEnv(num_envs=n),
            "num_envs=9223372036854775808: that many games need at least 40484864.0 PiB of "
            "memory and 1.0 GiB are free; at most 217268 fit",
        ),
    ],
)
def test_num_envs_past_memory_is_one_pacman_error(monkeypatch, make, says):
    monkeypatch.setattr(limits, "machine_memory", lambda: GiB)
    with pytest.raises(PacmanError) as refused:
        make(2**63)
    assert str(refused.value) == says


def test_features_on_boards_of_their_own_count_their_distance_tables(monkeypatch):
    monkeypatch.setattr(limits, "machine_memory", lambda: GiB)
    with pytest.raises(PacmanError) as refused:
        gym.make_vec(
            "pacman.envs:PacmanBatched-v0",
            num_envs=64,
            layout="random:100x100",
            observation="features",
        )
    assert str(refused.value) == (
        "num_envs=64: that many games need at least 11.9 GiB of memory and 1.0 GiB are free; "
        "at most 5 fit"
    )


@pytest.mark.parametrize("count", [0, -3, 2.5, "8", True])
def test_num_envs_that_is_not_a_count_is_one_pacman_error(count):
    with pytest.raises(PacmanError, match="num_envs must be a whole number of games >= 1, not"):
        gym.make_vec("pacman.envs:Pacman-v0", num_envs=count)


@pytest.mark.parametrize("env_id", ["pacman.envs:Pacman-v0", "pacman.envs:PacmanBatched-v0"])
@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"num_ghosts": -1},
            "num_ghosts must be a whole number >= 0 (None: all the layout's), not -1",
        ),
        (
            {"num_ghosts": 1.5},
            "num_ghosts must be a whole number >= 0 (None: all the layout's), not 1.5",
        ),
        ({"reward_scale": float("nan")}, "reward_scale must be a finite number, not nan"),
        ({"reward_scale": float("inf")}, "reward_scale must be a finite number, not inf"),
        ({"reward_scale": "lots"}, "reward_scale must be a finite number, not 'lots'"),
        (
            {"observation": "window", "window_radius": 10**9},
            "window_radius must be a whole number of cells from 1 to 100, not 1000000000",
        ),
        (
            {"observation": "window", "window_radius": float("nan")},
            "window_radius must be a whole number of cells from 1 to 100, not nan",
        ),
    ],
)
def test_settings_no_game_can_use_are_one_pacman_error(env_id, settings, message):
    """Numbers an env cannot play with are refused by name (-1 ghosts silently meant none; a
    NaN scale made every reward NaN; a huge window was NumPy's 'array is too big')."""
    with pytest.raises(PacmanError) as refused:
        gym.make_vec(env_id, num_envs=2, **settings)
    assert str(refused.value) == message


@pytest.mark.parametrize("max_cycles", [0, -1, float("nan"), 2.5, True])
def test_pettingzoo_envs_refuse_a_truncation_no_game_reaches(max_cycles):
    """max_cycles -1, 0 or NaN was taken: a game truncated before it began, or never."""
    from pacman.envs.aec import PacmanAECEnv
    from pacman.envs.parallel import PacmanParallelEnv

    for make in (PacmanAECEnv, PacmanParallelEnv, PacmanBatchedParallelEnv):
        with pytest.raises(PacmanError) as refused:
            make(layout="testClassic", max_cycles=max_cycles)
        assert str(refused.value) == f"max_cycles must be a whole number >= 1, not {max_cycles!r}"
