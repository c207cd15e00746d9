"""The batched engine's moves compiled with Numba (the ``[fast]`` extra), one game at a time.

The NumPy path in ``engine`` makes a dozen passes over the whole batch for each move, each
with its own temporary arrays; at 64 games that is mostly NumPy's per-call cost, and on big
boards mostly memory traffic. Here a move is one loop over the games that reads and writes
each game's few numbers once, with no allocation. The rules are the NumPy path's, line for
line (see ``BatchedGames.move_pacman`` and ``move_ghost``), and both are checked move by move
against the object engine by the same lockstep tests.

``available()`` says whether Numba imports; without it ``BatchedGames`` uses NumPy alone.
Compiled functions are cached on disk beside this file (Numba's ``cache=True``).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from pacman.state import FOOD_SCORE, GHOST_SCORE, LOSE_PENALTY, SCARED_TIME, TIME_PENALTY, WIN_SCORE

#: Numba, or None without the [fast] extra (a test sets it None to try that path).
numba: ModuleType | None
try:
    import numba
except ImportError:  # the [fast] extra is not installed: the NumPy path alone
    numba = None

#: The arrays a function here moves in place (``BatchedGames._kernel_state``'s, in its order).
Arrays = tuple[np.ndarray, ...]
_A = np.ndarray
#: What the moves only read, ``BatchedGames._kernel_tables``: 17 tables (``tables[0]`` to
#: ``[16]``), the grid's row stride, whether the ghosts are directional.
Tables = tuple[_A, _A, _A, _A, _A, _A, _A, _A, _A, _A, _A, _A, _A, _A, _A, _A, _A, int, bool]
#: The layout of the planes ``mark_grid`` writes, ``BatchedGrid._layout``: row and ghost
#: offsets, cells a plane, the food, capsule and Pac-Man channels, the scared offset, and
#: whether each ghost has its own channel.
PlaneLayout = tuple[_A, _A, int, int, int, int, int, bool]

RUNNING, WON, LOST = 0, 1, -1
STOP = 1  # Stop's action code (ACTION_ORDER)
GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
TO_UNIT = 2.0**-53


def available() -> bool:
    """Whether the compiled moves can be used (Numba imports)."""
    return numba is not None


#: Numba's options for every function here. ``_nrt=False`` turns off Numba's reference counting
#: of arrays: nothing here allocates, and with the counts on, every array a game's branches
#: touch is counted in and out, atomically: Pac-Man's move in 1,024 games took 280 us so,
#: 7 us without.
_OPTIONS = {"cache": True, "nogil": True, "_nrt": False}


def _compile(function: Any) -> Any:
    return numba.njit(**_OPTIONS)(function) if numba is not None else function


def _inline(function: Any) -> Any:
    """A helper compiled into its callers, as if written there (no call per game)."""
    return numba.njit(inline="always", **_OPTIONS)(function) if numba is not None else function


@_inline
def _draw(stream: np.ndarray, game: int) -> float:
    """The next uniform draw of ``game``'s SplitMix64 stream (``streams.Streams``)."""
    state = stream[game] + GAMMA
    stream[game] = state
    z = state
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * TO_UNIT


@_inline
def _touches(ghost: int, pacman_q: int, row_stride: int) -> bool:
    """Within 0.7 of Pac-Man: the same cell, or half a cell away."""
    apart = abs(ghost - pacman_q)
    return apart <= 1 or apart == row_stride


@_inline
def _settle(state: Arrays, game: int, ghost: int, can_lose: bool) -> bool:
    """Ghost ``ghost`` touches Pac-Man: a scared one is eaten; else True if Pac-Man is caught."""
    ghosts = state[3]
    ghost_facing = state[4]
    timers = state[5]
    ghost_starts = state[6]
    scores = state[10]
    if timers[ghost, game] > 0:
        scores[game] += GHOST_SCORE
        ghosts[ghost, game] = ghost_starts[ghost, game]
        ghost_facing[ghost, game] = STOP
        timers[ghost, game] = 0
        return False
    if can_lose:
        scores[game] -= LOSE_PENALTY
        return True
    return False


