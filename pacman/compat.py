"""CS188's camelCase spellings of the API, and what keeps the two spellings one method.

``Twinned`` is the base of every class with both spellings (states, grids,
agents, ghosts). When a subclass is made, each method it defines under one
spelling becomes what the other spellings call too, so a CS188 subclass that
overrides ``getDistribution`` is what ``get_distribution`` (and so
``get_action``) reaches, and a PEP 8 override is what CS188 code reaches.

The mixins below name CS188's ``GameState`` and ``AgentState`` methods with
CS188's parameter names; each forwards to its PEP 8 twin, which classes that
define the twin replace by a direct alias. Keyword calls such as
``getLegalActions(agentIndex=1)`` work under either spelling. A test derives
every snake_case name from these, so the two spellings cannot drift apart.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from types import FunctionType, SimpleNamespace
from typing import TYPE_CHECKING, Any

#: CS188 names whose PEP 8 twin is not simply their snake_case spelling.
IRREGULAR_TWINS = {"deepCopy": "copy", "shallowCopy": "copy", "evaluationFunction": "evaluate"}

_CAMEL = re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")


def snake_case(name: str) -> str:
    """``getLegalActions`` -> ``get_legal_actions`` (a snake_case name is returned unchanged)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda match: "_" + match.group(1).lower(), name)


def camel_case(name: str) -> str:
    """``agent_index`` -> ``agentIndex`` (a camelCase name is returned unchanged)."""
    return re.sub(r"_([a-z0-9])", lambda match: match.group(1).upper(), name)


def twin_of(name: str) -> str | None:
    """The PEP 8 twin of a CS188 camelCase method name; ``None`` for any other name."""
    if not _CAMEL.match(name):
        return None
    return IRREGULAR_TWINS.get(name, snake_case(name))


def spelling_groups(cls: type) -> list[frozenset[str]]:
    """The sets of method names of ``cls`` that are spellings of one method.

    Derived from the names themselves: a camelCase method whose twin (see
    :func:`twin_of`) is also a method of the class forms a group with it.
    """
    methods = {
        name
        for klass in cls.__mro__
        if klass is not object
        for name, value in vars(klass).items()
        if isinstance(value, FunctionType)
    }
    groups: dict[str, set[str]] = {}
    for name in methods:
        twin = twin_of(name)
        if twin is not None and twin in methods:
            groups.setdefault(twin, {twin}).add(name)
    return [frozenset(group) for _, group in sorted(groups.items())]


class _Source(str):
    """A default value shown as the name it is bound to, for writing a signature as code."""

    def __repr__(self) -> str:
        return str(self)


def _alias(impl: FunctionType, name: str) -> Callable[..., Any]:
    """``impl`` under another spelling, its parameters respelled the same way.

    It calls ``impl`` itself, not ``self.<name>``, so a ``super()`` call inside an
    override cannot come back to the override. Written out with the exact
    parameters (as ``dataclasses`` writes methods) so the alias costs one plain
    call: CS188 search code calls ``generateSuccessor`` millions of times.
    """
    respell = camel_case if _CAMEL.match(name) else snake_case
    namespace: dict[str, Any] = {"_spelling_impl": impl}
    parameters, passed = [], []
    for position, parameter in enumerate(inspect.signature(impl).parameters.values()):
        spelled = respell(parameter.name)
        default = parameter.default
        if default is not parameter.empty:
            namespace[f"_default_{position}"] = default
            default = _Source(f"_default_{position}")
        parameters.append(
            parameter.replace(name=spelled, default=default, annotation=parameter.empty)
        )
        forms: dict[Any, str] = {
            parameter.VAR_POSITIONAL: f"*{spelled}",
            parameter.KEYWORD_ONLY: f"{parameter.name}={spelled}",
            parameter.VAR_KEYWORD: f"**{spelled}",
        }
        passed.append(forms.get(parameter.kind, spelled))
    declared = inspect.Signature(parameters)
    exec(f"def {name}{declared}:\n    return _spelling_impl({', '.join(passed)})", namespace)
    alias = namespace[name]
    alias.__doc__ = impl.__doc__
    alias.spelling_of = impl
    return alias


