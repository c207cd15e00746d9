"""``PacmanVectorEnv``: many ``PacmanEnv`` games stepped in one process into one batch.

``gymnasium.make_vec("pacman.envs:Pacman-v0", num_envs=8)`` (the default
``vectorization_mode``) builds this; ``"sync"`` and ``"async"`` build
Gymnasium's own wrappers around ``PacmanEnv`` instead. Given the same seeds and
actions it returns exactly what ``SyncVectorEnv`` returns (next-step autoreset,
or same-step on request; the time limit of the registration; the same ``info``
keys), but writes each game's observation straight into the batch instead of
copying observations and merging info dicts one game at a time.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

import numpy as np
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from pacman.envs.limits import check_num_envs
from pacman.envs.single import PacmanEnv
from pacman.errors import PacmanError

try:
    from gymnasium.vector import AutoresetMode

    _AUTORESET_MODES: dict[str, Any] = {
        "next_step": AutoresetMode.NEXT_STEP,
        "same_step": AutoresetMode.SAME_STEP,
    }
except ImportError:  # gymnasium 1.0 has next-step autoreset only, and no name for it
    _AUTORESET_MODES = {"next_step": None}
#: Gymnasium's own names of the modes (``AutoresetMode.SAME_STEP.value``), as SyncVectorEnv
#: takes them too.
_GYMNASIUM_NAMES = {"NextStep": "next_step", "SameStep": "same_step"}


def autoreset_setting(autoreset_mode: Any, metadata: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Whether ``autoreset_mode`` (an ``AutoresetMode``, its value or ``"same_step"``) resets in
    the same step, and ``metadata`` naming it where this gymnasium has names for the modes."""
    value = getattr(autoreset_mode, "value", autoreset_mode)
    mode = _GYMNASIUM_NAMES.get(value, value) if isinstance(value, str) else None
    if mode not in _AUTORESET_MODES:
        known = ", ".join(repr(name) for name in _AUTORESET_MODES)
        raise PacmanError(
            f"autoreset_mode must be one of {known} (or Gymnasium's AutoresetMode of the same "
            f"name), not {autoreset_mode!r}"
        )
    if _AUTORESET_MODES[mode] is not None:
        metadata = {**metadata, "autoreset_mode": _AUTORESET_MODES[mode]}
    return mode == "same_step", metadata


class Closable(Protocol):
    """An environment that knows whether ``close()`` ended it (a vector env, or one game)."""

    @property
    def closed(self) -> bool: ...


def check_open(env: Closable) -> None:
    """PacmanError if ``env`` was closed: its games are gone, a step would play nothing real."""
    if env.closed:
        raise PacmanError(
            f"{type(env).__name__} is closed: make a new one to play (close() ends it for good)"
        )


class StepArrays(NamedTuple):
    """The batch as the last reset or step left it, one row per game (live arrays: copy to
    keep them)."""

    observations: np.ndarray
    rewards: np.ndarray
    terminations: np.ndarray
    truncations: np.ndarray
    illegal: np.ndarray
    masks: np.ndarray


#: Less than one PacmanEnv takes (about 135 KB on smallClassic), for the num_envs check.
ENV_BYTES = 64 * 1024


