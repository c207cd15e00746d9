"""An explicit game tree that speaks the ``GameState`` interface.

CS188's ``GraphGameTreeTest`` describes a small game as text: the number of
agents, a start state, the win and lose states, ``state action next`` lines
(in legal-action order) and ``state value`` lines. :meth:`GameTree.from_fields`
builds the game from those fields; its :class:`TreeState` objects answer the
calls a search agent makes on a real ``GameState``, so the same agents run on
both, and expansion can be watched with :mod:`pacman.recording`.

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

from collections.abc import Iterable, Mapping

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
        self._states: dict[str, TreeState] = {}
        self.start = self.state(start)

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> GameTree:
        """Build the tree from a GraphGameTreeTest's fields (string values; other keys ignored)."""

        def field(key: str, default: str | None = None) -> str:
            value = fields.get(key, default)
            if value is None:
                raise GameTreeError(f"game tree: field {key!r} is missing")
            return value

        def rows(key: str, width: int) -> list[list[str]]:
            found = []
            for number, line in enumerate(field(key, "").splitlines(), start=1):
                words = line.split()
                if not words:
                    continue
                if len(words) != width:
                    raise GameTreeError(
                        f"game tree: field {key!r} line {number}: expected {width} words, got {line.strip()!r}"
                    )
                found.append(words)
            return found

        text = field("num_agents").strip()
        try:
            num_agents = int(text)
        except ValueError:
            raise GameTreeError(f"game tree: num_agents is not a whole number: {text!r}") from None
        evaluation = {}
        for name, value in rows("evaluation", 2):
            try:
                evaluation[name] = float(value)
            except ValueError:
                raise GameTreeError(
                    f"game tree: field 'evaluation': value of {name!r} is not a number: {value!r}"
                ) from None
        return cls(
            num_agents,
            field("start_state").strip(),
            [(parent, action, child) for parent, action, child in rows("successors", 3)],
            field("win_states", "").split(),
            field("lose_states", "").split(),
            evaluation,
        )

    def state(self, name: str) -> TreeState:
        """The (unique) state object called ``name``."""
        found = self._states.get(name)
        if found is None:
            found = self._states[name] = TreeState(self, name)
        return found


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
