"""An explicit game tree that speaks the ``GameState`` interface.

CS188's ``GraphGameTreeTest`` describes a small game as text: the number of
agents, a start state, the win and lose states, ``state action next`` lines
(in legal-action order) and ``state value`` lines. :meth:`GameTree.from_fields`
builds the game from those fields; its :class:`TreeState` objects answer the
calls a search agent makes on a real ``GameState``, so the same agents run on
both, and expansion can be watched with :mod:`pacman.recording`.

Chance with real probabilities (this project's extension, compatible with
CS188's files): a ``successors`` line may carry a fourth word, the probability
of that move (``a1 North b1 1/2``, or ``0.5``). A state that gives one gives
them for all its moves, and they sum to 1. :meth:`GameTree.ghost_model` reads
them back as a ghost model (``(state, ghost_index) -> {action: probability}``),
uniform for a state that lists none. An optional ``layers`` field (``min
chance``, one word per ghost) says which ghosts are MIN layers and which are
chance layers, for expectiminimax; the tree keeps it in :attr:`GameTree.layers`.

A tree state's score is its evaluation value; asking for the score of a state
that has none is an :class:`~pacman.errors.AgentError` naming the state, because
only a search that scores above its depth limit (or skips a terminal state)
does that.

>>> tree = GameTree.from_fields({
...     "num_agents": "2", "start_state": "root", "win_states": "A", "lose_states": "B",
...     "successors": "root left A\\nroot right B", "evaluation": "A 1\\nB -1"})
>>> root = tree.start
>>> root.get_legal_actions(0)
['left', 'right']
>>> child = root.generate_successor(0, "left")
>>> child, child.is_win(), child.get_score()
(TreeState('A'), True, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from pacman.compat import GameStateCamelCase
from pacman.errors import AgentError, IllegalActionError, PacmanError

__all__ = ["GameTree", "GameTreeError", "TreeState"]


class GameTreeError(PacmanError):
    """A game-tree description is malformed; the message names the field and line."""


class GameTree:
    """A finite game given by its states' names, moves, outcomes and values."""

    def __init__(
        self,
        num_agents: int,
        start: str,
        successors: Iterable[tuple[str, str, str]],
        win_states: Iterable[str] = (),
        lose_states: Iterable[str] = (),
        evaluation: Mapping[str, float] | None = None,
        probabilities: Mapping[tuple[str, str], float] | None = None,
        layers: Sequence[str] | None = None,
    ) -> None:
        if num_agents < 1:
            raise GameTreeError(f"game tree: num_agents must be at least 1, got {num_agents}")
        self.num_agents = num_agents
        self.win_states = frozenset(win_states)
        self.lose_states = frozenset(lose_states)
        self.evaluation: dict[str, float] = dict(evaluation or {})
        # name -> {action: child name}; dicts keep the listed (legal-action) order.
        self.moves: dict[str, dict[str, str]] = {}
        for parent, action, child in successors:
            moves = self.moves.setdefault(parent, {})
            if action in moves:
                raise GameTreeError(f"game tree: state {parent!r} lists action {action!r} twice")
            moves[action] = child
        # name -> {action: probability}, for the states whose moves have probabilities.
        self.probabilities: dict[str, dict[str, float]] = {}
        for (parent, action), p in (probabilities or {}).items():
            if action not in self.moves.get(parent, {}):
                raise GameTreeError(
                    f"game tree: probability given for {parent!r} {action!r}, which is not a move"
                )
            if not 0 <= p <= 1:
                raise GameTreeError(
                    f"game tree: probability of {parent!r} {action!r} is {p}, not between 0 and 1"
                )
            self.probabilities.setdefault(parent, {})[action] = p
        for parent, given in self.probabilities.items():
            missing = [a for a in self.moves[parent] if a not in given]
            if missing:
                raise GameTreeError(
                    f"game tree: state {parent!r} gives probabilities for some moves but not "
                    f"for {', '.join(missing)}"
                )
            # In listed order, so the check does not depend on how the dict was built.
            given = {a: given[a] for a in self.moves[parent]}
            self.probabilities[parent] = given
            if abs(sum(given.values()) - 1.0) > 1e-9:
                raise GameTreeError(
                    f"game tree: the probabilities of state {parent!r} sum to "
                    f"{sum(given.values()):g}, not 1"
                )
        self.layers: tuple[str, ...] | None = None
        if layers is not None:
            found = tuple(layers)
            bad = [word for word in found if word not in ("min", "chance")]
            if bad:
                raise GameTreeError(f"game tree: layers: {bad[0]!r} is neither min nor chance")
            if len(found) != num_agents - 1:
                raise GameTreeError(
                    f"game tree: layers has {len(found)} entries for {num_agents - 1} ghost(s)"
                )
            self.layers = found
        self._states: dict[str, TreeState] = {}
        self.start = self.state(start)

    def ghost_model(self, state: Any, ghost_index: int) -> dict[str, float]:
        """The probabilities of the moves from ``state`` (a tree state, possibly wrapped).

        A ghost model for ``ghostModel=``: the listed probabilities, else uniform.
        """
        name = str(state)
        given = self.probabilities.get(name)
        if given is not None:
            return dict(given)
        actions = list(self.moves.get(name, ()))
        return dict.fromkeys(actions, 1.0 / len(actions)) if actions else {}

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> GameTree:
        """Build the tree from a GraphGameTreeTest's fields (string values; other keys ignored)."""

        def field(key: str, default: str | None = None) -> str:
            value = fields.get(key, default)
            if value is None:
                raise GameTreeError(f"game tree: field {key!r} is missing")
            return value

        def rows(key: str, width: int, optional: int = 0) -> list[tuple[int, list[str]]]:
            found = []
            for number, line in enumerate(field(key, "").splitlines(), start=1):
                words = line.split()
                if not words:
                    continue
                if not width <= len(words) <= width + optional:
                    expected = f"{width} or {width + optional}" if optional else str(width)
                    raise GameTreeError(
                        f"game tree: field {key!r} line {number}: expected {expected} words, got {line.strip()!r}"
                    )
                found.append((number, words))
            return found

        text = field("num_agents").strip()
        try:
            num_agents = int(text)
        except ValueError:
            raise GameTreeError(f"game tree: num_agents is not a whole number: {text!r}") from None
        evaluation = {}
        for _, (name, value) in rows("evaluation", 2):
            try:
                evaluation[name] = float(value)
            except ValueError:
                raise GameTreeError(
                    f"game tree: field 'evaluation': value of {name!r} is not a number: {value!r}"
                ) from None
        successors = []
        probabilities = {}
        for number, words in rows("successors", 3, optional=1):
            successors.append((words[0], words[1], words[2]))
            if len(words) == 4:
                probabilities[words[0], words[1]] = parse_probability(
                    words[3], f"field 'successors' line {number}"
                )
        layers = fields.get("layers")
        return cls(
            num_agents,
            field("start_state").strip(),
            successors,
            field("win_states", "").split(),
            field("lose_states", "").split(),
            evaluation,
            probabilities,
            layers.replace(",", " ").split() if layers is not None else None,
        )

    def state(self, name: str) -> TreeState:
        """The (unique) state object called ``name``."""
        found = self._states.get(name)
        if found is None:
            found = self._states[name] = TreeState(self, name)
        return found


