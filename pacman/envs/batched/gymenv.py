"""Gymnasium environments on the batched engine.

``gymnasium.make_vec("pacman.envs:PacmanBatched-v0", num_envs=1024)`` builds
:class:`PacmanBatchedVectorEnv`: what ``PacmanVectorEnv`` returns (observations, masks, rewards,
``info``, next-step or same-step autoreset, the time limit), with every game a row of the
engine's arrays instead of a ``PacmanEnv``. ``gymnasium.make("pacman.envs:PacmanBatched-v0")``
builds :class:`PacmanBatchedEnv`, one such game as a ``gymnasium.Env``, which is what the
``"sync"`` and ``"async"`` modes of ``make_vec`` vectorise: given the same seeds and actions
they return exactly what the default mode returns.

Game ``i`` of ``reset(seed=s)`` is seeded ``s + i``: its ghosts draw from the stream of that
seed (:class:`~pacman.envs.batched.streams.StreamRandom`), and so do its boards when the
layout is a distribution (``layout="random:20x11"``: a new board each episode).
"""

from __future__ import annotations

import operator
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from pacman.directions import ACTION_ORDER
from pacman.envs.batched.encoders import BatchedFeatures, BatchedGrid, BatchedWindow
from pacman.envs.batched.engine import BatchedGames
from pacman.envs.batched.streams import StreamRandom
from pacman.envs.compact import FEATURE_NAMES
from pacman.envs.limits import check_count, check_num_envs, check_reward_scale, game_bytes
from pacman.envs.single import ENDED_MASK, PacmanEnv, check_illegal_action, check_observation
from pacman.envs.vector import autoreset_setting, check_open
from pacman.errors import IllegalActionError, PacmanError
from pacman.ghosts import GHOST_ALIASES
from pacman.layout import Layout, load_layout
from pacman.mazegen import is_spec, parse_spec

OBSERVATION_KINDS = ("grid", "features", "window")


def batch_boards(layout: str | Layout) -> tuple[Layout, Any]:
    """The first board and, for a ``random:`` spec without a seed, the ``seed -> board`` draw."""
    if isinstance(layout, Layout):
        return layout, None
    if is_spec(layout):
        spec = parse_spec(layout)
        if spec.seed is None:
            return spec.board(0), spec.board
        return spec.board(), None
    return load_layout(layout), None


