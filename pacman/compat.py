"""CS188's camelCase spellings of the API, as forwarding methods.

Each name here is the camelCase form of a PEP 8 method and does nothing but
call it, keeping CS188's parameter names so keyword calls such as
``getLegalActions(agentIndex=1)`` work. A test derives every snake_case name
from these, so the two spellings cannot drift apart.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class GameStateCamelCase:
    """CS188's ``GameState`` method names."""

    __slots__ = ()

    def getLegalActions(self, agentIndex: int = 0) -> list[str]:
        return self.get_legal_actions(agentIndex)

    def generateSuccessor(self, agentIndex: int, action: str) -> Any:
        return self.generate_successor(agentIndex, action)

    def generatePacmanSuccessor(self, action: str) -> Any:
        return self.generate_pacman_successor(action)

    def getLegalPacmanActions(self) -> list[str]:
        return self.get_legal_pacman_actions()

    def getNumAgents(self) -> int:
        return self.get_num_agents()

    def getPacmanPosition(self) -> Any:
        return self.get_pacman_position()

    def getPacmanState(self) -> Any:
        return self.get_pacman_state()

    def getGhostStates(self) -> list:
        return self.get_ghost_states()

    def getGhostState(self, agentIndex: int) -> Any:
        return self.get_ghost_state(agentIndex)

    def getGhostPosition(self, agentIndex: int) -> Any:
        return self.get_ghost_position(agentIndex)

    def getGhostPositions(self) -> list:
        return self.get_ghost_positions()

    def getFood(self) -> Any:
        return self.get_food()

    def getWalls(self) -> Any:
        return self.get_walls()

    def getCapsules(self) -> list:
        return self.get_capsules()

    def getNumFood(self) -> int:
        return self.get_num_food()

    def hasFood(self, x: int, y: int) -> bool:
        return self.has_food(x, y)

    def hasWall(self, x: int, y: int) -> bool:
        return self.has_wall(x, y)

    def getScore(self) -> float:
        return self.get_score()

    def isWin(self) -> bool:
        return self.is_win()

    def isLose(self) -> bool:
        return self.is_lose()

    def deepCopy(self) -> Any:
        return self.copy()

    @property
    def data(self) -> SimpleNamespace:
        """A read-only look at CS188's ``state.data`` fields, for student code that reaches into it."""
        return SimpleNamespace(
            layout=self.layout,
            food=self.get_food(),
            capsules=self.get_capsules(),
            agentStates=[self.get_pacman_state(), *self.get_ghost_states()],
            score=self.get_score(),
            _win=self.is_win(),
            _lose=self.is_lose(),
        )


class AgentStateCamelCase:
    """CS188's ``AgentState`` names."""

    __slots__ = ()

    def getPosition(self) -> Any:
        return self.get_position()

    def getDirection(self) -> str:
        return self.get_direction()

    @property
    def scaredTimer(self) -> int:
        return self.scared_timer

    @scaredTimer.setter
    def scaredTimer(self, value: int) -> None:
        self.scared_timer = value

    @property
    def isPacman(self) -> bool:
        return self.is_pacman
