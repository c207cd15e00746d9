"""CS188's ``game`` names for student code, backed by the project's engine."""

from __future__ import annotations

from typing import Any

from pacman.agent import Agent
from pacman.directions import REVERSE, VECTORS, Directions, vector_to_direction
from pacman.grid import Grid
from pacman.state import AgentState, Configuration

__all__ = ["Actions", "Agent", "AgentState", "Configuration", "Directions", "Grid"]


class Actions:
    """Moves as vectors, and the moves legal from a position (CS188's static helpers)."""

    TOLERANCE = 0.001

    @staticmethod
    def reverseDirection(action: str) -> str:
        return REVERSE.get(action, action)

    @staticmethod
    def vectorToDirection(vector: tuple[float, float]) -> str:
        return vector_to_direction(*vector)

    @staticmethod
    def directionToVector(direction: str, speed: float = 1.0) -> tuple[float, float]:
        dx, dy = VECTORS[direction]
        return (dx * speed, dy * speed)

    @staticmethod
    def getPossibleActions(config: Any, walls: Any) -> list[str]:
        x, y = config.get_position() if hasattr(config, "get_position") else config.getPosition()
        xi, yi = int(x + 0.5), int(y + 0.5)
        if abs(x - xi) + abs(y - yi) > Actions.TOLERANCE:
            direction = (
                config.get_direction()
                if hasattr(config, "get_direction")
                else config.getDirection()
            )
            return [direction]
        found = []
        for direction, (dx, dy) in VECTORS.items():
            if direction == Directions.STOP:
                continue
            if not walls[xi + dx][yi + dy]:
                found.append(direction)
        return found

    @staticmethod
    def getLegalNeighbors(position: tuple[float, float], walls: Any) -> list[tuple[int, int]]:
        x, y = position
        xi, yi = int(x + 0.5), int(y + 0.5)
        found = []
        for dx, dy in VECTORS.values():
            nx, ny = xi + dx, yi + dy
            if 0 <= nx < walls.width and 0 <= ny < walls.height and not walls[nx][ny]:
                found.append((nx, ny))
        return found

    @staticmethod
    def getSuccessor(position: tuple[float, float], action: str) -> tuple[float, float]:
        dx, dy = VECTORS[action]
        x, y = position
        return (x + dx, y + dy)