def link_spellings(cls: type) -> None:
    """Make every spelling of each method ``cls`` defines reach what ``cls`` defines.

    A class that defines one spelling (``getDistribution``) gets the others
    (``get_distribution``) as aliases of it, so the base class's callers reach the
    override whichever spelling they use. Spellings a class defines separately are
    left alone; spellings it defines as one function (``getX = get_x``) are remade
    as aliases so each keeps its own keyword names.
    """
    own = vars(cls)
    for group in spelling_groups(cls):
        defined = {name: own[name] for name in group if isinstance(own.get(name), FunctionType)}
        if not defined:
            continue  # inherited: the base class has already linked them
        functions = {id(function): function for function in defined.values()}
        if len(functions) == 1:
            (impl,) = functions.values()
            keep = impl.__name__ if impl.__name__ in defined else min(defined)
            missing = group - {keep}
        else:
            # Several spellings written separately: each stays; the rest follow the PEP 8 one.
            keep = next((n for n in sorted(defined) if not _CAMEL.match(n)), min(defined))
            impl = defined[keep]
            missing = group - set(defined)
        for name in missing:
            alias = _alias(impl, name)
            alias.__qualname__ = f"{cls.__qualname__}.{name}"
            alias.__module__ = cls.__module__
            setattr(cls, name, alias)


class Twinned:
    """Base of classes whose methods have a PEP 8 and a CS188 spelling.

    Every subclass is linked by :func:`link_spellings` when it is made, so an
    override under either spelling is what both spellings call.
    """

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        link_spellings(cls)


class GameStateCamelCase(Twinned):
    """CS188's ``GameState`` method names."""

    __slots__ = ()

    if TYPE_CHECKING:  # the PEP 8 methods these forward to, as the state defines them

        @property
        def layout(self) -> Any: ...
        def get_legal_actions(self, agent_index: int = 0) -> list[str]: ...
        def generate_successor(self, agent_index: int, action: str) -> Any: ...
        def generate_pacman_successor(self, action: str) -> Any: ...
        def get_legal_pacman_actions(self) -> list[str]: ...
        def get_num_agents(self) -> int: ...
        def get_pacman_position(self) -> Any: ...
        def get_pacman_state(self) -> Any: ...
        def get_ghost_states(self) -> list[Any]: ...
        def get_ghost_state(self, agent_index: int) -> Any: ...
        def get_ghost_position(self, agent_index: int) -> Any: ...
        def get_ghost_positions(self) -> list[Any]: ...
        def get_food(self) -> Any: ...
        def get_walls(self) -> Any: ...
        def get_capsules(self) -> list[Any]: ...
        def get_num_food(self) -> int: ...
        def has_food(self, x: int, y: int) -> bool: ...
        def has_wall(self, x: int, y: int) -> bool: ...
        def get_score(self) -> float: ...
        def is_win(self) -> bool: ...
        def is_lose(self) -> bool: ...
        def copy(self) -> Any: ...

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

    def getGhostStates(self) -> list[Any]:
        return self.get_ghost_states()

    def getGhostState(self, agentIndex: int) -> Any:
        return self.get_ghost_state(agentIndex)

    def getGhostPosition(self, agentIndex: int) -> Any:
        return self.get_ghost_position(agentIndex)

    def getGhostPositions(self) -> list[Any]:
        return self.get_ghost_positions()

    def getFood(self) -> Any:
        return self.get_food()

    def getWalls(self) -> Any:
        return self.get_walls()

    def getCapsules(self) -> list[Any]:
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


class AgentStateCamelCase(Twinned):
    """CS188's ``AgentState`` names."""

    __slots__ = ()

    if TYPE_CHECKING:  # what these forward to, as the agent state defines it
        scared_timer: int
        is_pacman: bool

        def get_position(self) -> Any: ...
        def get_direction(self) -> str: ...

    def getPosition(self) -> Any:
        return self.get_position()

    def getDirection(self) -> str:
        return self.get_direction()

    @property
    def scaredTimer(self) -> int:
        return self.scared_timer

    @scaredTimer.setter
    def scaredTimer(self, value: int) -> None:
        self.scared_timer = value  # type: ignore[misc]  # the slot is AgentState's, not the mixin's

    @property
    def isPacman(self) -> bool:
        return self.is_pacman
