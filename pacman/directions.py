"""The five actions and the geometry that goes with them.

Actions are plain strings, exactly CS188's (``"North"``, ``"Stop"``...), so
student code that compares against literals keeps working.
"""

from __future__ import annotations

NORTH = "North"
SOUTH = "South"
EAST = "East"
WEST = "West"
STOP = "Stop"

#: Legal actions are always listed in this order (CS188's order).
ACTION_ORDER: tuple[str, ...] = (WEST, STOP, EAST, NORTH, SOUTH)

#: Unit vector of each action, as (dx, dy) with y growing upward.
VECTORS: dict[str, tuple[int, int]] = {
    WEST: (-1, 0),
    STOP: (0, 0),
    EAST: (1, 0),
    NORTH: (0, 1),
    SOUTH: (0, -1),
}

REVERSE: dict[str, str] = {NORTH: SOUTH, SOUTH: NORTH, EAST: WEST, WEST: EAST, STOP: STOP}
LEFT: dict[str, str] = {NORTH: WEST, SOUTH: EAST, EAST: NORTH, WEST: SOUTH, STOP: STOP}
RIGHT: dict[str, str] = {value: key for key, value in LEFT.items()}


class Directions:
    """CS188's ``game.Directions`` namespace."""

    NORTH = NORTH
    SOUTH = SOUTH
    EAST = EAST
    WEST = WEST
    STOP = STOP
    LEFT = LEFT
    RIGHT = RIGHT
    REVERSE = REVERSE


def vector_to_direction(dx: float, dy: float) -> str:
    """The direction of a move vector; the null vector is ``Stop``."""
    if dy > 0:
        return NORTH
    if dy < 0:
        return SOUTH
    if dx < 0:
        return WEST
    if dx > 0:
        return EAST
    return STOP
