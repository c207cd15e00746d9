"""A searched tree as text, one node a line, for ``pacman tree --text`` and the tests."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from pacman.view.tree_model import TreeModel, TreeNode


def _format(value: float | None) -> str:
    if value is None:
        return "?"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:g}" if abs(value) < 1e6 else f"{value:.3g}"


def _label(node: TreeNode, describe: Callable[[Any], str]) -> str:
    shape = "leaf" if node.leaf else node.kind.upper()
    parts = [f"#{node.id}", shape]
    if node.state is not None:
        name = describe(node.state)
        if "\n" not in name and len(name) <= 24:
            parts.append(name)
    parts.append(f"= {_format(node.value)}")
    if node.probability is not None:
        parts.append(f"p={node.probability:.3g}")
    if node.visits is not None:
        parts.append(f"n={node.visits}")
    if node.mean is not None:
        parts.append(f"mean={_format(node.mean)}")
    if node.alpha is not None and node.beta is not None and not node.leaf:
        parts.append(f"[a={_format(node.alpha)} b={_format(node.beta)}]")
    if node.terminal:
        parts.append(f"({node.terminal})")
    return " ".join(parts)


def to_text(
    tree: TreeModel, max_ply: int | None = None, describe: Callable[[Any], str] = str
) -> str:
    """The tree for a terminal: one node a line, indented; ``*`` marks the principal variation.

    Below ``max_ply`` a subtree is summed up in one line.
    """
    nodes = tree.nodes
    on_pv = set(tree.pv)
    head = f"{tree.agent_name or 'search'} ({tree.algorithm}"
    if tree.depth is not None:
        head += f", depth {tree.depth}"
    head += f"): {len(nodes)} nodes, {len(nodes) - 1} successor calls"
    if tree.action is not None:
        head += f"; chose {tree.action} = {_format(nodes[0].value)}"
    lines = [head]
    if len(tree.pv) > 1:
        lines.append("principal variation: " + " ".join(nodes[i].action or "" for i in tree.pv[1:]))
    if tree.title:
        lines.insert(0, tree.title)

    def size(node_id: int) -> int:
        count, stack = 0, [node_id]
        while stack:
            current = stack.pop()
            count += 1
            stack.extend(nodes[current].children)
        return count

    def walk(node_id: int, prefix: str, last: bool, top: bool) -> None:
        node = nodes[node_id]
        mark = "*" if node_id in on_pv else " "
        branch = "" if top else ("`-- " if last else "|-- ")
        edge = f"{node.action}: " if node.action is not None else ""
        lines.append(f"{mark} {prefix}{branch}{edge}{_label(node, describe)}")
        inner = prefix if top else prefix + ("    " if last else "|   ")
        if max_ply is not None and node.ply >= max_ply and node.children:
            lines.append(f"  {inner}`-- ... {size(node_id) - 1} nodes below")
            return
        items = list(node.children)
        for position, child in enumerate(items):
            walk(child, inner, position == len(items) - 1 and not node.pruned, False)
        if node.pruned:
            lines.append(f"  {inner}`-X pruned: {', '.join(node.pruned)}")

    import sys

    limit = sys.getrecursionlimit()
    deepest = max(node.ply for node in nodes)
    if deepest + 50 > limit:
        sys.setrecursionlimit(deepest + 100)
    try:
        walk(0, "", True, True)
    finally:
        sys.setrecursionlimit(limit)
    return "\n".join(lines) + "\n"
