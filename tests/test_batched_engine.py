"""The batched engine against the object engine, move by move: positions, facings, timers, food,
capsules, scores and outcomes after every single move, and the ghosts' running sums exactly.

Both engines' ghosts draw from the same per-game stream (``StreamRandom``, built here explicitly
for each game), so they must choose the same moves; the lockstep plays 2,040 seeded games over
every bundled layout and generated ones, and counts the rare events it went through (capsules,
ghosts eaten, timers running out, wins) so that it cannot pass by never meeting them; scripted
games add the rarest (two ghosts caught at once, a timer running out half a cell away).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from pacman.directions import ACTION_ORDER  # noqa: E402
from pacman.envs.batched import kernel  # noqa: E402
from pacman.envs.batched.choices import sums_row  # noqa: E402
from pacman.envs.batched.engine import LOST, RUNNING, WON, BatchedGames  # noqa: E402
from pacman.envs.batched.streams import StreamRandom, Streams  # noqa: E402
from pacman.errors import PacmanError  # noqa: E402
from pacman.ghosts import DirectionalGhost, RandomGhost  # noqa: E402
from pacman.layout import layout_names, load_layout, parse_layout  # noqa: E402
from pacman.state import GameState  # noqa: E402

GHOSTS = {"random": RandomGhost, "directional": DirectionalGhost}
#: Pac-Man moves per game: enough for capsules and scared ghosts, short enough to be quick.
MOVE_CAP = 50
BUNDLED_GAMES = 70
#: Small crowded boards (many ghosts and capsules, little food), where wins, eaten ghosts,
#: snaps and double catches are common.
GENERATED = [
    "random:5x5,seed={},ghosts=2,capsules=1,food=0.5",
    "random:7x6,seed={},ghosts=3,capsules=3,food=0.4",
    "random:9x7,seed={},ghosts=4,capsules=4,food=0.3",
    "random:12x9,seed={},ghosts=4,capsules=6",
    "random:20x11,seed={}",
    "random:15x15,seed={},ghosts=3,capsules=2,food=0.6",
]
GENERATED_GAMES = 50  # each on its own board, all of a spec's size in one batch
#: The batched engine's paths checked in every lockstep game: NumPy, and Numba's when installed.
PATHS = (False, True) if kernel.available() else (False,)


def _signature(state: GameState, grid) -> tuple:
    """What the batched engine holds of a state, in its own numbering."""
    pacman = state.get_pacman_state()
    ghosts = tuple(
        (grid.half(*ghost.get_position()), ACTION_ORDER.index(ghost.get_direction()), timer)
        for ghost, timer in zip(state.get_ghost_states(), state.get_scared_timers(), strict=True)
    )
    food = tuple(sorted(grid.cell(*cell) for cell in state.get_food_positions()))
    capsules = tuple(sorted(grid.cell(*cell) for cell in state.get_capsules()))
    outcome = WON if state.is_win() else LOST if state.is_lose() else RUNNING
    return (
        grid.cell(*pacman.get_position()),
        ACTION_ORDER.index(pacman.get_direction()),
        ghosts,
        food,
        capsules,
        int(state.get_score()),
        outcome,
    )


def _batched_signatures(games: BatchedGames) -> list[tuple]:
    ghosts = list(
        zip(
            games.ghosts.T.tolist(),
            games.ghost_facing.T.tolist(),
            games.timers.T.tolist(),
            strict=True,
        )
    )
    rows = []
    for i in range(games.num_games):
        rows.append(
            (
                int(games.pacman[i]),
                int(games.pacman_facing[i]),
                tuple(zip(*ghosts[i], strict=True)),
                tuple(np.flatnonzero(games.food[i]).tolist()),
                tuple(np.flatnonzero(games.capsules[i]).tolist()),
                int(games.scores[i]),
                int(games.outcome[i]),
            )
        )
    return rows


def _batch(layouts, kind: str, seeds: list[int], compiled: bool) -> BatchedGames:
    """The batched games of ``seeds`` on ``layouts`` (one board, or one per game), started."""
    if len(layouts) == 1:
        games = BatchedGames(layouts[0], len(seeds), ghost=kind, compiled=compiled)
    else:
        boards = iter(layouts)
        draw = lambda _: next(boards)  # noqa: E731
        games = BatchedGames(layouts[0], len(seeds), ghost=kind, draw=draw, compiled=compiled)
    games.reset(seeds=seeds)
    return games


def _lockstep(layouts, kind: str, seeds: list[int], *, recorded: bool = False) -> Counter:
    """Play one game per seed on ``layouts`` (one per game, all one size) in the object engine
    and in each batched path (NumPy, and the compiled kernel when Numba is installed).

    ``recorded``: the object engine's ghosts draw from ``random.Random(seed)`` (CS188's stream)
    and the batched engine is handed their moves instead of drawing.
    """
    engines = [_batch(layouts, kind, seeds, compiled) for compiled in PATHS]
    games = engines[0]
    grid, count = games.grid, games.num_ghosts
    states = [GameState.initial(games.layout_of(i), count) for i in range(len(seeds))]
    rngs = [random.Random(s) if recorded else StreamRandom(s) for s in seeds]
    ghosts = [[GHOSTS[kind](k + 1, rng=rng) for k in range(count)] for rng in rngs]
    pacman_rng = random.Random(seeds[0])
    seen: Counter = Counter()

    def compare(move: str) -> None:
        expected = [_signature(state, grid) for state in states]
        for engine in engines:
            assert _batched_signatures(engine) == expected, (engine.compiled, move)

    for turn in range(MOVE_CAP):
        actions = np.full(len(seeds), ACTION_ORDER.index("Stop"))
        for i, state in enumerate(states):
            if not state.is_terminal():
                legal = state.get_legal_actions(0)
                action = legal[int(pacman_rng.random() * len(legal))]
                actions[i] = ACTION_ORDER.index(action)
                states[i] = state.generate_successor(0, action)
                _count_pacman_move(seen, state, states[i])
        for engine in engines:
            assert not engine.move_pacman(actions).any()
        compare(f"turn {turn}, Pac-Man")
        for k in range(count):
            sums = games.ghost_sums(k)
            chosen = np.zeros(len(seeds), dtype=np.int64)
            for i, state in enumerate(states):
                if state.is_terminal():
                    continue
                ghost = ghosts[i][k]
                assert sums[i].tolist() == sums_row(ghost.get_distribution(state)), (turn, i, k)
                action = ghost.get_action(state)
                chosen[i] = ACTION_ORDER.index(action)
                states[i] = state.generate_successor(k + 1, action)
                _count_ghost_move(seen, state, states[i], k)
            for engine in engines:
                assert not engine.move_ghost(k, chosen if recorded else None).any()
            compare(f"turn {turn}, ghost {k + 1}")
        if all(state.is_terminal() for state in states):
            break
    seen["games"] += len(seeds)
    return seen


def _count_pacman_move(seen: Counter, parent: GameState, state: GameState) -> None:
    change = int(state.get_score() - parent.get_score())
    ate = parent.get_num_food() - state.get_num_food()
    rest = change + 1 - 10 * ate - 500 * state.is_win()
    # rest = 200 * eaten - 500 * caught, with at most 4 of each: one way to write it.
    eaten, caught = next((e, c) for e in range(5) for c in range(5) if 200 * e - 500 * c == rest)
    seen["pacman moves"] += 1
    seen["capsules eaten"] += len(state.get_capsules()) < len(parent.get_capsules())
    seen["ghosts eaten by Pac-Man"] += eaten
    seen["two ghosts caught at once"] += caught >= 2
    seen["wins"] += state.is_win()
    seen["wins with a ghost on the cell"] += state.is_win() and any(
        p == state.get_pacman_position() for p in state.get_ghost_positions()
    )
    seen["caught on Pac-Man's move"] += state.is_lose()


def _count_ghost_move(seen: Counter, parent: GameState, state: GameState, k: int) -> None:
    change = state.get_score() - parent.get_score()
    before = parent.get_ghost_position(k + 1)
    seen["ghost moves"] += 1
    seen["scared moves"] += parent.get_scared_timers()[k] > 0
    seen["ghosts eaten on their move"] += change == 200
    seen["caught on a ghost's move"] += state.is_lose()
    seen["half positions"] += any(c != int(c) for c in state.get_ghost_position(k + 1))
    if parent.get_scared_timers()[k] == 1 and change == 0:
        seen["timers run out"] += 1
        # West or South from a cell: half a cell out, then int(x + 0.5) puts it back.
        seen["snapped back"] += state.get_ghost_position(k + 1) == before


@pytest.mark.parametrize("kind", ["random", "directional"])
@pytest.mark.parametrize("name", layout_names())
def test_lockstep_on_every_bundled_layout(name, kind):
    seeds = list(range(1000, 1000 + BUNDLED_GAMES))
    seen = _lockstep([load_layout(name)], kind, seeds)
    assert seen["games"] == BUNDLED_GAMES and seen["pacman moves"] > BUNDLED_GAMES


#: The crowded specs whose games the rule-coverage test plays; the others are played alone.
COVERAGE = GENERATED[:3]


@pytest.mark.parametrize("kind", ["random", "directional"])
@pytest.mark.parametrize("spec", GENERATED[len(COVERAGE) :])
def test_lockstep_on_generated_layouts(spec, kind):
    layouts = [load_layout(spec.format(seed)) for seed in range(GENERATED_GAMES)]
    seen = _lockstep(layouts, kind, list(range(GENERATED_GAMES)))
    assert seen["games"] == GENERATED_GAMES


def test_lockstep_on_crowded_generated_layouts_meets_the_rules():
    """On small crowded boards the rare events happen: each is seen at least once."""
    seen: Counter = Counter()
    for spec in COVERAGE:
        layouts = [load_layout(spec.format(seed)) for seed in range(GENERATED_GAMES)]
        for kind in GHOSTS:
            seen += _lockstep(layouts, kind, list(range(GENERATED_GAMES)))
    assert seen["games"] == len(COVERAGE) * len(GHOSTS) * GENERATED_GAMES
    for event in (
        "capsules eaten",
        "ghosts eaten by Pac-Man",
        "ghosts eaten on their move",
        "wins",
        "wins with a ghost on the cell",
        "caught on Pac-Man's move",
        "caught on a ghost's move",
        "timers run out",
        "half positions",
    ):
        assert seen[event] > 0, (event, seen)


def _scripted(text: str, moves: list[tuple[int, str]]) -> tuple[GameState, BatchedGames]:
    """Play ``moves`` ((agent, action), in turn order) in both engines, comparing after each."""
    layout = parse_layout(text, name="scripted")
    # Two identical games a path: the engine works on whole rows.
    engines = [_batch([layout], "random", [0, 1], compiled) for compiled in PATHS]
    state = GameState.initial(layout)
    for number, (agent, action) in enumerate(moves):
        state = state.generate_successor(agent, action)
        code = np.full(2, ACTION_ORDER.index(action))
        for games in engines:
            illegal = games.move_pacman(code) if agent == 0 else games.move_ghost(agent - 1, code)
            assert not illegal.any()
            expected = [_signature(state, games.grid)] * 2
            assert _batched_signatures(games) == expected, (games.compiled, number)
    return state, engines[-1]


def test_two_unscared_ghosts_caught_at_once_cost_500_each():
    # Both ghosts can only come down their corridors onto the junction Pac-Man steps into.
    text = "%%%%%%%\n%%%G%%%\n%%% %%%\n%G.  P%\n%%%%%%%"
    moves = [(0, "West"), (1, "East"), (2, "South"), (0, "Stop"), (1, "East"), (2, "South")]
    state, _ = _scripted(text, [*moves, (0, "West")])
    assert state.get_ghost_positions() == [(3, 1), (3, 1)]
    assert state.is_lose() and state.get_score() == -3 - 1000


@pytest.mark.parametrize(("heading", "end"), [("West", (8, 1)), ("East", (22, 1))])
def test_a_timer_running_out_half_a_cell_away_snaps_to_int_x_plus_half(heading, end):
    """A second capsule eaten while the ghost is between cells leaves it on a cell with one
    move to go: West (x - 0.5) snaps back to x, East (x + 0.5) on to x + 1."""
    rows = [
        "%" * 30,
        "%Poo" + "." * 25 + "%",
        "%." + "%" * 26 + ".%",
        "%" + "." * 27 + "G%",
        "%" * 30,
    ]
    pacman_way = "East"
    if heading == "East":
        rows = [row[::-1] for row in rows]
        pacman_way = "West"
    moves = [(0, pacman_way), (1, heading), (0, pacman_way), (1, heading)]
    moves += [(0, "Stop"), (1, heading)] * 39
    state, games = _scripted("\n".join(rows), moves)
    assert state.get_ghost_position(1) == end and state.get_scared_timers() == [0]
    assert games.grid.position(games.ghosts[0]).tolist() == [list(end)] * 2


@pytest.mark.parametrize("kind", ["random", "directional"])
@pytest.mark.parametrize("name", ["smallClassic", "capsuleClassic", "trickyClassic"])
def test_recorded_ghost_moves_replay_cs188_seeded_games(name, kind):
    """Ghosts drawing from random.Random (CS188's stream): the engine replays their moves."""
    _lockstep([load_layout(name)], kind, list(range(40)), recorded=True)


def test_a_stream_draws_the_same_in_the_batch_and_as_a_random_random():
    streams = Streams(3)
    streams.seed(np.arange(3), [7, 8, 9])
    moving = np.array([True, False, True])
    batch = [streams.uniform(moving).copy() for _ in range(4)]
    for game, seed in enumerate([7, 8, 9]):
        alone = StreamRandom(seed)
        draws = [alone.random() for _ in range(4 if moving[game] else 0)]
        if moving[game]:
            assert [row[game] for row in batch] == draws
        else:
            assert streams.state[game] == StreamRandom(seed).getstate()  # never advanced
    again = StreamRandom(7)
    assert [again.random() for _ in range(4)] == [row[0] for row in batch]
    assert 0 <= StreamRandom(1).getrandbits(100) < 2**100
    assert StreamRandom(5).random() != StreamRandom(6).random()


def test_finished_games_stay_as_they_are():
    layout = load_layout("minimaxClassic")
    games = BatchedGames(layout, 40)
    games.reset(seeds=list(range(40)))
    rng = np.random.default_rng(3)
    for _ in range(30):
        over = games.outcome != RUNNING
        frozen = [
            games.pacman[over].copy(),
            games.ghosts[:, over].copy(),
            games.scores[over].copy(),
        ]
        games.step(rng.integers(0, 5, size=40))
        after = [games.pacman[over], games.ghosts[:, over], games.scores[over]]
        assert all(np.array_equal(a, b) for a, b in zip(frozen, after, strict=True))
    assert (games.outcome != RUNNING).sum() > 30


def test_bad_arguments_are_one_line_errors():
    layout = load_layout("smallClassic")
    with pytest.raises(PacmanError, match=r"number of games must be a whole number >= 1, not 0"):
        BatchedGames(layout, 0)
    with pytest.raises(PacmanError, match=r"'random' or 'directional'.*not 'LeftTurnGhost'"):
        BatchedGames(layout, 2, ghost="LeftTurnGhost")
    games = BatchedGames(layout, 2, draw=lambda seed: load_layout("mediumClassic"))
    with pytest.raises(PacmanError, match=r"mediumClassic is 20x11; this batch's boards are 20x7"):
        games.reset(seeds=[0, 1])


def test_the_compiled_path_without_numba_is_one_line_naming_the_extra(monkeypatch):
    monkeypatch.setattr(kernel, "numba", None)
    with pytest.raises(PacmanError) as refused:
        BatchedGames(load_layout("smallClassic"), 2, compiled=True)
    assert str(refused.value).startswith(
        "the compiled batched engine needs Numba (the [fast] extra): pip install"
    )
    assert "fast" in str(refused.value) and "\n" not in str(refused.value)
    assert not BatchedGames(load_layout("smallClassic"), 2).compiled  # NumPy, quietly
