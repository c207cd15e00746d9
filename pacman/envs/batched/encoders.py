"""The environments' observations of a whole batch, equal to the object environments' ones.

- :class:`BatchedGrid`: ``PacmanEnv``'s grid planes (``pacman.envs.observation``), kept up to
  date move by move as ``GridEncoder`` keeps them: each step clears the cells the agents were
  marked on and marks where they are, and clears the food and capsule under Pac-Man;
- :class:`BatchedWindow`: the planes around Pac-Man (``WindowEncoder``);
- :class:`BatchedFeatures`: the per-action features (``FeatureEncoder``), from maze distances.

Each writes into arrays it owns; the environment copies them out.
"""

from __future__ import annotations

import numpy as np

from pacman.directions import ACTION_ORDER
from pacman.distances import maze_distances
from pacman.envs.batched import kernel
from pacman.envs.batched.engine import BatchedGames
from pacman.envs.compact import (
    CAPSULE_DISTANCE,
    COUNT_FEATURES,
    EATS_CAPSULE,
    EATS_FOOD,
    FEATURE_NAMES,
    FOOD_DISTANCE,
    GHOST_DANGER,
    GHOST_DISTANCE,
    LEGAL,
    SCARED_GHOST_DISTANCE,
    SCARED_GHOST_NEAR,
    SCARED_TIME_LEFT,
    longest_distance,
    open_cells,
)
from pacman.envs.observation import CAPSULES, FOOD, PACMAN, WALLS, channel_names
from pacman.state import SCARED_TIME

#: A maze distance standing for "not reachable": above every real one.
FAR = np.iinfo(np.int16).max


class BatchedGrid:
    """The ``(N, C, H, W)`` ``float32`` grid planes of every game (``channel_names``)."""

    def __init__(self, games: BatchedGames, per_ghost_channels: bool = False) -> None:
        self.games = games
        grid = games.grid
        self.per_ghost_channels = per_ghost_channels
        self.names = channel_names(games.num_ghosts, per_ghost_channels)
        self.shape = (len(self.names), grid.height, grid.width)
        channels, cells = len(self.names), grid.cells
        self._plane = cells
        size = games.num_games * channels * cells
        # One spare element at the end: where marks point before anything was marked.
        self._storage = np.zeros(size + 1, dtype=np.float32)
        self.flat = self._storage[:size]
        self.array = self.flat.reshape(games.num_games, *self.shape)
        self._rows = np.arange(games.num_games, dtype=np.int64) * channels * cells
        g = games.num_ghosts
        self._marks = np.full((1 + 2 * g, games.num_games), size, dtype=np.int64)
        ghost_channels = np.arange(g) if per_ghost_channels else np.zeros(g, np.int64)
        self._ghost_offsets = ((PACMAN + 1 + ghost_channels) * cells)[:, None]
        self._scared_offset = (channels - 1) * cells
        #: slot -> (its board's version, its template)
        self._templates: dict[int, tuple[int, np.ndarray]] = {}
        # What the compiled marks read of the layout of the planes (see kernel.mark_grid).
        self._layout = (
            self._rows,
            self._ghost_offsets[:, 0].copy(),
            cells,
            FOOD,
            CAPSULES,
            PACMAN,
            self._scared_offset,
            per_ghost_channels,
        )

    def _template(self, slot: int) -> np.ndarray:
        """A slot's board without agents: walls, food and capsules."""
        boards = self.games.boards
        version = int(boards.version[slot])
        cached = self._templates.get(slot)
        if cached is not None and cached[0] == version:
            return cached[1]
        planes = np.zeros((len(self.names), self._plane), dtype=np.float32)
        planes[WALLS] = boards.walls[slot]
        planes[FOOD] = boards.food[slot]
        planes[CAPSULES] = boards.capsules[slot]
        self._templates[slot] = (version, planes)
        return planes

    def update(self, started: np.ndarray | None = None) -> np.ndarray:
        """Bring every game's planes up to date; ``started`` (indices) games were just reset."""
        games, flat = self.games, self.flat
        if started is not None and len(started):
            view = self.array.reshape(games.num_games, len(self.names), -1)
            slots = games.slot[started]
            if games.boards.draw is None:
                view[started] = self._template(0)
            else:
                view[started] = np.stack([self._template(int(s)) for s in slots])
        if games.compiled:
            kernel.mark_grid(
                self._storage,
                self._marks,
                self._layout,
                games.pacman,
                games.ghosts,
                games.timers,
                games.grid.cell_of_q,
            )
            return self.array
        self._storage[self._marks.reshape(-1)] = 0.0
        rows, plane = self._rows, self._plane
        under = rows + games.pacman
        flat[under + FOOD * plane] = 0.0
        flat[under + CAPSULES * plane] = 0.0
        marks = self._marks
        marks[0] = under + PACMAN * plane
        flat[marks[0]] = 1.0
        g = games.num_ghosts
        if g:
            cells = games.grid.cell_of_q[games.ghosts] + rows
            ghost_marks, scared_marks = marks[1 : 1 + g], marks[1 + g :]
            np.add(cells, self._ghost_offsets, out=ghost_marks)
            np.add(cells, self._scared_offset, out=scared_marks)
            timers = games.timers
            scared = timers > 0
            if not scared.any():
                flat[ghost_marks] = 1.0
            else:
                flat[ghost_marks if self.per_ghost_channels else ghost_marks[~scared]] = 1.0
                values = (timers[scared] / SCARED_TIME).astype(np.float32)
                np.maximum.at(flat, scared_marks[scared], values)
        return self.array