class PacmanVectorEnv(VectorEnv):
    """``num_envs`` Pac-Man games with array observations, batched in one process.

    Arguments: ``num_envs``, ``max_episode_steps`` (``None``: no time limit;
    the registered ids pass 1000), ``render_mode`` (``None``, ``"rgb_array"``
    or ``"ansi"``: ``render()`` returns one frame per game), ``autoreset_mode``
    (``"next_step"``, Gymnasium's default, or ``"same_step"``: a finished game
    restarts within the step that ended it, its last observation and info in
    ``info["final_obs"]`` and ``info["final_info"]``) and every ``PacmanEnv``
    argument (``observation`` ``"grid"``, ``"features"`` or ``"window"``).
    """

    # Not a ClassVar: Gymnasium declares metadata per instance (an env may set its own).
    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": ["rgb_array", "ansi"],
        "render_fps": 10,
    }

    def __init__(
        self,
        num_envs: int = 1,
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        autoreset_mode: Any = "next_step",
        **env_kwargs: Any,
    ) -> None:
        if env_kwargs.get("observation", "grid") == "dict":
            raise PacmanError("the vector environment takes array observations, not 'dict'")
        self.same_step, self.metadata = autoreset_setting(autoreset_mode, self.metadata)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = ", ".join(self.metadata["render_modes"])
            raise PacmanError(
                f"vector render_mode must be None or one of {modes}, not {render_mode!r}"
            )
        num_envs = check_num_envs(num_envs, ENV_BYTES)
        self.num_envs = num_envs
        self.max_episode_steps = max_episode_steps
        self.render_mode = render_mode
        self.envs = [PacmanEnv(render_mode=render_mode, **env_kwargs) for _ in range(num_envs)]
        first = self.envs[0]
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.channel_names = first.channel_names
        self.feature_names = getattr(first, "feature_names", None)

        shape = self.observation_space.shape
        assert shape is not None, "array observations batch into a Box, which has a shape"
        self._observations = np.zeros(shape, dtype=np.float32)
        self._masks = np.zeros((num_envs, first.action_space.n), dtype=np.int8)
        self._scores = np.zeros(num_envs, dtype=np.float64)
        self._illegal = np.zeros(num_envs, dtype=bool)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._terminations = np.zeros(num_envs, dtype=bool)
        self._truncations = np.zeros(num_envs, dtype=bool)
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self._elapsed = [0] * num_envs
        self._all = np.ones(num_envs, dtype=bool)

    def reset(
        self,
        *,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        check_open(self)
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise PacmanError(f"reset got {len(seeds)} seeds for {self.num_envs} environments")
        chosen = self._all
        if options and "reset_mask" in options:
            # Gymnasium's partial reset: only the games marked True start again.
            options = dict(options)
            chosen = np.asarray(options.pop("reset_mask"), dtype=bool)
            if chosen.shape != (self.num_envs,) or not chosen.any():
                raise PacmanError(
                    f"options['reset_mask'] must be {self.num_envs} booleans, at least one True"
                )
        for index, game_seed in enumerate(seeds):
            if chosen[index]:
                self.start_game(index, game_seed, options)
        return self._observations.copy(), self._info(chosen)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        check_open(self)
        finished = self.play_step(actions)
        if self.same_step:
            info = self._restart(finished)
        else:
            np.logical_or(self._terminations, self._truncations, out=self._autoreset)
            info = self._info()
        return (
            self._observations.copy(),
            self._rewards.copy(),
            self._terminations.copy(),
            self._truncations.copy(),
            info,
        )

    def play_step(self, actions: Any) -> list[int]:
        """Step every game into the batch (next-step mode: restart the ones that ended last time).

        Returns the games this step ended, which same-step mode restarts.
        """
        actions = np.asarray(actions).tolist()
        if len(actions) != self.num_envs:
            raise PacmanError(f"step got {len(actions)} actions for {self.num_envs} environments")
        limit = self.max_episode_steps
        rewards, terminations, truncations = self._rewards, self._terminations, self._truncations
        finished: list[int] = []
        for index, env in enumerate(self.envs):
            if self._autoreset[index]:
                self.start_game(index)
                continue
            reward, illegal = env.advance(actions[index])
            self._record(index, env, illegal)
            self._elapsed[index] += 1
            rewards[index] = reward
            state = env.state
            assert state is not None, "advance() left the new state"
            terminations[index] = state.is_terminal()
            truncations[index] = limit is not None and self._elapsed[index] >= limit
            if terminations[index] or truncations[index]:
                finished.append(index)
        return finished

    def _restart(self, finished: list[int]) -> dict[str, Any]:
        """Same-step autoreset: restart the ``finished`` games, their last step kept in ``info``."""
        if not finished:
            return self._info()
        ended = np.zeros(self.num_envs, dtype=bool)
        ended[finished] = True
        final_info = self._info(ended)
        final_obs = np.full(self.num_envs, None, dtype=object)
        for index in finished:
            final_obs[index] = self._observations[index].copy()
            self.start_game(index, keep_step=True)
        info = self._info()
        info.update(
            final_obs=final_obs, _final_obs=ended, final_info=final_info, _final_info=ended.copy()
        )
        return info

    def last_step(self) -> StepArrays:
        """The batch's arrays, for adapters that build their own step (:mod:`pacman.envs.sb3`)."""
        return StepArrays(
            self._observations,
            self._rewards,
            self._terminations,
            self._truncations,
            self._illegal,
            self._masks,
        )

    @property
    def np_random_seed(self) -> tuple[int, ...]:  # type: ignore[override]
        """Each game's seed, as ``SyncVectorEnv`` gives it: ``(3, 4)`` after ``reset(seed=3)``."""
        return tuple(env.np_random_seed for env in self.envs)

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode is None:
            return None
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()

    def start_game(
        self,
        index: int,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        keep_step: bool = False,
    ) -> dict[str, Any]:
        """Reset game ``index`` into the batch; returns its reset info.

        ``keep_step`` keeps the reward and end flags of the step that just
        ended the game (same-step autoreset reports them with the new start).
        """
        env = self.envs[index]
        env.reset(seed=seed, options=options)
        self._record(index, env, False)
        self._elapsed[index] = 0
        self._autoreset[index] = False
        if not keep_step:
            self._rewards[index] = 0.0
            self._terminations[index] = self._truncations[index] = False
        return env.current_info()

    def _record(self, index: int, env: PacmanEnv, illegal: bool) -> None:
        """Copy game ``index``'s channels, mask and score into the batch."""
        state = env.state
        assert state is not None, "a recorded game was reset"
        self._observations[index] = env.observation_array()
        self._masks[index] = env.legal_mask()
        self._scores[index] = state.get_score()
        self._illegal[index] = illegal

    def _info(self, chosen: np.ndarray | None = None) -> dict[str, Any]:
        """The batched info; after a partial reset only the ``chosen`` games have entries."""
        info: dict[str, np.ndarray] = {
            "action_mask": self._masks,
            "score": self._scores,
            "illegal": self._illegal,
        }
        batched: dict[str, Any] = {}
        for key, values in info.items():
            values = values.copy()
            if chosen is not None and chosen is not self._all:
                values[~chosen] = 0
            batched[key] = values
            batched[f"_{key}"] = self._all.copy() if chosen is None else chosen.copy()
        return batched
