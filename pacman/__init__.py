"""A fast, exact Pac-Man multi-agent game for adversarial search.

``import pacman`` is cheap and needs only the standard library; the names
below load on first use. CS188 student files do ``from pacman import
GameState``, which this keeps working.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "GameState": "pacman.state",
    "AgentState": "pacman.state",
    "Layout": "pacman.layout",
    "load_layout": "pacman.layout",
    "parse_layout": "pacman.layout",
    "Grid": "pacman.grid",
    "Directions": "pacman.directions",
    "Agent": "pacman.agent",
    "RandomGhost": "pacman.ghosts",
    "DirectionalGhost": "pacman.ghosts",
    "Game": "pacman.game",
    "GameResult": "pacman.game",
    "run_game": "pacman.game",
    "PacmanError": "pacman.errors",
    "LayoutError": "pacman.errors",
    "IllegalActionError": "pacman.errors",
    "AgentError": "pacman.errors",
    # Notebooks: plays a game in the output (pacman.view.notebook, loaded on first use).
    "show": "pacman.view.notebook",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pacman' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
