"""The numbers an environment is made with, checked before anything is made: how many games
fit (``num_envs`` against this machine's memory), the ghosts, the reward's scale.

A count that cannot fit (``make_vec(num_envs=2**63)``) is one ``PacmanError`` naming it and the
largest count that could, rather than NumPy's ValueError or a machine swapping for hours.
Each caller gives a lower bound of one game's bytes, so a count that fits is never refused.
"""

from __future__ import annotations

import math
import os

import numpy as np

from pacman.errors import PacmanError


def machine_memory() -> int:
    """The bytes this process may still take: the memory available now (Linux's MemAvailable,
    else the physical memory), or less under a ``ulimit -v``; 1 TiB where nothing says."""
    found = 1 << 40
    try:
        found = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    found = int(line.split()[1]) * 1024
    except (AttributeError, ValueError, OSError):
        pass
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return found
    return found if limit == resource.RLIM_INFINITY else min(found, limit)


def check_count(num_envs: object) -> int:
    """``num_envs`` as an int >= 1, or PacmanError naming it (before a board is even loaded)."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise PacmanError(f"num_envs must be a whole number of games >= 1, not {num_envs!r}")
    return int(num_envs)


def check_num_envs(num_envs: object, bytes_each: int) -> int:
    """``num_envs`` as an int from 1 to what memory holds at ``bytes_each``; else PacmanError."""
    count = check_count(num_envs)
    memory = machine_memory()
    if count * bytes_each > memory:
        raise PacmanError(
            f"num_envs={count}: that many games need at least {_size(count * bytes_each)} of "
            f"memory and {_size(memory)} are free; at most {memory // bytes_each} fit"
        )
    return count


def game_bytes(
    width: int,
    height: int,
    ghosts: int,
    observation: str = "",
    radius: int = 0,
    own_board: bool = False,
) -> int:
    """A lower bound of one batched game's bytes on a ``width`` x ``height`` board.

    Its food and capsule flags, a few words per agent, the grid planes (at least five float32
    per cell) every batched game keeps, and three copies of its ``observation`` (the batched
    array and the space's bounds). Measured with tracemalloc after a step on smallClassic:
    31, 11 and 15 KB a game for grid, features and window; this gives 18, 6 and 10. A game
    on a board of its own (a ``random:`` spec without a seed) with features also keeps that
    board's table of maze distances, two bytes for each pair of cells.
    """
    cells = width * height
    planes = 5 * 4 * cells
    shown = {"grid": planes, "window": 5 * 4 * (2 * radius + 1) ** 2, "features": 200}
    table = 2 * cells * cells if own_board and observation == "features" else 0
    return 2 * cells + 64 + 19 * max(0, ghosts) + planes + 3 * shown.get(observation, 0) + table


def _size(count: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if count < 1024 or unit == "PiB":
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024  # type: ignore[assignment]
    raise AssertionError("unreachable")


def check_ghost_count(num_ghosts: object) -> int | None:
    """``num_ghosts`` as an int >= 0 (None: every ghost of the layout); else PacmanError."""
    if num_ghosts is None:
        return None
    if (
        isinstance(num_ghosts, bool)
        or not isinstance(num_ghosts, (int, np.integer))
        or num_ghosts < 0
    ):
        raise PacmanError(
            f"num_ghosts must be a whole number >= 0 (None: all the layout's), not {num_ghosts!r}"
        )
    return int(num_ghosts)


def check_reward_scale(reward_scale: object) -> float:
    """``reward_scale`` as a finite float (NaN or infinity would make every reward one); else
    PacmanError."""
    try:
        scale = float(reward_scale)  # type: ignore[arg-type]  # (anything: refused below)
    except (TypeError, ValueError):
        scale = math.nan
    if not math.isfinite(scale):
        raise PacmanError(f"reward_scale must be a finite number, not {reward_scale!r}")
    return scale


def check_max_cycles(max_cycles: object) -> int:
    """``max_cycles`` (a PettingZoo env's truncation) as an int >= 1; else PacmanError."""
    if (
        isinstance(max_cycles, bool)
        or not isinstance(max_cycles, (int, np.integer))
        or max_cycles < 1
    ):
        raise PacmanError(f"max_cycles must be a whole number >= 1, not {max_cycles!r}")
    return int(max_cycles)
