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


class DirectionKeys:
    """The direction keys of one window: those pressed since the last turn, and those held down.

    A turn takes the key pressed last since the previous turn (so a tap between two frames is
    not lost), else the one held down last (so holding a key keeps Pac-Man going).
    """

    def __init__(self) -> None:
        self._held: list[str] = []  # oldest first
        self._pressed: list[str] = []

    def press(self, direction: str) -> None:
        if direction in self._held:
            self._held.remove(direction)
        self._held.append(direction)
        self._pressed.append(direction)

    def release(self, direction: str | None) -> None:
        if direction in self._held:
            self._held.remove(direction)

    def release_all(self) -> None:
        self._held.clear()

    def take(self) -> str | None:
        if self._pressed:
            direction = self._pressed[-1]
            self._pressed.clear()
            return direction
        return self._held[-1] if self._held else None


FASTEST_FRAME = 0.01  # a frame time below this becomes 0 (no animation)
SLOWEST_FRAME = 2.0


def faster(frame_time: float) -> float:
    """The frame time after one press of the speed-up key: half, and 0 once below the fastest."""
    return 0.0 if frame_time / 2 < FASTEST_FRAME else frame_time / 2


def slower(frame_time: float) -> float:
    """The frame time after one press of the slow-down key: double, within the bounds."""
    return min(SLOWEST_FRAME, max(FASTEST_FRAME, frame_time * 2))