class BatchedWindow:
    """The grid planes but ``pacman`` in a ``(2r + 1)``-square around Pac-Man; walls beyond."""

    def __init__(self, grid: BatchedGrid, radius: int) -> None:
        self.grid = grid
        games = grid.games
        height, width = games.grid.height, games.grid.width
        self.radius = radius
        side = 2 * radius + 1
        self.names = tuple(name for name in grid.names if name != "pacman")
        keep = np.array([i for i, name in enumerate(grid.names) if name != "pacman"])
        self.shape = (len(self.names), side, side)
        # For each Pac-Man cell, the cell under each window square (-1 beyond the maze).
        rows, columns = np.divmod(np.arange(games.grid.cells), width)
        offsets = np.arange(-radius, radius + 1)
        r = rows[:, None, None] + offsets[None, :, None]
        c = columns[:, None, None] + offsets[None, None, :]
        inside = (r >= 0) & (r < height) & (c >= 0) & (c < width)
        self._source = np.where(inside, r * width + c, -1).reshape(games.grid.cells, -1)
        self._channels = (keep * games.grid.cells)[None, :, None]
        self._beyond = np.zeros((1, len(keep), 1), dtype=np.float32)
        self._beyond[0, self.names.index("walls")] = 1.0
        self.array = np.zeros((games.num_games, *self.shape), dtype=np.float32)

    def update(self) -> np.ndarray:
        """The windows of the grid's current planes."""
        grid = self.grid
        source = self._source[grid.games.pacman]
        inside = (source >= 0)[:, None, :]
        index = grid._rows[:, None, None] + self._channels + np.maximum(source, 0)[:, None, :]
        values = np.where(inside, grid.flat[index], self._beyond)
        self.array.reshape(values.shape)[:] = values
        return self.array


