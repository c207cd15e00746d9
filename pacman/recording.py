"""Watch a search expand: a state wrapper that logs every successor call.

Hand an agent ``log.wrap(state)`` instead of ``state``. Every
``generate_successor`` call on it, or on any state it returned, in either
spelling and with positional or keyword arguments, appends one
:class:`Expansion` (agent index, action, parent, child) to the
:class:`ExpansionLog` that made the wrapper, and returns a wrapped child. The
log belongs to whoever created it, so two searches never share one by accident.

The wrapper compares and hashes as the state inside it, forwards every other
attribute to it, and so is invisible to the agent. Its camelCase methods come
from the same mixin as ``GameState``'s and call its own snake_case ones, so
``generateSuccessor(agentIndex=1, action="West")`` is logged too. Parents and children are
logged unwrapped.

>>> from pacman.gametree import GameTree
>>> tree = GameTree(2, "root", [("root", "a", "x"), ("x", "b", "y")])
>>> log = ExpansionLog()
>>> state = log.wrap(tree.start)
>>> state.generate_successor(0, "a").generate_successor(agent_index=1, action="b")
RecordingState(TreeState('y'))
>>> [(e.agent_index, e.action, str(e.parent), str(e.child)) for e in log]
[(0, 'a', 'root', 'x'), (1, 'b', 'x', 'y')]
>>> log.generated_names(), log.explored_count()
(['root', 'x', 'y'], 3)

Each wrapped state knows which node of the search it is: a root handed out by
:meth:`ExpansionLog.wrap` is node ``-1``, ``-2``... (first root, second...), and
the child of entry ``i`` is node ``i``. ``log.parents[i]`` is the node whose
successor call made entry ``i``, so the tree the search walked is known even
where equal states appear at several places in it (:mod:`pacman.view.searchtree`).
An evaluation function wrapped by :meth:`ExpansionLog.watch` logs the value it
gives each wrapped node.

>>> log.parents
[-1, 0]
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from pacman.compat import GameStateCamelCase

__all__ = ["Expansion", "ExpansionLog", "RecordingState", "node_of", "unwrap"]


class Expansion(NamedTuple):
    """One successor call: who moved, how, from which state, to which state."""

    agent_index: int
    action: str
    parent: Any
    child: Any


class ExpansionLog:
    """The successor calls made on the states it wrapped, in call order."""

    def __init__(self) -> None:
        self.entries: list[Expansion] = []
        #: For each entry, the node whose successor call made it (see the module's docstring).
        self.parents: list[int] = []
        #: The states handed out by :meth:`wrap` (unwrapped), in order.
        self.roots: list[Any] = []
        #: ``(node, value)`` for each call of a :meth:`watch`-ed evaluation function, in order;
        #: ``node`` is ``None`` for a state that did not come from this log.
        self.evaluations: list[tuple[int | None, float]] = []
        #: ``(node, action, value)`` for each call ``(state, action)``: a reflex agent scoring
        #: the move ``action`` from ``node`` (CS188's ``evaluationFunction(state, action)``).
        self.move_evaluations: list[tuple[int | None, Any, float]] = []
        self._report_at = sys.maxsize  # no reports unless asked for
        self._report_step = 0
        self._report: Callable[[int], None] | None = None

    def report_every(self, step: int, report: Callable[[int], None]) -> None:
        """Call ``report(count)`` each ``step`` successor calls (a progress line, or a limit that
        raises: the exception goes through the search that made the call)."""
        self._report_step, self._report, self._report_at = step, report, step

    def _reached(self) -> None:
        self._report_at += self._report_step
        if self._report is not None:
            self._report(len(self.entries))

    def wrap(self, state: Any) -> RecordingState:
        """``state`` wrapped so that successor calls on it (and its descendants) are logged here."""
        state = unwrap(state)
        self.roots.append(state)
        return RecordingState(state, self, -len(self.roots))

    def watch(self, evaluate: Callable[[Any], float]) -> Callable[[Any], float]:
        """``evaluate``, logging into :attr:`evaluations` the node and value of each call."""
        if getattr(evaluate, "_watched_by", None) is self:
            return evaluate

        def watched(state: Any, *args: Any, **kwargs: Any) -> float:
            value = evaluate(state, *args, **kwargs)
            if not args and not kwargs:
                self.evaluations.append((node_of(state, self), value))
            elif len(args) == 1 and not kwargs:
                # (state, action): a reflex agent scoring a move, not a state.
                self.move_evaluations.append((node_of(state, self), args[0], value))
            return value

        watched._watched_by = self  # type: ignore[attr-defined]
        watched.__wrapped__ = evaluate  # type: ignore[attr-defined]
        return watched

    def clear(self) -> None:
        """Forget every entry, root and evaluation (for example, between two moves of a game)."""
        self.entries.clear()
        self.parents.clear()
        self.roots.clear()
        self.evaluations.clear()
        self.move_evaluations.clear()

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[Expansion]:
        return iter(self.entries)

    def generated(self) -> set[Any]:
        """The wrapped roots and every child returned (CS188's "generated" states)."""
        found = set(self.roots)
        found.update(entry.child for entry in self.entries)
        return found

    def generated_names(self) -> list[str]:
        """``generated()`` as sorted strings: a tree test's ``generated`` field, split."""
        return sorted(str(state) for state in self.generated())

    def explored_count(self) -> int:
        """How many distinct states were the parent or the child of a call (CS188's "explored")."""
        found = {entry.parent for entry in self.entries}
        found.update(entry.child for entry in self.entries)
        return len(found)


def node_of(state: Any, log: ExpansionLog) -> int | None:
    """Which node of ``log``'s search ``state`` is, or ``None`` if it is not one of its wrappers."""
    if isinstance(state, RecordingState) and state._log is log:
        return state._node
    return None


def unwrap(state: Any) -> Any:
    """The state inside any number of :class:`RecordingState` layers."""
    while isinstance(state, RecordingState):
        state = state._state
    return state


class RecordingState(GameStateCamelCase):
    """A state whose successor calls are appended to an :class:`ExpansionLog`."""

    __slots__ = ("_log", "_node", "_state")

    def __init__(self, state: Any, log: ExpansionLog, node: int = -1) -> None:
        self._state = state
        self._log = log
        self._node = node

    @property
    def wrapped(self) -> Any:
        """The state inside."""
        return self._state

    def generate_successor(self, agent_index: int, action: str) -> RecordingState:
        child = self._state.generate_successor(agent_index, action)
        log = self._log
        log.parents.append(self._node)
        log.entries.append(Expansion(agent_index, action, self._state, child))
        if len(log.entries) >= log._report_at:
            log._reached()
        return RecordingState(child, log, len(log.entries) - 1)

    def generate_pacman_successor(self, action: str) -> RecordingState:
        return self.generate_successor(0, action)

    def __getattr__(self, name: str) -> Any:
        # Only reached for names the wrapper lacks. Dunder lookups (copy, pickle) and the slots
        # themselves must not recurse into a half-built wrapper.
        if name.startswith("__") or name in ("_state", "_log", "_node"):
            raise AttributeError(name)
        return getattr(self._state, name)

    def __eq__(self, other: object) -> bool:
        return self._state == unwrap(other)

    def __hash__(self) -> int:
        return hash(self._state)

    def __str__(self) -> str:
        return str(self._state)

    def __repr__(self) -> str:
        return f"RecordingState({self._state!r})"