@_inline
def _move_pacman(state: Arrays, tables: Tables, game: int, action: int) -> bool:
    """Pac-Man's move in ``game``; True where the action was illegal (played as Stop)."""
    pacman = state[0]
    pacman_q = state[1]
    pacman_facing = state[2]
    ghosts = state[3]
    timers = state[5]
    food = state[7]
    capsules = state[8]
    food_left = state[9]
    scores = state[10]
    outcome = state[11]
    slot_cells = tables[0]
    pacman_legal = tables[2]
    pacman_to = tables[3]
    q_of_cell = tables[5]
    row_stride = tables[17]
    if outcome[game] != RUNNING:
        return False
    key = (slot_cells[game] + pacman[game]) * 5 + action
    legal = pacman_legal[key]
    target = pacman_to[key]
    if legal and action != STOP:
        pacman_facing[game] = action
    pacman[game] = target
    here = q_of_cell[target]
    pacman_q[game] = here
    scores[game] -= TIME_PENALTY
    if food[game, target]:
        food[game, target] = False
        food_left[game] -= 1
        scores[game] += FOOD_SCORE
        if food_left[game] == 0:
            scores[game] += WIN_SCORE
            outcome[game] = WON
    if capsules[game, target]:
        capsules[game, target] = False
        timers[:, game] = SCARED_TIME
    caught = False
    can_lose = outcome[game] != WON
    for ghost in range(ghosts.shape[0]):
        if _touches(ghosts[ghost, game], here, row_stride):
            caught |= _settle(state, game, ghost, can_lose)
    if caught:
        outcome[game] = LOST
    return not legal


@_inline
def _ghost_choice(state: Arrays, tables: Tables, game: int, ghost: int, bits: int) -> int:
    """The move ghost ``ghost``'s policy draws in ``game`` (its stream advances once)."""
    pacman_q = state[1]
    ghosts = state[3]
    timers = state[5]
    stream = state[12]
    x2 = tables[8]
    y2 = tables[9]
    uniform = tables[10]
    directional = tables[11]
    choice = tables[12]
    dx = tables[15]
    dy = tables[16]
    directional_kind = tables[18]
    draw = _draw(stream, game)
    scared = timers[ghost, game] > 0
    if directional_kind:
        position, target = ghosts[ghost, game], pacman_q[game]
        speed = 1 if scared else 2
        best, least = 0, 1 << 62
        for move in range(4):
            if not (bits >> move) & 1:
                continue
            distance = abs(x2[position] - x2[target] + dx[move] * speed) + abs(
                y2[position] - y2[target] + dy[move] * speed
            )
            signed = -distance if scared else distance
            if signed < least:
                best, least = 1 << move, signed
            elif signed == least:
                best |= 1 << move
        sums = directional[1 if scared else 0, bits, best]
    else:
        sums = uniform[bits]
    below = 0
    for move in range(4):
        below += sums[move] < draw
    return choice[bits * 5 + below]


@_inline
def _move_ghost(state: Arrays, tables: Tables, game: int, ghost: int, action: int) -> bool:
    """Ghost ``ghost``'s move in ``game``: its policy's draw (``action`` < 0) or ``action``,
    replaced by its first legal move when illegal (then True)."""
    pacman_q = state[1]
    ghosts = state[3]
    ghost_facing = state[4]
    timers = state[5]
    outcome = state[11]
    slot_halves = tables[1]
    ghost_legal = tables[4]
    half_steps = tables[6]
    snap = tables[7]
    first_legal = tables[13]
    name_bit = tables[14]
    row_stride = tables[17]
    if outcome[game] != RUNNING:
        return False
    position = ghosts[ghost, game]
    bits = ghost_legal[(slot_halves[game] + position) * 5 + ghost_facing[ghost, game]]
    illegal = False
    if action < 0:
        move = _ghost_choice(state, tables, game, ghost, bits)
    else:
        move = action
        if (name_bit[move] & bits) == 0:
            illegal = True
            move = first_legal[bits]
    timer = timers[ghost, game]
    step = half_steps[move]
    target = position + 2 * step - (step if timer > 0 else 0)
    if timer == 1:
        target = snap[target]
    ghosts[ghost, game] = target
    ghost_facing[ghost, game] = move
    if timer > 0:
        timers[ghost, game] = timer - 1
    if _touches(target, pacman_q[game], row_stride) and _settle(state, game, ghost, True):
        outcome[game] = LOST
    return illegal


