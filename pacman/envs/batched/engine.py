"""``BatchedGames``: N games of one board size as arrays, stepped together with CS188's rules.

The state of game ``i`` is row or column ``i`` of a few arrays (see the attributes); a move is
the same dozen array operations for every game, whatever its board, or with Numba (``kernel``)
one compiled loop over the games. The rules are those of
``pacman.state`` (see RULES.md), including the odd ones: Stop keeps Pac-Man's facing, two
unscared ghosts touched at once cost 500 each, eating the last food wins even with a ghost on
the cell (but a scared ghost there is still eaten), a scared ghost's timer running out between
two cells snaps it to ``int(x + 0.5)``, and after a ghost's move only that ghost is checked.

Finished games (won, lost or stopped) are left as they are by every move; their ghosts do not
draw, so a game's random stream advances exactly as the object engine's ghost draws would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from pacman.envs.batched import choices, kernel
from pacman.envs.batched.boards import NAME_BIT, NAME_ORDER, STOP_CODE, BoardSlots
from pacman.envs.batched.streams import Streams
from pacman.envs.limits import check_ghost_count, check_num_envs, game_bytes
from pacman.errors import PacmanError
from pacman.extras import install_hint
from pacman.ghosts import GHOST_ALIASES
from pacman.state import FOOD_SCORE, GHOST_SCORE, LOSE_PENALTY, SCARED_TIME, TIME_PENALTY, WIN_SCORE

if TYPE_CHECKING:
    from pacman.layout import Layout

RUNNING, WON, LOST, STOPPED = 0, 1, -1, 2
GHOST_KINDS = tuple(GHOST_ALIASES)
#: CS188's class name of each kind, which the batched engine takes too.
_KIND_OF_CLASS = {cls.__name__: kind for kind, cls in GHOST_ALIASES.items()}


def ghost_kind(ghost: object) -> str:
    """``"random"`` or ``"directional"`` from those names or CS188's class names."""
    kind = _KIND_OF_CLASS.get(getattr(ghost, "__name__", str(ghost)), str(ghost))
    if kind not in GHOST_KINDS:
        raise PacmanError(
            f"the batched engine's ghosts are 'random' or 'directional' "
            f"(RandomGhost, DirectionalGhost), not {ghost!r}"
        )
    return kind


