"""Gymnasium and PettingZoo environments for Pac-Man.

Importing this package registers the Gymnasium ids (``import pacman`` alone
never imports gymnasium):

- ``Pacman-v0``: mediumClassic;
- ``Pacman-<layout>-v0``: every bundled layout (``Pacman-smallClassic-v0``...);
- ``PacmanBatched-v0``: the batched array engine (``pacman.envs.batched``): ``make_vec``
  steps all its games as arrays; ``layout=`` any layout or ``"random:WxH"`` boards.

``gymnasium.make("pacman.envs:Pacman-v0")`` imports this package itself, so it
works with no prior import; ``layout=`` and the other ``PacmanEnv`` arguments
are accepted by ``gymnasium.make``. The multi-agent game is
``aec_env(layout=...)`` (PettingZoo AEC, agents move in turn) or
``parallel_env(layout=...)`` (PettingZoo parallel, agents choose at once).
``pacman.envs.sb3.PacmanSB3VecEnv`` drives the batched games for
Stable-Baselines3. See docs/envs.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pacman.envs._optional import require
from pacman.envs.registration import (
    BATCHED_ID,
    DEFAULT_ID,
    MAX_EPISODE_STEPS,
    env_ids,
    register_envs,
)

require("numpy")
require("gymnasium")

if TYPE_CHECKING:
    from pacman.envs.aec import PacmanAECEnv
    from pacman.envs.batched.gymenv import PacmanBatchedEnv, PacmanBatchedVectorEnv
    from pacman.envs.batched.zoo import PacmanBatchedParallelEnv
    from pacman.envs.compact import FEATURE_NAMES
    from pacman.envs.parallel import PacmanParallelEnv
    from pacman.envs.single import ACTIONS, PacmanEnv
    from pacman.envs.vector import PacmanVectorEnv

__all__ = [
    "ACTIONS",
    "BATCHED_ID",
    "DEFAULT_ID",
    "FEATURE_NAMES",
    "MAX_EPISODE_STEPS",
    "PacmanAECEnv",
    "PacmanBatchedEnv",
    "PacmanBatchedParallelEnv",
    "PacmanBatchedVectorEnv",
    "PacmanEnv",
    "PacmanParallelEnv",
    "PacmanVectorEnv",
    "aec_env",
    "env_ids",
    "parallel_env",
]


def aec_env(layout: Any = "mediumClassic", **kwargs: Any) -> PacmanAECEnv:
    """The PettingZoo AEC game on ``layout``: agents ``pacman_0``, ``ghost_0``, ..."""
    require("pettingzoo")
    from pacman.envs.aec import PacmanAECEnv

    return PacmanAECEnv(layout=layout, **kwargs)


def parallel_env(layout: Any = "mediumClassic", **kwargs: Any) -> PacmanParallelEnv:
    """The PettingZoo parallel game on ``layout``: every agent names its move at once."""
    require("pettingzoo")
    from pacman.envs.parallel import PacmanParallelEnv

    return PacmanParallelEnv(layout=layout, **kwargs)


_LAZY = {
    "ACTIONS": "pacman.envs.single",
    "FEATURE_NAMES": "pacman.envs.compact",
    "PacmanEnv": "pacman.envs.single",
    "PacmanVectorEnv": "pacman.envs.vector",
    "PacmanAECEnv": "pacman.envs.aec",
    "PacmanParallelEnv": "pacman.envs.parallel",
    "PacmanBatchedEnv": "pacman.envs.batched.gymenv",
    "PacmanBatchedVectorEnv": "pacman.envs.batched.gymenv",
    "PacmanBatchedParallelEnv": "pacman.envs.batched.zoo",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pacman.envs' has no attribute {name!r}")
    if module in ("pacman.envs.aec", "pacman.envs.parallel", "pacman.envs.batched.zoo"):
        require("pettingzoo")
    return getattr(importlib.import_module(module), name)


register_envs()
