"""Why a tree search went wrong: reference searches with known mistakes, and side-by-side views.

The grader knows the tree, so it can run the search the test expects and a
handful of classic wrong ones (ghosts as MAX, depth counted per move instead of
per round, pruning on equality, expectimax taking the minimum, depth off by
one). When a submission's move and generated states match one of the wrong
ones, the report names that mistake.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pacman.errors import PacmanError

#: The correct search of each agent kind.
CORRECT = {
    "MinimaxAgent": ("min", None),
    "AlphaBetaAgent": ("min", "strict"),
    "ExpectimaxAgent": ("avg", None),
}


@dataclass(frozen=True)
class Variant:
    """One way to search: what ghosts do, how to prune, how depth counts."""

    description: str
    ghost: str = "min"  # "min", "max" or "avg"
    prune: str | None = None  # None, "strict" or "equal"
    per_move: bool = False  # one unit of depth per agent move instead of per round
    depth_delta: int = 0


class _Unscorable(Exception):
    pass


def run_variant(
    start: Any, depth: int, variant: Variant
) -> tuple[str | None, list[tuple[int, str, str, str]]]:
    """The action and successor calls of ``variant`` from ``start`` (a game-tree state)."""
    expansions: list[tuple[int, str, str, str]] = []
    agents = start.get_num_agents()
    limit = depth + variant.depth_delta
    if limit < 1:
        raise _Unscorable

    def score(state: Any) -> float:
        try:
            return state.get_score()
        except PacmanError:
            raise _Unscorable from None

    def value(state: Any, agent: int, used: int, alpha: float, beta: float) -> float:
        if used >= limit or state.is_win() or state.is_lose():
            return score(state)
        actions = state.get_legal_actions(agent)
        if not actions:
            return score(state)
        following = (agent + 1) % agents
        next_used = used + 1 if variant.per_move else used + 1 if following == 0 else used
        maximise = agent == 0 or variant.ghost == "max"
        values = []
        best = -math.inf if maximise else math.inf
        for action in actions:
            child = state.generate_successor(agent, action)
            expansions.append((agent, action, str(state), str(child)))
            v = value(child, following, next_used, alpha, beta)
            values.append(v)
            if agent != 0 and variant.ghost == "avg":
                continue
            best = max(best, v) if maximise else min(best, v)
            if variant.prune:
                equal = variant.prune == "equal"
                if maximise:
                    if best > beta or (equal and best == beta):
                        return best
                    alpha = max(alpha, best)
                else:
                    if best < alpha or (equal and best == alpha):
                        return best
                    beta = min(beta, best)
        if agent != 0 and variant.ghost == "avg":
            return sum(values) / len(values)
        return best

    actions = start.get_legal_actions(0)
    best_action, best_value = None, -math.inf
    alpha = -math.inf
    following = 1 % agents
    root_used = 1 if (variant.per_move or following == 0) else 0
    for action in actions:
        child = start.generate_successor(0, action)
        expansions.append((0, action, str(start), str(child)))
        v = value(child, following, root_used, alpha, math.inf)
        if v > best_value:
            best_action, best_value = action, v
        if variant.prune:
            alpha = max(alpha, best_value)
    return best_action, expansions


def variants_for(alg: str) -> list[Variant]:
    """Mistakes worth checking for an agent class name."""
    ghost, prune = CORRECT.get(alg, ("min", None))
    found = [
        Variant("ghosts treated as MAX (every agent maximising)", "max", prune),
        Variant(
            "depth counted per agent move instead of per round (one unit of depth is a move by "
            "Pac-Man and every ghost)",
            ghost,
            prune,
            per_move=True,
        ),
        Variant("a search one round too shallow (depth off by one)", ghost, prune, depth_delta=-1),
        Variant("a search one round too deep (depth off by one)", ghost, prune, depth_delta=1),
    ]
    if alg == "AlphaBetaAgent":
        found += [
            Variant(
                "alpha-beta pruning on equality (it must prune only when a value is strictly "
                "greater than beta, or strictly less than alpha)",
                "min",
                "equal",
            ),
            Variant("minimax without any pruning", "min", None),
        ]
    if alg == "ExpectimaxAgent":
        found += [
            Variant("ghosts taking the minimum (minimax) instead of the average", "min", None),
        ]
    if alg == "MinimaxAgent":
        found += [Variant("ghosts averaging (expectimax) instead of minimising", "avg", None)]
    return found


def generated_names(start: str, expansions: Iterable[Sequence[Any]]) -> list[str]:
    """CS188's generated set: the start state and every child, sorted."""
    names = {start}
    names.update(str(e[3]) for e in expansions)
    return sorted(names)