class BatchedGames:
    """``num_games`` games on boards of ``layout``'s size, with at most ``num_ghosts`` ghosts.

    ``draw`` (``seed -> Layout``) gives every game its own board, a new one each time it starts;
    without it all play ``layout``. Ghosts are ``"random"`` or ``"directional"``. ``compiled``:
    move with the Numba kernel (``kernel``; the default when Numba imports) or NumPy (False).

    State, game ``i`` in the last axis: ``pacman`` (cell), ``pacman_facing`` (action code),
    ``ghosts`` (``(G, N)`` half cells), ``ghost_facing``, ``timers`` (scared), ``food`` and
    ``capsules`` (``(N, cells)`` booleans), ``food_left``, ``scores`` and ``outcome``
    (``RUNNING``, ``WON``, ``LOST`` or ``STOPPED``). See ``boards`` for the numbering.
    """

    def __init__(
        self,
        layout: Layout,
        num_games: int,
        num_ghosts: int | None = None,
        ghost: str = "random",
        draw: Callable[[int], Layout] | None = None,
        prob_attack: float = 0.8,
        prob_scared_flee: float = 0.8,
        compiled: bool | None = None,
    ) -> None:
        if int(num_games) != num_games or num_games < 1:
            raise PacmanError(f"the number of games must be a whole number >= 1, not {num_games!r}")
        self.ghost_kind = ghost_kind(ghost)
        num_ghosts = check_ghost_count(num_ghosts)
        ghosts = layout.num_ghosts if num_ghosts is None else min(num_ghosts, layout.num_ghosts)
        num_games = check_num_envs(int(num_games), game_bytes(layout.width, layout.height, ghosts))
        self.num_games, self.num_ghosts = num_games, max(0, ghosts)
        self.boards = BoardSlots(layout, num_games, self.num_ghosts, draw)
        grid = self.grid = self.boards.grid
        n, g, cells = num_games, self.num_ghosts, grid.cells
        self.pacman = np.zeros(n, dtype=np.int64)
        self.pacman_q = np.zeros(n, dtype=np.int64)
        self.pacman_facing = np.full(n, STOP_CODE, dtype=np.int8)
        self.ghosts = np.zeros((g, n), dtype=np.int64)
        self.ghost_facing = np.full((g, n), STOP_CODE, dtype=np.int8)
        self.timers = np.zeros((g, n), dtype=np.int16)
        self.ghost_starts = np.zeros((g, n), dtype=np.int64)
        self.food = np.zeros((n, cells), dtype=bool)
        self.capsules = np.zeros((n, cells), dtype=bool)
        self.food_left = np.zeros(n, dtype=np.int64)
        self.scores = np.zeros(n, dtype=np.int64)
        self.outcome = np.full(n, STOPPED, dtype=np.int8)
        self.slot = self.boards.slot_of(np.arange(n))
        self._slot_cells = (self.slot * cells).astype(np.int64)
        self._slot_halves = (self.slot * grid.halves).astype(np.int64)
        self._rows = (np.arange(n) * cells).astype(np.int64)
        self.ghost_stream = Streams(n)
        self.board_stream = Streams(n)
        self._uniform = choices.uniform_sums()
        self._directional = choices.directional_sums(prob_attack, prob_scared_flee)
        self._choice = choices.choice_table()
        self._first_legal = choices.first_legal_table()
        # Half-cell offsets of the four moves in name order, for DirectionalGhost's distances.
        order = NAME_ORDER
        self._dx = np.array([[-1, 0, 1, 0, 0][c] for c in order], np.int64)
        self._dy = np.array([[0, 0, 0, 1, -1][c] for c in order], np.int64)
        self._weights = (1 << np.arange(4)).astype(np.int64)
        if compiled and not kernel.available():
            raise PacmanError(
                f"the compiled batched engine needs Numba (the [fast] extra): {install_hint('fast')}"
            )
        self.compiled = kernel.available() if compiled is None else bool(compiled)
        self._tables = self._kernel_tables() if self.compiled else ()

    def _kernel_tables(self) -> kernel.Tables:
        """The lookup tables the kernel reads, in its order (see ``kernel``)."""
        grid, boards = self.grid, self.boards
        return (
            self._slot_cells,
            self._slot_halves,
            boards.pacman_legal,
            boards.pacman_to,
            boards.ghost_legal,
            grid.q_of_cell,
            grid.half_steps,
            grid.snap,
            grid.x2,
            grid.y2,
            self._uniform,
            self._directional,
            self._choice,
            self._first_legal,
            NAME_BIT,
            self._dx,
            self._dy,
            int(grid.row_stride),
            self.ghost_kind == "directional",
        )

    def _kernel_state(self) -> kernel.Arrays:
        """The state arrays the kernel moves in place, in its order."""
        return (
            self.pacman,
            self.pacman_q,
            self.pacman_facing,
            self.ghosts,
            self.ghost_facing,
            self.timers,
            self.ghost_starts,
            self.food,
            self.capsules,
            self.food_left,
            self.scores,
            self.outcome,
            self.ghost_stream.state,
        )

    # ------------------------------------------------------------------ starting

    def reset(self, games: np.ndarray | None = None, seeds: list[int] | None = None) -> None:
        """Start ``games`` (indices; all if None) afresh, on a new board when boards are drawn.

        ``seeds`` (one int per game) restart their random streams; without them the games
        go on drawing from where their streams are.
        """
        games = np.arange(self.num_games) if games is None else np.asarray(games, dtype=np.int64)
        if seeds is not None:
            if len(seeds) != len(games):
                raise PacmanError(f"reset got {len(seeds)} seeds for {len(games)} games")
            self.ghost_stream.seed(games, seeds)
            self.board_stream.seed(games, [~int(seed) for seed in seeds])
        boards = self.boards
        if boards.draw is not None and len(games):
            for game, word in zip(games.tolist(), self.board_stream.words(games), strict=True):
                boards.load(game, boards.draw(word >> 33))
        if self.compiled:
            starts = (
                self.slot,
                boards.pacman_start,
                self.grid.q_of_cell,
                boards.ghost_starts,
                boards.food,
                boards.capsules,
            )
            kernel.restart(self._kernel_state(), starts, games)
            return
        slots = self.slot[games]
        self.pacman[games] = boards.pacman_start[slots]
        self.pacman_q[games] = self.grid.q_of_cell[self.pacman[games]]
        self.pacman_facing[games] = STOP_CODE
        self.ghosts[:, games] = self.ghost_starts[:, games] = boards.ghost_starts[:, slots]
        self.ghost_facing[:, games] = STOP_CODE
        self.timers[:, games] = 0
        self.food[games] = boards.food[slots]
        self.capsules[games] = boards.capsules[slots]
        self.food_left[games] = self.food[games].sum(axis=1)
        self.scores[games] = 0
        self.outcome[games] = RUNNING

    def stop(self, games: np.ndarray) -> None:
        """End the running ``games`` (a boolean mask) without a winner (a time limit)."""
        self.outcome[games & (self.outcome == RUNNING)] = STOPPED

    # ------------------------------------------------------------------ moves

    def step(self, actions: np.ndarray) -> np.ndarray:
        """Pac-Man's ``actions`` (codes; illegal ones played as Stop), then every ghost in turn.

        Returns where Pac-Man's action was illegal.
        """
        if self.compiled:
            illegal = np.empty(self.num_games, dtype=bool)
            kernel.step_all(self._kernel_state(), self._tables, _codes(actions), illegal)
            return illegal
        illegal = self.move_pacman(actions)
        for index in range(self.num_ghosts):
            self.move_ghost(index)
        return illegal

    def move_pacman(self, actions: np.ndarray) -> np.ndarray:
        """Move Pac-Man in every running game; returns where its action was illegal (played as Stop)."""
        if self.compiled:
            illegal = np.empty(self.num_games, dtype=bool)
            kernel.pacman_all(self._kernel_state(), self._tables, _codes(actions), illegal)
            return illegal
        running = self.outcome == RUNNING
        every = bool(running.all())
        actions = np.asarray(actions)
        key = (self._slot_cells + self.pacman) * 5 + actions
        legal = self.boards.pacman_legal[key]
        target = self.boards.pacman_to[key]
        turning = legal & (actions != STOP_CODE)
        if not every:
            turning &= running
            target = np.where(running, target, self.pacman)
        np.copyto(self.pacman_facing, actions, where=turning, casting="unsafe")
        self.pacman = target
        self.pacman_q = self.grid.q_of_cell[target]
        self.scores -= TIME_PENALTY * running if not every else TIME_PENALTY
        # A finished game's Pac-Man stands where it ate: no food or capsule is left under it.
        where = self._rows + target
        eats = self.food.reshape(-1)[where]
        if eats.any():
            self.food.reshape(-1)[where] = False
            self.food_left -= eats
            self.scores += FOOD_SCORE * eats
            won = eats & (self.food_left == 0)
            if won.any():
                self.scores += WIN_SCORE * won
                self.outcome[won] = WON
        capsule = self.capsules.reshape(-1)[where]
        if capsule.any():
            self.capsules.reshape(-1)[where] = False
            self.timers[:, capsule] = SCARED_TIME
        if self.num_ghosts:
            touched = self._touching(self.ghosts, self.pacman_q[None, :])
            touched &= running
            if touched.any():
                self._collide(touched, self.outcome != WON)
        return ~legal & running

    def move_ghost(self, index: int, actions: np.ndarray | None = None) -> np.ndarray:
        """Move ghost ``index`` in every running game: its policy's draw, or ``actions`` (codes).

        Given actions that are illegal (Stop, a wall, a reversal) are replaced by the ghost's
        first legal action; returns where that happened.
        """
        if self.compiled:
            illegal = np.empty(self.num_games, dtype=bool)
            codes = np.full(self.num_games, -1) if actions is None else _codes(actions)
            kernel.ghost_all(self._kernel_state(), self._tables, index, codes, illegal)
            return illegal
        running = self.outcome == RUNNING
        every = bool(running.all())
        position, facing, timer = self.ghosts[index], self.ghost_facing[index], self.timers[index]
        bits = self.boards.ghost_legal[(self._slot_halves + position) * 5 + facing]
        if actions is None:
            draw = self.ghost_stream.uniform(None if every else running)
            sums = self._sums(index, bits)
            below = (sums < draw[:, None]).sum(axis=1)
            moves = self._choice[bits * 5 + below]
            illegal = np.zeros(self.num_games, dtype=bool)
        else:
            moves = np.asarray(actions).astype(np.int8)
            illegal = (NAME_BIT[moves] & bits) == 0
            illegal &= running
            moves = np.where(illegal, self._first_legal[bits], moves)
        scared = timer > 0
        steps = self.grid.half_steps[moves]
        target = (
            position + (steps << 1) - steps * scared if scared.any() else position + (steps << 1)
        )
        snapping = timer == 1
        if snapping.any():
            target = np.where(snapping, self.grid.snap[target], target)
        after = timer - scared
        if every:
            position[:] = target
            facing[:] = moves
            timer[:] = after
        else:
            np.copyto(position, target, where=running)
            np.copyto(facing, moves, where=running)
            np.copyto(timer, after, where=running)
        touched = self._touching(position, self.pacman_q)
        touched &= running
        if touched.any():
            row = np.zeros((self.num_ghosts, self.num_games), dtype=bool)
            row[index] = touched
            self._collide(row, running)
        return illegal

    # ------------------------------------------------------------------ helpers

    def _touching(self, ghosts: np.ndarray, pacman_q: np.ndarray) -> np.ndarray:
        """Within 0.7 of Pac-Man: the same cell, or half a cell away (0.5), nothing else."""
        apart = np.abs(ghosts - pacman_q)
        return (apart <= 1) | (apart == self.grid.row_stride)

    def _collide(self, touched: np.ndarray, can_lose: np.ndarray) -> None:
        """Settle the ``(G, N)`` touches: scared ghosts are eaten, unscared ones catch Pac-Man."""
        scared = self.timers > 0
        eaten = touched & scared
        caught = touched & ~scared & can_lose
        self.scores += GHOST_SCORE * eaten.sum(axis=0) - LOSE_PENALTY * caught.sum(axis=0)
        self.outcome[caught.any(axis=0)] = LOST
        if eaten.any():
            self.ghosts[eaten] = self.ghost_starts[eaten]
            self.ghost_facing[eaten] = STOP_CODE
            self.timers[eaten] = 0

    def _sums(self, index: int, bits: np.ndarray) -> np.ndarray:
        """Each game's running sums for ghost ``index``'s draw, ``(N, 4)`` in name order."""
        if self.ghost_kind == "random":
            return self._uniform[bits]
        return self._directional[self._directional_key(index, bits)]

    def _directional_key(
        self, index: int, bits: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(scared, legal, best)`` indices of DirectionalGhost's table for every game."""
        grid = self.grid
        position = self.ghosts[index]
        scared = self.timers[index] > 0
        speed = 2 - scared.astype(np.int64)  # half cells a move
        pacman = self.pacman_q
        dx = (grid.x2[position] - grid.x2[pacman])[:, None] + self._dx * speed[:, None]
        dy = (grid.y2[position] - grid.y2[pacman])[:, None] + self._dy * speed[:, None]
        distance = np.abs(dx) + np.abs(dy)
        legal = choices.LEGAL_MOVES[bits]
        # Unscared ghosts want the least distance, scared ones the most: flip the sign.
        signed = np.where(scared[:, None], -distance, distance)
        signed = np.where(legal, signed, np.iinfo(np.int64).max)
        best = (signed == signed.min(axis=1)[:, None]) & legal
        return scared.astype(np.int8), bits, best.astype(np.int64) @ self._weights

    def ghost_sums(self, index: int) -> np.ndarray:
        """``(N, 4)``: the running sums ghost ``index`` would draw against now, in name order
        (East, North, South, West; an illegal move repeats the sum before it, or -inf)."""
        return self._sums(index, self.ghost_bits(index))

    def ghost_bits(self, index: int) -> np.ndarray:
        """Ghost ``index``'s legal moves in every game, as bits in name order (``NAME_BIT``)."""
        position, facing = self.ghosts[index], self.ghost_facing[index]
        return self.boards.ghost_legal[(self._slot_halves + position) * 5 + facing]

    # ------------------------------------------------------------------ views

    def is_over(self) -> np.ndarray:
        """Won or lost (a stopped game is neither)."""
        return (self.outcome == WON) | (self.outcome == LOST)

    def layout_of(self, game: int) -> Layout:
        """The board game ``game`` plays on."""
        return self.boards.layouts[int(self.slot[game])]

    def cell_keys(self) -> np.ndarray:
        """Each game's Pac-Man cell in the stacked per-cell tables (``pacman_mask``'s rows)."""
        return self._slot_cells + self.pacman

    def legal_mask(self) -> np.ndarray:
        """``(N, 5)`` ``int8``: Pac-Man's legal actions, zeros in won or lost games."""
        mask = self.boards.pacman_mask[self.cell_keys()]
        over = self.is_over()
        if over.any():
            mask[over] = 0
        return mask

    def pacman_legal(self, actions: np.ndarray) -> np.ndarray:
        """Whether each game's Pac-Man may play its action (before moving it)."""
        return self.boards.pacman_legal[(self._slot_cells + self.pacman) * 5 + actions]


def _codes(actions: np.ndarray) -> np.ndarray:
    """Action codes as the ``int64`` array the kernel is compiled for."""
    return np.asarray(actions, dtype=np.int64)
