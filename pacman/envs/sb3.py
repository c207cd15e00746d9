"""``PacmanSB3VecEnv``: Stable-Baselines3's ``VecEnv`` interface over ``PacmanVectorEnv``.

SB3 cannot take a Gymnasium vector environment; wrapping single environments
in its ``DummyVecEnv`` works but copies observations and info dicts game by
game. This adapter drives the batched in-process ``PacmanVectorEnv`` in its
same-step autoreset mode, which is SB3's convention: a finished game restarts
inside the step that ended it, its last observation in
``infos[i]["terminal_observation"]`` and ``infos[i]["TimeLimit.truncated"]``
set when the time limit, not a win or a loss, ended it. Given the same seeds
and actions it returns what ``DummyVecEnv`` over ``gymnasium.make`` returns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pacman.envs._optional import require
from pacman.envs.registration import MAX_EPISODE_STEPS
from pacman.envs.vector import PacmanVectorEnv

require("stable_baselines3")
from stable_baselines3.common.vec_env import VecEnv  # noqa: E402


class PacmanSB3VecEnv(VecEnv):
    """``num_envs`` Pac-Man games for SB3 (``PPO("MlpPolicy", PacmanSB3VecEnv(...))``).

    Arguments: ``num_envs`` (default 8), ``max_episode_steps`` (default 1000,
    as the registered ids) and every ``PacmanEnv`` argument except
    ``render_mode`` "human" (``observation="features"`` is the one that learns
    fast). ``env_method("action_masks")`` gives each game's mask, which is
    what sb3-contrib's ``MaskablePPO`` asks for.
    """

    def __init__(
        self,
        num_envs: int = 8,
        max_episode_steps: int | None = MAX_EPISODE_STEPS,
        **env_kwargs: Any,
    ) -> None:
        self.vector = PacmanVectorEnv(
            num_envs, max_episode_steps, autoreset_mode="same_step", **env_kwargs
        )
        self.envs = self.vector.envs
        self._actions: Any = None
        super().__init__(
            num_envs, self.vector.single_observation_space, self.vector.single_action_space
        )

    def reset(self) -> np.ndarray:
        for index, (seed, options) in enumerate(zip(self._seeds, self._options, strict=True)):
            self.reset_infos[index] = self.vector.start_game(index, seed, options or None)
        self._reset_seeds()
        self._reset_options()
        return self.vector.last_step().observations.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        vector = self.vector
        finished = vector.play_step(self._actions)
        batch = vector.last_step()
        # Each game's info as PacmanEnv.step gives it (what DummyVecEnv passes on).
        infos = [
            env.current_info(bool(illegal))
            for env, illegal in zip(self.envs, batch.illegal, strict=True)
        ]
        terminations, truncations = batch.terminations, batch.truncations
        for index in finished:
            infos[index]["terminal_observation"] = batch.observations[index].copy()
            self.reset_infos[index] = vector.start_game(index, keep_step=True)
        for index, info in enumerate(infos):
            info["TimeLimit.truncated"] = bool(truncations[index] and not terminations[index])
        return (
            batch.observations.copy(),
            batch.rewards.astype(np.float32),
            terminations | truncations,
            infos,
        )

    def close(self) -> None:
        self.vector.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(env, attr_name) for env in self._targets(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        for env in self._targets(indices):
            setattr(env, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        return [
            getattr(env, method_name)(*method_args, **method_kwargs)
            for env in self._targets(indices)
        ]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._targets(indices)]  # the games are bare PacmanEnvs

    def action_masks(self) -> np.ndarray:
        """Every game's legal actions, ``(num_envs, 5)`` booleans."""
        return self.vector.last_step().masks.astype(bool)

    def _targets(self, indices: Any) -> list[Any]:
        return [self.envs[i] for i in self._get_indices(indices)]