def diagnose(
    tree: Any, depth: int, alg: str, action: str | None, generated: list[str]
) -> list[str]:
    """Sentences naming the known mistake the submission's results match, if any."""
    start = tree.start
    ghost, prune = CORRECT.get(alg, ("min", None))
    try:
        _, right = run_variant(start, depth, Variant("correct", ghost, prune))
        right_generated = generated_names(str(start), right)
    except (_Unscorable, PacmanError, RecursionError):
        right_generated = None
    both: list[str] = []
    states: list[str] = []
    moves: list[str] = []
    for variant in variants_for(alg):
        try:
            v_action, v_expansions = run_variant(start, depth, variant)
        except (_Unscorable, PacmanError, RecursionError):
            continue
        v_generated = generated_names(str(start), v_expansions)
        same_states = v_generated == generated and v_generated != right_generated
        if v_generated == generated and v_action == action:
            both.append(variant.description)
        elif same_states:
            states.append(variant.description)
        elif v_action == action:
            moves.append(variant.description)
    if both:
        return [f"Diagnosis: your move and generated states are exactly those of {both[0]}."]
    if states:
        return [f"Diagnosis: your generated states are exactly those of {states[0]}."]
    if moves and generated == right_generated:
        # A move alone is weak evidence; it explains the failure only when the expansion was right.
        return [f"Diagnosis: your move is the one chosen by {moves[0]}."]
    return []


UNSCORABLE_HINT = (
    "Diagnosis: your search asked for the score of a state that is neither a win, a loss nor at "
    "the depth limit, so it stopped too early. One unit of depth is a move by Pac-Man and then "
    "by every ghost; the evaluation function is applied only at the depth limit or at a "
    "finished game."
)


ROOT_SCORED_HINT = (
    "Diagnosis: your search scored the start state (the state getAction was given) where it "
    "should have scored the state it reached: at a win, a loss or the depth limit, call the "
    "evaluation function on that state, not on the root."
)


def unscorable_hints(error: str, tree: Any) -> list[str]:
    """The diagnosis for a search that asked for the score of a state that has none."""
    found = re.search(r"state '([^']*)' has no evaluation value", error)
    if found is None:
        return []
    return [ROOT_SCORED_HINT if found.group(1) == tree.start.name else UNSCORABLE_HINT]


def side_by_side(
    left_title: str, left: Sequence[str], right_title: str, right: Sequence[str]
) -> list[str]:
    """Two columns; rows that differ are marked with ``<>``."""
    width = max([len(left_title), *(len(x) for x in left)]) + 2
    lines = [f"   {left_title.ljust(width)}{right_title}"]
    for index in range(max(len(left), len(right))):
        a = left[index] if index < len(left) else "-"
        b = right[index] if index < len(right) else "-"
        mark = "  " if a == b else "<>"
        lines.append(f"{mark} {a.ljust(width)}{b}")
    return lines


def aligned_sets(expected: Sequence[str], actual: Sequence[str]) -> tuple[list[str], list[str]]:
    """Two sorted name lists aligned on their union, with ``-`` where one lacks a name."""
    left, right = [], []
    have_e, have_a = set(expected), set(actual)
    for name in sorted(have_e | have_a):
        left.append(name if name in have_e else "-")
        right.append(name if name in have_a else "-")
    return left, right


def parent_of(tree: Any, name: str) -> tuple[str, str] | None:
    """(parent, action) of a tree state, from the tree's move table."""
    for parent, moves in tree.moves.items():
        for action, child in moves.items():
            if child == name:
                return parent, action
    return None
