"""Why a tree search went wrong: reference searches with known mistakes, and side-by-side views.

The grader knows the tree, so it can run the search the test expects and a
handful of classic wrong ones (ghosts as MAX, depth counted per move instead of
per round, pruning on equality, expectimax taking the minimum, depth off by
one, chance nodes averaged uniformly where the test gives probabilities, MIN
and chance layers mixed up). When a submission's move and generated states
match one of the wrong ones, the report names that mistake; when they match several
equally, it names them all.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pacman.errors import PacmanError

#: The correct search of each agent kind (on a tree without probabilities or layers).
CORRECT = {
    "MinimaxAgent": ("min", None),
    "AlphaBetaAgent": ("min", "strict"),
    "ExpectimaxAgent": ("avg", None),
    "ExpectiminimaxAgent": ("avg", None),
}


@dataclass(frozen=True)
class Variant:
    """One way to search: what ghosts do, how to prune, how depth counts."""

    description: str
    # "min", "max", "avg" (uniform) or "weighted" (the tree's probabilities)
    ghost: str = "min"
    prune: str | None = None  # None, "strict" or "equal"
    per_move: bool = False  # one unit of depth per agent move instead of per round
    depth_delta: int = 0
    layers: tuple[str, ...] | None = None  # one ghost rule per ghost, instead of ``ghost``

    def rule(self, agent: int) -> str:
        """What ghost ``agent`` (1, 2...) does in this search."""
        return self.layers[agent - 1] if self.layers else self.ghost


def correct_variant(alg: str, tree: Any) -> Variant:
    """The search a test expects of ``alg`` on ``tree`` (its probabilities and layers included)."""
    ghost, prune = CORRECT.get(alg, ("min", None))
    chance = "weighted" if getattr(tree, "probabilities", None) else "avg"
    if alg == "ExpectiminimaxAgent":
        ghosts = tree.num_agents - 1
        layers = getattr(tree, "layers", None) or (("min", "chance") * ghosts)[:ghosts]
        rules = tuple(chance if layer == "chance" else "min" for layer in layers)
        return Variant("correct", chance, None, layers=rules)
    if ghost == "avg":
        ghost = chance
    return Variant("correct", ghost, prune)


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
        rule = "max" if agent == 0 else variant.rule(agent)
        maximise = rule == "max"
        if rule == "weighted":
            weights = state.tree.ghost_model(state, agent)
            actions = [a for a in actions if weights.get(a, 0.0)]
            total = 0.0
            for action in actions:
                child = state.generate_successor(agent, action)
                expansions.append((agent, action, str(state), str(child)))
                total += weights[action] * value(child, following, next_used, alpha, beta)
            return total
        values = []
        best = -math.inf if maximise else math.inf
        for action in actions:
            child = state.generate_successor(agent, action)
            expansions.append((agent, action, str(state), str(child)))
            v = value(child, following, next_used, alpha, beta)
            values.append(v)
            if rule == "avg":
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
        if rule == "avg":
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


def variants_for(alg: str, tree: Any = None) -> list[Variant]:
    """Mistakes worth checking for an agent class name (on ``tree``, when it matters)."""
    right = (
        correct_variant(alg, tree)
        if tree is not None
        else Variant("correct", *CORRECT.get(alg, ("min", None)))
    )
    found = [
        Variant("ghosts treated as MAX (every agent maximising)", "max", right.prune),
        replace(
            right,
            description="depth counted per agent move instead of per round (one unit of depth "
            "is a move by Pac-Man and every ghost)",
            per_move=True,
        ),
        replace(
            right, description="a search one round too shallow (depth off by one)", depth_delta=-1
        ),
        replace(right, description="a search one round too deep (depth off by one)", depth_delta=1),
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
    # Mistakes about chance and layers come first: on such trees ghosts-as-MAX and the like
    # can agree with them by coincidence, and the specific name is the useful one.
    specific: list[Variant] = []
    weighted = right.ghost == "weighted"
    if alg == "ExpectimaxAgent":
        if weighted:
            specific.append(
                Variant(
                    "chance nodes averaged uniformly where the test gives probabilities (a chance "
                    "node is worth the sum of probability times value over its children)",
                    "avg",
                )
            )
        found.append(
            Variant("ghosts taking the minimum (minimax) instead of the average", "min", None)
        )
    if alg == "ExpectiminimaxAgent" and right.layers:
        if weighted:
            specific.append(
                replace(
                    right,
                    description="chance layers averaged uniformly where the test gives "
                    "probabilities (a chance node is worth the sum of probability times value "
                    "over its children)",
                    layers=tuple("avg" if r == "weighted" else r for r in right.layers),
                )
            )
        shown = " ".join("chance" if r != "min" else "min" for r in right.layers)
        chance = "weighted" if weighted else "avg"
        specific += [
            Variant(f"every ghost a MIN layer (minimax), where the layers are {shown}", "min"),
            Variant(
                f"every ghost a chance layer (expectimax), where the layers are {shown}", chance
            ),
            replace(
                right,
                description=f"MIN and chance swapped, where the layers are {shown}",
                layers=tuple(chance if r == "min" else "min" for r in right.layers),
            ),
        ]
        reverse = tuple(reversed(right.layers))
        if reverse != specific[-1].layers:  # with two ghosts, reversing is swapping
            specific.append(
                replace(
                    right,
                    description=f"the layers in reverse order, where they are {shown} from "
                    "ghost 1 on",
                    layers=reverse,
                )
            )
    found = specific + found
    if alg == "MinimaxAgent":
        found += [Variant("ghosts averaging (expectimax) instead of minimising", "avg", None)]
    # A mistake that searches exactly as the right search does cannot be told from it.
    return [v for v in found if replace(v, description="correct") != right]


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
    try:
        _, right = run_variant(start, depth, correct_variant(alg, tree))
        right_generated = generated_names(str(start), right)
    except (_Unscorable, PacmanError, RecursionError):
        right_generated = None
    both: list[str] = []
    states: list[str] = []
    moves: list[str] = []
    for variant in variants_for(alg, tree):
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
    if generated != right_generated:
        # A move alone is weak evidence; it explains the failure only when the states were right.
        moves = []
    for found, (one, several) in zip((both, states, moves), _SENTENCES, strict=True):
        if found:
            return [_naming(found, one, several)]
    return []


#: What the evidence is, for one mistake and for several: the move and the states, the states
#: alone, the move alone.
_SENTENCES = (
    (
        "your move and generated states are exactly those of",
        "your move and generated states fit any of {n} mistakes, each giving exactly them:",
    ),
    (
        "your generated states are exactly those of",
        "your generated states fit any of {n} mistakes, each generating exactly them:",
    ),
    ("your move is the one chosen by", "your move is chosen by any of {n} mistakes:"),
)


def _naming(mistakes: list[str], one: str, several: str) -> str:
    """The diagnosis sentence: the one mistake the evidence fits, or every one it fits equally
    (naming only the first would blame a mistake the student may not have made)."""
    if len(mistakes) == 1:
        return f"Diagnosis: {one} {mistakes[0]}."
    return f"Diagnosis: {several.format(n=len(mistakes))} {'; '.join(mistakes)}."


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


ARGUMENT_HINTS = {
    "ghostModel": (
        "Diagnosis: this test gives the ghosts' moves probabilities, so the agent is built with "
        "ghostModel=model, where model(state, ghostIndex) returns {action: probability}; accept "
        "ghostModel in the agent's __init__ and weigh each chance child by its probability."
    ),
    "layers": (
        'Diagnosis: this test mixes MIN and chance layers, so the agent is built with layers="min,'
        "chance\" (one entry per ghost, in index order); accept layers in the agent's __init__."
    ),
}


def argument_hints(error: str) -> list[str]:
    """The diagnosis for an agent that does not take the arguments a test of chance passes."""
    return [
        hint
        for name, hint in ARGUMENT_HINTS.items()
        if f"unexpected keyword argument '{name}'" in error
    ]
