"""The CS188 spellings: derived mechanically from the PEP 8 ones, keyword calls included."""

from __future__ import annotations

import inspect
import re

import pytest

from pacman.compat import AgentStateCamelCase, GameStateCamelCase
from pacman.layout import load_layout
from pacman.state import AgentState, GameState


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def camel_methods(mixin: type) -> list[str]:
    return [
        name for name, value in vars(mixin).items() if callable(value) and not name.startswith("_")
    ]


CS188_STUDENT_NAMES = {
    "getLegalActions", "generateSuccessor", "generatePacmanSuccessor", "getLegalPacmanActions",
    "getNumAgents", "getPacmanPosition", "getPacmanState", "getGhostStates", "getGhostState",
    "getGhostPosition", "getGhostPositions", "getFood", "getWalls", "getCapsules", "getNumFood",
    "hasFood", "hasWall", "getScore", "isWin", "isLose",
}  # fmt: skip


def test_every_name_a_cs188_student_file_uses_is_there():
    assert set(camel_methods(GameStateCamelCase)) >= CS188_STUDENT_NAMES


@pytest.mark.parametrize(
    ("mixin", "cls"), [(GameStateCamelCase, GameState), (AgentStateCamelCase, AgentState)]
)
def test_each_camel_name_forwards_to_its_snake_twin_with_matching_parameters(mixin, cls):
    for camel in camel_methods(mixin):
        twin = "copy" if camel == "deepCopy" else snake(camel)
        target = getattr(cls, twin, None)
        assert callable(target), f"{camel} has no snake_case twin {twin}"
        camel_params = list(inspect.signature(getattr(mixin, camel)).parameters)
        snake_params = list(inspect.signature(target).parameters)
        assert [snake(p) for p in camel_params] == snake_params, camel
        source = inspect.getsource(getattr(mixin, camel))
        assert f"self.{twin}(" in source, f"{camel} must forward to {twin}"


def test_keyword_calls_with_cs188_parameter_names():
    state = GameState.initial(load_layout("mediumClassic"))
    assert state.getLegalActions(agentIndex=1) == state.get_legal_actions(agent_index=1) == ["East"]
    child = state.generateSuccessor(agentIndex=0, action="West")
    assert child == state.generate_successor(agent_index=0, action="West")
    assert state.getGhostPosition(agentIndex=2) == (11, 5)
    assert state.getGhostState(agentIndex=1).getPosition() == (8, 5)
    assert state.getGhostState(1).scaredTimer == 0 and not state.getGhostState(1).isPacman
    assert state.getPacmanState().configuration.getDirection() == "Stop"
    assert state.getPacmanState().start.getPosition() == (9, 1)
    assert state.hasFood(x=1, y=1) and state.hasWall(x=0, y=0)
    assert state.getFood()[1][1] and state.getWalls().width == 20
    assert state.data.layout.width == 20 and state.data.score == 0.0
