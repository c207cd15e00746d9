"""Where a player's keys come from: the open window says it takes them, agents that read keys
(``agents.KeyboardAgent``) ask here, so neither needs the other's module.

A key source has ``take_direction() -> str | None`` (the direction asked for since the last
call) and ``idle(notice)`` (keep the window alive while the game waits for a key).
"""

from __future__ import annotations

from typing import Any

_source: Any = None


def take_keys_from(source: Any) -> None:
    """``source`` (a window) takes the player's keys from now on."""
    global _source
    _source = source


def stop_taking_keys(source: Any) -> None:
    """``source`` closes: no window takes keys (unless another has since)."""
    global _source
    if _source is source:
        _source = None


def key_source() -> Any:
    """The window that takes the player's keys, or None."""
    return _source