class BatchedFeatures:
    """The ``(N, 5 * len(FEATURE_NAMES))`` features of every game, as ``FeatureEncoder``'s."""

    def __init__(self, games: BatchedGames) -> None:
        self.games = games
        self.shape = (len(ACTION_ORDER) * len(FEATURE_NAMES),)
        high = np.ones((len(ACTION_ORDER), len(FEATURE_NAMES)), dtype=np.float32)
        high[:, list(COUNT_FEATURES)] = max(1, games.num_ghosts)
        self.high = high.reshape(-1)
        cells = games.grid.cells
        slots = games.boards.count
        self._distances = np.full((slots, cells, cells), FAR, dtype=np.int16)
        self._scales = np.ones(slots, dtype=np.float64)
        self._versions = np.full(slots, -1, dtype=np.int64)
        # The two cells a half cell lies between (the same cell twice on a cell): rows round
        # down and columns up in cell_of_q, so the other cell rounds the opposite ways.
        grid = games.grid
        big_r, big_c = np.divmod(np.arange(grid.halves), grid.row_stride)
        low = np.minimum((big_r + 1) // 2, grid.height - 1) * grid.width + big_c // 2
        self._low = np.minimum(low, cells - 1)
        self._high = grid.cell_of_q
        self._half = ((big_r % 2) | (big_c % 2)).astype(np.float64) * 0.5
        self.array = np.zeros((games.num_games, *self.shape), dtype=np.float32)

    def _refresh(self) -> None:
        """Maze distances of the boards that changed since last time."""
        boards, grid = self.games.boards, self.games.grid
        for slot in np.flatnonzero(boards.version != self._versions).tolist():
            layout = boards.layouts[slot]
            distances = maze_distances(layout)
            table = self._distances[slot]
            table[:] = FAR
            cells = open_cells(layout)
            number = {cell: grid.cell(*cell) for cell in cells}
            for cell in cells:
                steps = distances.from_cell(cell)
                table[number[cell], [number[c] for c in steps]] = list(steps.values())
            self._scales[slot] = float(longest_distance(layout))
            self._versions[slot] = boards.version[slot]

    def update(self) -> np.ndarray:
        """The features of every game's current state (zeros in won or lost games)."""
        self._refresh()
        games = self.games
        n = games.num_games
        key = ((games._slot_cells + games.pacman) * 5)[:, None] + np.arange(5)
        legal = games.boards.pacman_legal[key]
        target = games.boards.pacman_to[key]
        slot = games.slot
        # Distances from each action's cell to every cell: (N, 5, cells).
        steps = self._distances[slot[:, None], target]
        scale = self._scales[slot][:, None]
        out = np.zeros((n, len(ACTION_ORDER), len(FEATURE_NAMES)), dtype=np.float64)
        rows = np.arange(n)[:, None]
        out[..., LEGAL] = 1.0
        out[..., EATS_FOOD] = games.food[rows, target]
        out[..., EATS_CAPSULE] = games.capsules[rows, target]
        nearest = np.where(games.food[:, None, :], steps, FAR).min(axis=2).astype(np.float64)
        nearest = np.where(nearest >= FAR, scale, nearest)
        out[..., FOOD_DISTANCE] = np.where((games.food_left > 0)[:, None], nearest / scale, 0.0)
        capsule = np.where(games.capsules[:, None, :], steps, FAR).min(axis=2).astype(np.float64)
        capsule = np.minimum(capsule, scale)  # an unreachable capsule counts as the scale
        out[..., CAPSULE_DISTANCE] = np.minimum(1.0, capsule / scale)
        self._ghost_features(out, steps, scale)
        out *= legal[..., None]
        out[games.is_over()] = 0.0
        self.array[:] = out.reshape(n, -1)
        return self.array

    def _ghost_features(self, out: np.ndarray, steps: np.ndarray, scale: np.ndarray) -> None:
        """Danger, nearness and distances of the ghosts, walked in ghost order as the encoder does."""
        games = self.games
        nearest_ghost = np.broadcast_to(scale, out.shape[:2]).copy()
        nearest_scared = nearest_ghost.copy()
        scared_time = np.zeros(out.shape[:2])
        for index in range(games.num_ghosts):
            q = games.ghosts[index]
            low = np.take_along_axis(steps, self._low[q][:, None, None], axis=2)[..., 0]
            high = np.take_along_axis(steps, self._high[q][:, None, None], axis=2)[..., 0]
            apart = np.minimum(low, high).astype(np.float64)
            apart = np.where(apart >= FAR, np.inf, apart + self._half[q][:, None])
            timer = games.timers[index][:, None]
            scared = timer > 0
            near = apart <= 1
            out[..., SCARED_GHOST_NEAR] += near & scared
            out[..., GHOST_DANGER] += near & ~scared
            closer = scared & (apart < nearest_scared)
            nearest_scared = np.where(closer, apart, nearest_scared)
            scared_time = np.where(closer, timer, scared_time)
            nearest_ghost = np.where(scared, nearest_ghost, np.minimum(nearest_ghost, apart))
        out[..., GHOST_DISTANCE] = np.minimum(1.0, nearest_ghost / scale)
        out[..., SCARED_GHOST_DISTANCE] = np.minimum(1.0, nearest_scared / scale)
        out[..., SCARED_TIME_LEFT] = scared_time / SCARED_TIME