@_compile
def step_all(state: Arrays, tables: Tables, actions: np.ndarray, illegal: np.ndarray) -> None:
    """A whole turn in every game: Pac-Man's ``actions``, then each ghost's draw."""
    num_ghosts = state[3].shape[0]
    for game in range(actions.shape[0]):
        illegal[game] = _move_pacman(state, tables, game, actions[game])
        for ghost in range(num_ghosts):
            _move_ghost(state, tables, game, ghost, -1)


@_compile
def pacman_all(state: Arrays, tables: Tables, actions: np.ndarray, illegal: np.ndarray) -> None:
    """Pac-Man's move alone in every game."""
    for game in range(actions.shape[0]):
        illegal[game] = _move_pacman(state, tables, game, actions[game])


@_compile
def ghost_all(
    state: Arrays, tables: Tables, ghost: int, actions: np.ndarray, illegal: np.ndarray
) -> None:
    """Ghost ``ghost``'s move alone in every game: ``actions`` (codes), or draws where < 0."""
    for game in range(actions.shape[0]):
        illegal[game] = _move_ghost(state, tables, game, ghost, actions[game])


@_compile
def mark_grid(
    storage: np.ndarray,
    marks: np.ndarray,
    layout: PlaneLayout,
    pacman: np.ndarray,
    ghosts: np.ndarray,
    timers: np.ndarray,
    cell_of_q: np.ndarray,
) -> None:
    """``BatchedGrid.update``'s marks, one game at a time: clear where the agents were marked,
    clear the food and capsule under Pac-Man, mark Pac-Man, then each ghost (a scared one on
    the last plane as its timer's fraction, the largest where two share a cell)."""
    rows, ghost_offsets = layout[0], layout[1]
    plane, food, capsules, pacman_plane, scared_offset, per_ghost = (
        layout[2],
        layout[3],
        layout[4],
        layout[5],
        layout[6],
        layout[7],
    )
    for game in range(pacman.shape[0]):
        for mark in range(marks.shape[0]):
            storage[marks[mark, game]] = 0.0
        under = rows[game] + pacman[game]
        storage[under + food * plane] = 0.0
        storage[under + capsules * plane] = 0.0
        marks[0, game] = under + pacman_plane * plane
        storage[marks[0, game]] = 1.0
        count = ghosts.shape[0]
        for ghost in range(count):
            cell = cell_of_q[ghosts[ghost, game]] + rows[game]
            ghost_mark = cell + ghost_offsets[ghost]
            scared_mark = cell + scared_offset
            marks[1 + ghost, game] = ghost_mark
            marks[1 + count + ghost, game] = scared_mark
            timer = timers[ghost, game]
            if timer <= 0 or per_ghost:
                storage[ghost_mark] = 1.0
            if timer > 0:
                value = np.float32(timer / SCARED_TIME)
                storage[scared_mark] = max(storage[scared_mark], value)


@_compile
def restart(state: Arrays, starts: Arrays, games: np.ndarray) -> None:
    """``BatchedGames.reset``'s restart of ``games`` (indices) from their boards' starts."""
    pacman, pacman_q, pacman_facing, ghosts = state[0], state[1], state[2], state[3]
    ghost_facing, timers, ghost_starts, food, capsules = (
        state[4],
        state[5],
        state[6],
        state[7],
        state[8],
    )
    food_left, scores, outcome = state[9], state[10], state[11]
    slots, pacman_start, q_of_cell, board_ghosts, board_food, board_capsules = (
        starts[0],
        starts[1],
        starts[2],
        starts[3],
        starts[4],
        starts[5],
    )
    for game in games:
        slot = slots[game]
        pacman[game] = pacman_start[slot]
        pacman_q[game] = q_of_cell[pacman_start[slot]]
        pacman_facing[game] = STOP
        for ghost in range(ghosts.shape[0]):
            ghosts[ghost, game] = ghost_starts[ghost, game] = board_ghosts[ghost, slot]
            ghost_facing[ghost, game] = STOP
            timers[ghost, game] = 0
        left = 0
        for cell in range(food.shape[1]):
            food[game, cell] = board_food[slot, cell]
            capsules[game, cell] = board_capsules[slot, cell]
            left += board_food[slot, cell]
        food_left[game] = left
        scores[game] = 0
        outcome[game] = RUNNING