def parse_probability(text: str, where: str) -> float:
    """``"1/3"``, ``"0.5"`` or ``"1"`` as a float; a GameTreeError naming ``where`` otherwise."""
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise GameTreeError(
            f"game tree: {where}: probability {text!r} is not a number or a fraction such as 1/3"
        ) from None
    return float(value)


class TreeState(GameStateCamelCase):
    """One node of a :class:`GameTree`, with the ``GameState`` methods search uses (both spellings)."""

    __slots__ = ("_tree", "name")

    def __init__(self, tree: GameTree, name: str) -> None:
        self._tree = tree
        self.name = name

    @property
    def tree(self) -> GameTree:
        return self._tree

    def get_num_agents(self) -> int:
        return self._tree.num_agents

    def is_win(self) -> bool:
        return self.name in self._tree.win_states

    def is_lose(self) -> bool:
        return self.name in self._tree.lose_states

    def get_legal_actions(self, agent_index: int = 0) -> list[str]:
        """The actions listed for this state, in their listed order (a fresh list)."""
        if self.is_win() or self.is_lose():
            return []
        return list(self._tree.moves.get(self.name, ()))

    def get_legal_pacman_actions(self) -> list[str]:
        return self.get_legal_actions(0)

    def generate_successor(self, agent_index: int, action: str) -> TreeState:
        if self.is_win() or self.is_lose():
            raise IllegalActionError(
                f"game tree: state {self.name!r} is finished; it has no successor ({action!r} by agent {agent_index})"
            )
        child = self._tree.moves.get(self.name, {}).get(action)
        if child is None:
            raise IllegalActionError(
                f"game tree: action {action!r} by agent {agent_index} is not legal in state {self.name!r}"
            )
        return self._tree.state(child)

    def generate_pacman_successor(self, action: str) -> TreeState:
        return self.generate_successor(0, action)

    def get_score(self) -> float:
        """The state's evaluation value; an error for a state that has none."""
        value = self._tree.evaluation.get(self.name)
        if value is None:
            raise AgentError(
                f"game tree: state {self.name!r} has no evaluation value; only states at the "
                "depth limit and terminal states are scored"
            )
        return value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TreeState):
            return NotImplemented
        return self._tree is other._tree and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __lt__(self, other: TreeState) -> bool:
        # Lets a set of states be sorted, as CS188's "generated" field is.
        return self.name < other.name

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"TreeState({self.name!r})"