class PacmanBatchedVectorEnv(VectorEnv):
    """``num_envs`` Pac-Man games stepped together as arrays (a Gymnasium ``VectorEnv``).

    Arguments as ``PacmanVectorEnv``: ``num_envs``, ``layout`` (a name, ``.lay`` path,
    ``Layout`` or ``random:WxH[,...]``; without ``seed=`` every episode a new board of that
    size), ``num_ghosts``, ``ghost`` (``"random"`` or ``"directional"``), ``illegal_action``,
    ``observation`` (``"grid"``, ``"features"`` or ``"window"``), ``per_ghost_channels``,
    ``window_radius``, ``reward_scale``, ``max_episode_steps`` and ``autoreset_mode``. No
    ``reward_fn`` (states are arrays here) and no rendering. ``copy=False`` (as Gymnasium's
    vector envs' ``copy``) returns the env's own observation array, rewritten by the next step:
    no copy of every game's planes a step. ``compiled``: ``BatchedGames``' (the Numba kernel
    when it imports, or False for NumPy).
    """

    # Not a ClassVar: Gymnasium declares metadata per instance (an env may set its own).
    metadata: dict[str, Any] = {"render_modes": [], "render_fps": 10}  # noqa: RUF012
    single_observation_space: spaces.Box  # every observation kind here is an array

    def __init__(
        self,
        num_envs: int = 1,
        layout: str | Layout = "mediumClassic",
        num_ghosts: int | None = None,
        ghost: str = "random",
        illegal_action: str = "stop",
        observation: str = "grid",
        per_ghost_channels: bool = False,
        window_radius: int = 4,
        reward_scale: float = 1.0,
        max_episode_steps: int | None = None,
        autoreset_mode: Any = "next_step",
        render_mode: None = None,
        reward_fn: None = None,
        copy: bool = True,
        compiled: bool | None = None,
    ) -> None:
        num_envs = check_count(num_envs)
        if reward_fn is not None:
            raise PacmanError(
                "the batched engine has no GameStates to hand reward_fn: use reward_scale, "
                "or compute rewards from the arrays in envs.games"
            )
        check_illegal_action(illegal_action)
        check_observation(observation, OBSERVATION_KINDS, window_radius)
        if render_mode is not None:
            raise PacmanError("the batched environments do not render; leave render_mode None")
        self.same_step, self.metadata = autoreset_setting(autoreset_mode, self.metadata)
        first, draw = batch_boards(layout)
        ghosts = first.num_ghosts if num_ghosts is None else min(num_ghosts, first.num_ghosts)
        each = game_bytes(
            first.width, first.height, ghosts, observation, int(window_radius), draw is not None
        )
        check_num_envs(num_envs, each)
        self.games = BatchedGames(first, num_envs, num_ghosts, ghost, draw, compiled=compiled)
        self.layout = first
        self.num_envs = num_envs
        self.num_ghosts = self.games.num_ghosts
        self.render_mode = None
        self.illegal_action = illegal_action
        self.reward_scale = check_reward_scale(reward_scale)
        self.max_episode_steps = max_episode_steps
        self.copy = bool(copy)
        self._set_observation(observation, per_ghost_channels, int(window_radius))
        self.single_action_space = spaces.Discrete(len(ACTION_ORDER))
        self.observation_space = _shared_bounds(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._elapsed = np.zeros(num_envs, dtype=np.int64)
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self._illegal = np.zeros(num_envs, dtype=bool)
        self._all = np.ones(num_envs, dtype=bool)
        self._seeded = False
        self._game_seeds: list[int] = [-1] * num_envs  # -1: not started yet

    def _set_observation(self, kind: str, per_ghost_channels: bool, radius: int) -> None:
        games = self.games
        self.observation_kind = kind
        self._grid = BatchedGrid(games, per_ghost_channels)
        self.channel_names = self._grid.names
        self.feature_names = FEATURE_NAMES if kind == "features" else None
        self._window = BatchedWindow(self._grid, radius) if kind == "window" else None
        self._features = BatchedFeatures(games) if kind == "features" else None
        if self._window is not None:
            self.channel_names = self._window.names
            self.single_observation_space = spaces.Box(0.0, 1.0, self._window.shape, np.float32)
        elif self._features is not None:
            high = self._features.high
            self.single_observation_space = spaces.Box(np.zeros_like(high), high, dtype=np.float32)
        else:
            self.single_observation_space = spaces.Box(0.0, 1.0, self._grid.shape, np.float32)

    # ------------------------------------------------------------------ API

    def reset(
        self,
        *,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        check_open(self)
        chosen = self._all
        if options and "state" in options:
            raise PacmanError("the batched engine starts games from their layout: no 'state'")
        if options and "reset_mask" in options:
            # Gymnasium's partial reset: only the games marked True start again.
            chosen = np.asarray(options["reset_mask"], dtype=bool)
            if chosen.shape != (self.num_envs,) or not chosen.any():
                raise PacmanError(
                    f"options['reset_mask'] must be {self.num_envs} booleans, at least one True"
                )
        games = np.flatnonzero(chosen)
        self.games.reset(games, self._seeds(seed, games))
        self._elapsed[games] = 0
        self._autoreset[games] = False
        self._illegal[games] = False
        self._rewards = np.zeros(self.num_envs)
        self._terminations = np.zeros(self.num_envs, dtype=bool)
        self._truncations = np.zeros(self.num_envs, dtype=bool)
        observations = self._observe(games)
        return self._out(observations), self._info(chosen)

    def _seeds(self, seed: Any, games: np.ndarray) -> list[int] | None:
        """Each reset game's seed: ``seed + i``, a list's entries, or fresh ones the first time."""
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise PacmanError(f"reset got {len(seeds)} seeds for {self.num_envs} environments")
        if all(s is None for s in seeds) and self._seeded:
            return None  # the games go on drawing from their streams
        fresh = np.random.SeedSequence().generate_state(self.num_envs * 2, np.uint64)
        self._seeded = True
        chosen = [int(fresh[i]) if seeds[i] is None else int(seeds[i]) for i in games.tolist()]
        for game, game_seed in zip(games.tolist(), chosen, strict=True):
            self._game_seeds[game] = game_seed
        return chosen

    @property
    def np_random_seed(self) -> tuple[int, ...]:  # type: ignore[override]
        """The seed each game was last started with, as ``SyncVectorEnv`` gives it: ``(3, 4)``
        after ``reset(seed=3)``; -1 before the first reset."""
        return tuple(self._game_seeds)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        check_open(self)
        games = self.games
        actions = self._check_actions(actions)
        restarting = np.flatnonzero(self._autoreset) if self._autoreset.any() else None
        before = games.scores.copy()
        self._illegal = games.step(actions)
        rewards = (games.scores - before).astype(np.float64)
        if self.reward_scale != 1.0:
            rewards *= self.reward_scale
        terminations = games.is_over()
        self._elapsed += 1
        limit = self.max_episode_steps
        truncations = (
            self._elapsed >= limit if limit is not None else np.zeros(self.num_envs, dtype=bool)
        )
        if restarting is not None:
            games.reset(restarting)
            self._elapsed[restarting] = 0
            rewards[restarting] = 0.0
            terminations[restarting] = truncations[restarting] = False
        if limit is not None and truncations.any():
            games.stop(truncations)  # their ghosts must not draw before they restart
        self._rewards, self._terminations, self._truncations = rewards, terminations, truncations
        observations = self._observe(restarting)
        ended = terminations | truncations
        if self.same_step and ended.any():
            return self._restart(ended, observations)
        np.copyto(self._autoreset, ended)
        # No game has ended since ``terminations``: restarted ones run, stopped ones are not over.
        info = self._info(over=terminations)
        return self._out(observations), rewards, terminations, truncations.copy(), info

    def _out(self, observations: np.ndarray) -> np.ndarray:
        """What a step returns of the encoder's array: a copy unless ``copy=False``."""
        return observations.copy() if self.copy else observations

    def _check_actions(self, actions: Any) -> np.ndarray:
        """Actions as an int array of shape (num_envs,), each 0 to 4, else PacmanError."""
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise PacmanError(
                f"step got actions of shape {array.shape}; expected ({self.num_envs},)"
            )
        if array.dtype.kind not in "iu":
            whole = array.astype(np.int64) if array.dtype.kind == "f" else None
            if whole is None or (whole != array).any():
                raise PacmanError(f"actions must be whole numbers 0 to 4, not {array.dtype}")
            array = whole
        if array.size and (array.min() < 0 or array.max() >= len(ACTION_ORDER)):
            bad = int(array[(array < 0) | (array >= len(ACTION_ORDER))][0])
            raise PacmanError(f"action {bad} is not in Discrete(5): use 0 to 4")
        if self.illegal_action == "error":
            self._refuse_illegal(array)
        return array

    def _refuse_illegal(self, actions: np.ndarray) -> None:
        games = self.games
        wrong = ~games.pacman_legal(actions) & ~self._autoreset & (games.outcome == 0)
        if wrong.any():
            game = int(np.flatnonzero(wrong)[0])
            name = ACTION_ORDER[actions[game]]
            legal = [a for a in range(5) if games.legal_mask()[game, a]]
            options = ", ".join(f"{a} ({ACTION_ORDER[a]})" for a in legal)
            raise IllegalActionError(
                f"action {int(actions[game])} ({name}) is illegal for Pac-Man in game {game}; "
                f"legal: {options}"
            )

    def _restart(
        self, ended: np.ndarray, observations: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Same-step autoreset: restart the ``ended`` games, their last step kept in ``info``."""
        final_info = self._info(ended)
        final_obs = np.full(self.num_envs, None, dtype=object)
        indices = np.flatnonzero(ended)
        for index in indices.tolist():
            final_obs[index] = observations[index].copy()
        self.games.reset(indices)
        self._elapsed[indices] = 0
        self._illegal[indices] = False
        observations = self._observe(indices)
        info = self._info()
        info.update(
            final_obs=final_obs, _final_obs=ended, final_info=final_info, _final_info=ended.copy()
        )
        return (
            self._out(observations),
            self._rewards,
            self._terminations,
            self._truncations,
            info,
        )

    def _observe(self, started: np.ndarray | None) -> np.ndarray:
        """Update the encoders after a move (``started``: games reset since the last update)."""
        grid = self._grid.update(started)
        if self._window is not None:
            return self._window.update()
        if self._features is not None:
            return self._features.update()
        return grid

    def _info(
        self, chosen: np.ndarray | None = None, over: np.ndarray | None = None
    ) -> dict[str, Any]:
        """The batched info; after a partial reset only the ``chosen`` games have entries.
        ``over``: the games won or lost, when the caller knows them."""
        games = self.games
        info = {
            "action_mask": self._pacman_masks(over),
            "score": games.scores.astype(np.float64),
            "illegal": self._illegal.copy(),
        }
        partial = chosen is not None and chosen is not self._all
        present = self._all if chosen is None else chosen
        batched: dict[str, Any] = {}
        for key, values in info.items():
            if partial:
                assert chosen is not None  # partial: only the chosen games were reset
                values[~chosen] = 0
            batched[key] = values
            batched[f"_{key}"] = present.copy()
        return batched

    def render(self) -> None:
        """Nothing: the batched games are not drawn (see ``PacmanVectorEnv`` for frames)."""
        return None

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 5)`` booleans: each game's legal actions (sb3-contrib's convention)."""
        return self._pacman_masks().astype(bool)

    def _pacman_masks(self, over: np.ndarray | None = None) -> np.ndarray:
        """``(num_envs, 5)`` ``int8``: each game's legal actions, Stop alone where it has ended
        (as ``PacmanEnv``'s: a mask is never empty); ``over``: the games won or lost."""
        games = self.games
        masks = games.boards.pacman_mask[games.cell_keys()]
        over = games.is_over() if over is None else over
        if over.any():
            masks[over] = ENDED_MASK
        return masks


class PacmanBatchedEnv(gym.Env):
    """One game of the batched engine as a ``gymnasium.Env`` (``PacmanEnv``'s API and spaces).

    Takes :class:`PacmanBatchedVectorEnv`'s arguments but ``num_envs``, ``max_episode_steps``
    (``gymnasium.make`` adds the time limit) and ``autoreset_mode``. On one board (not a
    ``random:`` distribution) the game is played by the object engine, a ``PacmanEnv`` whose
    ghosts draw from the batched game's stream: the same moves, without a batch's overhead.
    """

    # Not a ClassVar: Gymnasium declares metadata per instance (an env may set its own).
    metadata: dict[str, Any] = {"render_modes": [], "render_fps": 10}  # noqa: RUF012

    def __init__(self, **kwargs: Any) -> None:
        self.vector = PacmanBatchedVectorEnv(1, **kwargs)  # checks the arguments, gives spaces
        self.observation_space = self.vector.single_observation_space
        self.action_space = self.vector.single_action_space
        self.channel_names = self.vector.channel_names
        self.feature_names = self.vector.feature_names
        self.closed = False
        self._over = True
        self._stream = StreamRandom()
        self._started = False
        self._game = None if self.vector.games.boards.draw else self._object_game(kwargs)

    def _object_game(self, kwargs: dict[str, Any]) -> PacmanEnv:
        """The object engine's env playing this game, its ghosts drawing from ``_stream``."""
        kind = GHOST_ALIASES[self.vector.games.ghost_kind]  # the object engine's ghost
        unused = (
            "layout",
            "ghost",
            "copy",
            "compiled",
        )  # a game's observation is always its own array
        settings = {key: value for key, value in kwargs.items() if key not in unused}
        settings["num_ghosts"] = self.vector.num_ghosts
        return PacmanEnv(
            self.vector.layout, ghost=lambda index, _: kind(index, rng=self._stream), **settings
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        check_open(self)
        self._over = False
        if self._game is None:
            observations, info = self.vector.reset(seed=seed, options=options)
            return observations[0], _first(info)
        if options and "state" in options:
            raise PacmanError("the batched engine starts games from their layout: no 'state'")
        if seed is not None or not self._started:
            self._stream.seed(seed)  # None the first time: a fresh stream, as the vector's
        self._started = True
        return self._game.reset(seed=seed)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        check_open(self)
        if self._over:
            raise PacmanError("the episode has ended (won or lost); call reset()")
        try:
            code = operator.index(action)  # ints, NumPy integers and 0-d integer arrays
        except TypeError:
            raise PacmanError(f"action {action!r} is not in Discrete(5): use 0 to 4") from None
        if self._game is not None:
            observation, reward, terminated, truncated, info = self._game.step(code)
            self._over = terminated
            return observation, reward, terminated, truncated, info
        observations, rewards, terminations, _, info = self.vector.step(np.array([code]))
        self._over = bool(terminations[0])
        return observations[0], float(rewards[0]), self._over, False, _first(info)

    def close(self) -> None:
        """End the game for good: a step after it is refused, as the vector env's."""
        self.closed = True
        self.vector.close()

    def action_mask(self) -> np.ndarray:
        """The legal actions now as an ``int8`` mask."""
        if self._game is not None:
            return self._game.action_mask()
        return self.vector.action_masks()[0].astype(np.int8)

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (sb3-contrib's ``MaskablePPO`` calls this)."""
        return self.action_mask().astype(bool)


def _shared_bounds(single: spaces.Box, num_envs: int) -> spaces.Box:
    """``single`` batched for ``num_envs`` games, its bound arrays views of ``single``'s,
    repeated without copies.

    ``batch_space`` stores the bounds and their flags once per game: 13 KB a game on
    mediumClassic's grid, more than twice what the games and their observations take.
    """
    batched = batch_space(single, num_envs)
    assert isinstance(batched, spaces.Box), "batch_space makes a Box of a Box"
    for name in ("low", "high", "bounded_below", "bounded_above"):
        setattr(batched, name, np.broadcast_to(getattr(single, name), batched.shape))
    return batched


def _first(info: dict[str, Any]) -> dict[str, Any]:
    """Game 0's entries of a batched info, as ``PacmanEnv``'s info."""
    return {
        "action_mask": info["action_mask"][0],
        "score": float(info["score"][0]),
        "illegal": bool(info["illegal"][0]),
    }
