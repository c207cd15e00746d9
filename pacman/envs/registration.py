"""The Gymnasium ids of the environments, and registering them (importing pacman.envs does)."""

from __future__ import annotations

#: The id of the default environment (mediumClassic).
DEFAULT_ID = "Pacman-v0"
#: The id of the batched engine's environments (mediumClassic by default).
BATCHED_ID = "PacmanBatched-v0"
#: Pac-Man moves before the registered environments truncate an episode.
MAX_EPISODE_STEPS = 1000
_ENTRY_POINT = "pacman.envs.single:PacmanEnv"
_VECTOR_ENTRY_POINT = "pacman.envs.vector:PacmanVectorEnv"


def env_ids() -> dict[str, str]:
    """Every registered id and its layout."""
    from pacman.layout import layout_names

    ids = {DEFAULT_ID: "mediumClassic"}
    ids.update({f"Pacman-{name}-v0": name for name in layout_names()})
    return ids


def register_envs() -> None:
    """Register every id with Gymnasium (again is a no-op)."""
    from gymnasium.envs.registration import register, registry

    for env_id, layout in env_ids().items():
        if env_id not in registry:
            register(
                id=env_id,
                entry_point=_ENTRY_POINT,
                vector_entry_point=_VECTOR_ENTRY_POINT,
                kwargs={"layout": layout},
                max_episode_steps=MAX_EPISODE_STEPS,
            )
    if BATCHED_ID not in registry:
        register(
            id=BATCHED_ID,
            entry_point="pacman.envs.batched.gymenv:PacmanBatchedEnv",
            vector_entry_point="pacman.envs.batched.gymenv:PacmanBatchedVectorEnv",
            kwargs={"layout": "mediumClassic"},
            max_episode_steps=MAX_EPISODE_STEPS,
        )
