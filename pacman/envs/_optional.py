"""Optional packages, imported on use with a one-line install hint when missing."""

from __future__ import annotations

import importlib
from types import ModuleType

from pacman.errors import PacmanError
from pacman.extras import install_hint

_EXTRA = {
    "gymnasium": "gym",
    "numpy": "gym",
    "pettingzoo": "pettingzoo",
    "pygame": "pygame",
    "stable_baselines3": "learn",
    "sb3_contrib": "learn",
    "torch": "learn",
}


def require(module: str) -> ModuleType:
    """Import ``module`` or raise ``PacmanError`` saying which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.partition(".")[0]
        extra = _EXTRA.get(top, "all")
        raise PacmanError(
            f"{top} is not installed; install it with: {install_hint(extra)}"
        ) from None
