"""What plays: Pac-Man agents and evaluation functions, found by name.

``agents.MinimaxAgent`` (or any public name of the modules below) is looked up
lazily, so ``import agents`` stays cheap and a module whose optional
dependency is missing only fails when something from it is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any

#: The modules searched, in order, for a name asked of this package.
AGENT_MODULES: tuple[str, ...] = (
    "basic",
    "search",
    "evaluation",
    "reflex",
    "anytime",
    "mcts",
    "features",
    "keyboard",
)


def _modules() -> Iterator[ModuleType]:
    """The agent modules in order, each imported only when the search reaches it."""
    for short in AGENT_MODULES:
        try:
            yield importlib.import_module(f"{__name__}.{short}")
        except ModuleNotFoundError as error:
            # A module not written yet is skipped; a missing dependency inside one is not hidden.
            if error.name != f"{__name__}.{short}":
                raise


def __getattr__(name: str) -> Any:
    if name.startswith("_"):
        raise AttributeError(name)
    for module in _modules():
        if name in getattr(module, "__all__", ()):
            return getattr(module, name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


def public_names() -> list[str]:
    """Every name the agent modules export (agents and evaluation functions)."""
    names: list[str] = []
    for module in _modules():
        names.extend(getattr(module, "__all__", ()))
    return names
