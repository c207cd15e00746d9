"""``PacmanBatchedParallelEnv``: the multi-agent game on the batched engine, ghosts learners too.

PettingZoo's parallel API (``reset``, ``step(actions)`` with a dict per agent) over
``num_envs`` games at once: every value in the dicts is an array with one entry per game, and a
game that ends restarts at the next step, as Gymnasium's vector environments autoreset (its
agents' actions in that step are ignored). With ``num_envs=None`` it is one game with
``PacmanParallelEnv``'s plain values, agents that leave when the game ends and no autoreset,
which is what PettingZoo's ``parallel_api_test`` checks.

Agents, observations, rewards and illegal moves are ``PacmanParallelEnv``'s: ``pacman_0``,
``ghost_0``...; ``{"observation": the grid planes and a "self" plane, "action_mask"}``; Pac-Man
gets the score change of the cycle and each ghost ``-change / number_of_ghosts``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from pacman.directions import ACTION_ORDER
from pacman.envs._optional import require
from pacman.envs.batched.boards import NAME_BIT, STOP_CODE
from pacman.envs.batched.encoders import BatchedGrid
from pacman.envs.batched.engine import RUNNING, BatchedGames
from pacman.envs.batched.gymenv import batch_boards
from pacman.envs.limits import check_count, check_max_cycles
from pacman.envs.single import check_illegal_action
from pacman.errors import IllegalActionError, PacmanError
from pacman.layout import Layout

require("pettingzoo")
from pettingzoo import ParallelEnv  # noqa: E402

#: ``[bits]``: a ghost's legal set as an ``int8`` mask over ``ACTION_ORDER``.
GHOST_MASKS = ((np.arange(16)[:, None] & NAME_BIT[None, :]) > 0).astype(np.int8)


class GameActions(spaces.MultiDiscrete):
    """One ``Discrete(5)`` action per game; ``sample(mask=...)`` also takes the ``(N, 5)``
    ``action_mask`` array of an observation (MultiDiscrete wants a tuple of rows)."""

    def __init__(self, count: int, seed: Any = None) -> None:
        super().__init__(np.full(count, len(ACTION_ORDER)), dtype=np.int64, seed=seed)

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        if isinstance(mask, np.ndarray) and mask.ndim == 2:
            mask = tuple(mask)
        return super().sample(mask=mask, probability=probability)


class PacmanBatchedParallelEnv(ParallelEnv):
    """Pac-Man and its ghosts, every one a player, in ``num_envs`` games stepped together.

    Arguments: ``num_envs`` (None: one game with plain values), ``layout`` (as
    ``PacmanBatchedVectorEnv``'s, ``random:`` distributions included: a new board per game
    start), ``num_ghosts``, ``max_cycles`` (1000), ``per_ghost_channels``, ``illegal_action``.
    ``reset(seed=s)`` seeds game ``i`` with ``s + i``, which only the drawn boards use.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "pacman_batched_parallel_v0",
        "render_modes": [],
        "is_parallelizable": True,
    }

    def __init__(
        self,
        num_envs: int | None = None,
        layout: str | Layout = "mediumClassic",
        num_ghosts: int | None = None,
        max_cycles: int = 1000,
        per_ghost_channels: bool = False,
        illegal_action: str = "stop",
    ) -> None:
        check_illegal_action(illegal_action)
        self.batched = num_envs is not None
        count = check_count(num_envs) if self.batched else 1
        first, draw = batch_boards(layout)
        self.games = BatchedGames(first, count, num_ghosts, "random", draw)
        self.layout, self.num_ghosts, self.num_envs = first, self.games.num_ghosts, count
        self.max_cycles = check_max_cycles(max_cycles)
        self.illegal_action = illegal_action
        self.render_mode = None
        self._grid = BatchedGrid(self.games, per_ghost_channels)
        self.channel_names = (*self._grid.names, "self")
        self.possible_agents = ["pacman_0", *(f"ghost_{i}" for i in range(self.num_ghosts))]
        self.agents: list[str] = []
        channels, height, width = self._grid.shape
        one: spaces.Space[Any] = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (channels + 1, height, width), np.float32),
                "action_mask": spaces.Box(0, 1, (len(ACTION_ORDER),), np.int8),
            }
        )
        action: spaces.Space[Any] = spaces.Discrete(len(ACTION_ORDER))
        if self.batched:
            one, action = batch_space(one, count), GameActions(count)
        self.observation_spaces = dict.fromkeys(self.possible_agents, one)
        self.action_spaces = dict.fromkeys(self.possible_agents, action)
        self.state_space = spaces.Box(0.0, 1.0, self._grid.shape, np.float32)
        self._cycles = np.zeros(count, dtype=np.int64)
        self._autoreset = np.zeros(count, dtype=bool)
        self._seeded = False

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict]]:
        """Start every game; ``seed`` only matters for boards drawn from a distribution."""
        if seed is not None:
            seeds: list[int] | None = [int(seed) + i for i in range(self.num_envs)]
        elif not self._seeded:
            fresh = np.random.SeedSequence().generate_state(self.num_envs * 2, np.uint64)
            seeds = [int(value) for value in fresh[: self.num_envs]]
        else:
            seeds = None
        self._seeded = True
        self.games.reset(None, seeds)
        self._cycles[:] = 0
        self._autoreset[:] = False
        self._grid.update(np.arange(self.num_envs))
        self.agents = list(self.possible_agents)
        no = np.zeros(self.num_envs, dtype=bool)
        return self._observations(), {agent: {"illegal": self._plain(no)} for agent in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise PacmanError("the game has ended; call reset()")
        games = self.games
        restarting = np.flatnonzero(self._autoreset) if self._autoreset.any() else None
        before = games.scores.copy()
        illegal = {}
        for index, agent in enumerate(self.possible_agents):
            moves, given = self._actions(agent, actions.get(agent))
            if self.illegal_action == "error":
                self._refuse(index, agent, moves, given)
            if index == 0:
                moves = np.where(given, moves, STOP_CODE)
                illegal[agent] = games.move_pacman(moves) & given
            else:
                illegal[agent] = games.move_ghost(index - 1, moves) & given
        change = (games.scores - before).astype(np.float64)
        over = games.is_over()
        self._cycles += 1
        truncated = ~over & (self._cycles >= self.max_cycles)
        if restarting is not None:
            games.reset(restarting)
            self._cycles[restarting] = 0
            change[restarting] = 0.0
            over[restarting] = truncated[restarting] = False
            for flags in illegal.values():
                flags[restarting] = False
        games.stop(truncated)
        self._grid.update(restarting)
        share = np.where(change != 0, -change / max(1, self.num_ghosts), 0.0)
        if not self.num_ghosts:
            share = np.zeros_like(change)
        agents = self.agents
        rewards = {a: self._plain(change if a == "pacman_0" else share) for a in agents}
        terminations = {a: self._plain(over.copy()) for a in agents}
        truncations = {a: self._plain(truncated.copy()) for a in agents}
        observations = self._observations()
        infos = {a: {"illegal": self._plain(illegal[a])} for a in agents}
        ended = over | truncated
        if self.batched:
            self._autoreset = ended
        elif ended[0]:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def state(self) -> np.ndarray:
        """The shared grid planes, ``(C, H, W)`` (``(num_envs, C, H, W)`` when batched)."""
        return self._plain(self._grid.array.copy())

    # ------------------------------------------------------------------ helpers

    def _plain(self, values: Any) -> Any:
        """Batched values as they are; for one game, its entry as a plain value."""
        if self.batched:
            return values
        value = values[0]
        return value.item() if isinstance(value, np.generic) else value

    def _actions(self, agent: str, action: Any) -> tuple[np.ndarray, np.ndarray]:
        """An agent's action codes for every game and where one was given (missing: None)."""
        count = self.num_envs
        if action is None:
            return np.full(count, STOP_CODE, dtype=np.int64), np.zeros(count, dtype=bool)
        moves = np.asarray(action)
        if not self.batched:
            moves = moves.reshape(1) if moves.ndim == 0 else moves
        ok = moves.shape == (count,) and moves.dtype.kind in "iu"
        if not ok or moves.min() < 0 or moves.max() >= len(ACTION_ORDER):
            raise PacmanError(
                f"action {action!r} of {agent} is not in Discrete(5): use 0 to 4"
                + (f", one per game ({count})" if self.batched else "")
            )
        return moves.astype(np.int64), np.ones(count, dtype=bool)

    def _refuse(self, index: int, agent: str, moves: np.ndarray, given: np.ndarray) -> None:
        """IllegalActionError for the first game where ``agent``'s given move is illegal."""
        games = self.games
        masks = self._masks(index)
        wrong = given & (games.outcome == RUNNING) & (masks[np.arange(len(moves)), moves] == 0)
        if wrong.any():
            game = int(np.flatnonzero(wrong)[0])
            legal = ", ".join(f"{a} ({ACTION_ORDER[a]})" for a in np.flatnonzero(masks[game]))
            where = f" in game {game}" if self.batched else ""
            raise IllegalActionError(
                f"action {int(moves[game])} ({ACTION_ORDER[moves[game]]}) is illegal for "
                f"{agent}{where}; legal: {legal}"
            )

    def _masks(self, index: int) -> np.ndarray:
        """``(N, 5)`` ``int8`` legal actions of game agent ``index`` (zeros once a game is over)."""
        games = self.games
        if index == 0:
            return games.legal_mask()
        masks = GHOST_MASKS[games.ghost_bits(index - 1)]
        masks[games.is_over()] = 0
        return masks

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        games, grid = self.games, self._grid
        count, channels = self.num_envs, len(self._grid.names)
        planes = grid.array.reshape(count, channels, games.grid.cells)
        # One block for every agent's planes: a few large allocations a step instead of one
        # per agent, which glibc would otherwise hand back to the system and fault in again.
        block = np.empty((len(self.agents), count, channels + 1, planes.shape[2]), np.float32)
        block[:, :, :channels] = planes
        block[:, :, channels] = 0.0
        observations = {}
        for index, agent in enumerate(self.agents):
            here = games.pacman if index == 0 else games.grid.cell_of_q[games.ghosts[index - 1]]
            stack = block[index]
            stack[np.arange(count), channels, here] = 1.0
            observations[agent] = {
                "observation": self._plain(stack.reshape(count, channels + 1, *grid.shape[1:])),
                "action_mask": self._plain(self._masks(index)),
            }
        return observations
