"""``PacmanVectorEnv``: many ``PacmanEnv`` games stepped in one process into one batch.

``gymnasium.make_vec("pacman.envs:Pacman-v0", num_envs=8)`` (the default
``vectorization_mode``) builds this; ``"sync"`` and ``"async"`` build
Gymnasium's own wrappers around ``PacmanEnv`` instead. Given the same seeds and
actions it returns exactly what ``SyncVectorEnv`` returns (next-step autoreset,
the time limit of the registration, the same ``info`` keys), but writes each
game's channels straight into the batch instead of copying observations and
merging info dicts one game at a time.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from pacman.envs.single import PacmanEnv
from pacman.errors import PacmanError

try:
    from gymnasium.vector import AutoresetMode

    _AUTORESET: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}
except ImportError:  # gymnasium 1.0 has next-step autoreset only, and no name for it
    _AUTORESET = {}


class PacmanVectorEnv(VectorEnv):
    """``num_envs`` Pac-Man games with grid observations, batched; next-step autoreset.

    Arguments: ``num_envs``, ``max_episode_steps`` (``None``: no time limit;
    the registered ids pass 1000), ``render_mode`` (``None``, ``"rgb_array"``
    or ``"ansi"``: ``render()`` returns one frame per game) and every
    ``PacmanEnv`` argument except ``observation`` (always the grid).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["rgb_array", "ansi"],
        "render_fps": 10,
        **_AUTORESET,
    }

    def __init__(
        self,
        num_envs: int = 1,
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        **env_kwargs: Any,
    ) -> None:
        if env_kwargs.get("observation", "grid") != "grid":
            raise PacmanError("the vector environment has grid observations only")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = ", ".join(self.metadata["render_modes"])
            raise PacmanError(
                f"vector render_mode must be None or one of {modes}, not {render_mode!r}"
            )
        if num_envs < 1:
            raise PacmanError(f"num_envs must be at least 1, not {num_envs}")
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

        self._observations = np.zeros(self.observation_space.shape, dtype=np.float32)
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
        for index, (env, game_seed) in enumerate(zip(self.envs, seeds, strict=True)):
            if not chosen[index]:
                continue
            env.reset(seed=game_seed, options=options)
            self._record(index, env, False)
            self._elapsed[index] = 0
            self._rewards[index] = 0.0
            self._terminations[index] = self._truncations[index] = False
            self._autoreset[index] = False
        return self._observations.copy(), self._info(chosen)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions).tolist()
        if len(actions) != self.num_envs:
            raise PacmanError(f"step got {len(actions)} actions for {self.num_envs} environments")
        limit = self.max_episode_steps
        rewards, terminations, truncations = self._rewards, self._terminations, self._truncations
        for index, env in enumerate(self.envs):
            if self._autoreset[index]:
                env.reset()
                self._record(index, env, False)
                self._elapsed[index] = 0
                rewards[index] = 0.0
                terminations[index] = truncations[index] = False
                continue
            reward, illegal = env._advance(actions[index])
            self._record(index, env, illegal)
            self._elapsed[index] += 1
            rewards[index] = reward
            terminations[index] = env.state.is_terminal()
            truncations[index] = limit is not None and self._elapsed[index] >= limit
        np.logical_or(terminations, truncations, out=self._autoreset)
        return (
            self._observations.copy(),
            rewards.copy(),
            terminations.copy(),
            truncations.copy(),
            self._info(),
        )

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode is None:
            return None
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()

    def _record(self, index: int, env: PacmanEnv, illegal: bool) -> None:
        """Copy game ``index``'s channels, mask and score into the batch."""
        state = env.state
        self._observations[index] = env._encoder.array
        self._masks[index] = env._legal(state)[1]
        self._scores[index] = state.get_score()
        self._illegal[index] = illegal

    def _info(self, chosen: np.ndarray | None = None) -> dict[str, Any]:
        """The batched info; after a partial reset only the ``chosen`` games have entries."""
        info = {"action_mask": self._masks, "score": self._scores, "illegal": self._illegal}
        batched: dict[str, Any] = {}
        for key, values in info.items():
            values = values.copy()
            if chosen is not None and chosen is not self._all:
                values[~chosen] = 0
            batched[key] = values
            batched[f"_{key}"] = self._all.copy() if chosen is None else chosen.copy()
        return batched
