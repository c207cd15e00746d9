"""The model of a search tree: its nodes, the move chosen, its principal variation, and the
tree as JSON-ready data. What draws a tree (text, HTML) and what builds one from a search
(:mod:`pacman.view.searchtree`) both stand on this module, which knows neither.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class TreeNode:
    """One node of a search tree; ``id`` is its place in expansion order (0: the root)."""

    id: int
    parent: int | None
    action: str | None  # the action from the parent
    agent: int  # the agent to move here
    kind: str  # MAX, MIN or CHANCE
    ply: int
    state: Any = field(default=None, repr=False, compare=False)
    value: float | None = None
    leaf: bool = False  # evaluated by the search
    terminal: str | None = None  # "win" or "lose"
    alpha: float | None = None
    beta: float | None = None
    probability: float | None = None  # of the edge from a chance parent
    visits: int | None = None  # Monte Carlo tree search
    mean: float | None = None
    children: list[int] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)  # legal actions never expanded


@dataclass
class TreeModel:
    """The nodes of one search, the move it chose and its principal variation (node ids)."""

    nodes: list[TreeNode]
    algorithm: str
    agent_name: str
    action: str | None
    num_agents: int
    pv: list[int] = field(default_factory=list)
    title: str = ""
    depth: int | None = None
    #: What the page must say before anything else (an algorithm that is not the agent's).
    note: str = ""

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[TreeNode]:
        return iter(self.nodes)

    @property
    def root(self) -> TreeNode:
        return self.nodes[0]

    def root_values(self) -> dict[str, float | None]:
        """Each root action's value (the last one searched, for a search that deepens)."""
        return {
            self.nodes[child].action or "": self.nodes[child].value for child in self.root.children
        }

    def to_data(self, describe: Callable[[Any], str] = str) -> dict[str, Any]:
        """The tree as JSON-ready data (what the HTML file embeds); infinities as strings.

        A state of several lines (a board) is stored as the lines that differ from its
        parent's, ``"lines": [[index, text], ...]`` and ``"nlines"`` when the count changes:
        a move changes two or three lines of a board, so thousands of states stay small.
        """
        nodes = []
        texts: list[str | None] = []
        for node in self.nodes:
            text = describe(node.state) if node.state is not None else None
            texts.append(text)
            state_fields: dict[str, Any] = {"state": text}
            above = texts[node.parent] if node.parent is not None else None
            if text is not None and above is not None and "\n" in text and "\n" in above:
                mine, theirs = text.split("\n"), above.split("\n")
                changed = [
                    [index, line]
                    for index, line in enumerate(mine)
                    if index >= len(theirs) or theirs[index] != line
                ]
                state_fields = {"lines": changed}
                if len(mine) != len(theirs):
                    state_fields["nlines"] = len(mine)
            entry: dict[str, Any] = {
                "id": node.id,
                "parent": node.parent,
                "action": node.action,
                "agent": node.agent,
                "kind": node.kind,
                "ply": node.ply,
                "value": _number(node.value),
            }
            optional = {
                "leaf": node.leaf or None,
                "terminal": node.terminal,
                "alpha": _number(node.alpha),
                "beta": _number(node.beta),
                "p": node.probability,
                "visits": node.visits,
                "mean": _number(node.mean),
                "pruned": node.pruned or None,
                **state_fields,
            }
            entry.update({key: value for key, value in optional.items() if value is not None})
            nodes.append(entry)
        return {
            "title": self.title,
            "agent": self.agent_name,
            "algorithm": self.algorithm,
            "action": self.action,
            "depth": self.depth,
            "num_agents": self.num_agents,
            "pv": self.pv,
            "nodes": nodes,
            **({"note": self.note} if self.note else {}),
        }


def _number(value: float | None) -> float | str | None:
    if value is None or math.isfinite(value):
        return value
    if math.isnan(value):
        return "nan"
    return "inf" if value > 0 else "-inf"
