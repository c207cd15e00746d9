"""Why a tree search went wrong: reference searches with known mistakes, and side-by-side views.

The grader knows the tree, so it can run the search the test expects and the
classic wrong ones (:func:`variants_for`: ghosts as MAX, all or some, depth
counted per move or off by one or stopped mid-round, pruning on equality or
without the root's bound, expectimax taking the minimum, summing or dividing by
the wrong number, chance nodes averaged uniformly where the test gives
probabilities, MIN and chance layers mixed up). When a submission's move and
generated states match one of the wrong ones, the report names that mistake;
when they match several equally, it names them all.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol, cast

from agents.search_config import (
    CHANCE,
    EXPECTIMAX,
    EXPECTIMINIMAX,
    MAX,
    MIN,
    MINIMAX,
    SearchConfig,
    config_from_test,
)
from pacman.errors import PacmanError
from pacman.recording import ExpansionLog

if TYPE_CHECKING:
    from agents.search_state import SearchState
    from pacman.gametree import GameTree, TreeState


@dataclass(frozen=True)
class Variant:
    """One way to search, named for the diagnosis: a configuration of the one search (its
    variant options included) and how far its depth is from the test's.

    A test gives the depth (:meth:`config` fills it in; ``search.depth`` is a placeholder).
    The mistakes :func:`variants_for` lists on a tree spell out that tree's layers and
    ghost model where they need them.
    """

    description: str
    search: SearchConfig = field(default_factory=SearchConfig)  # plain minimax
    depth_offset: int = 0  # -1: a round too shallow

    def config(self, depth: int) -> SearchConfig:
        """The search this variant makes of a test asking for ``depth``."""
        return replace(self.search, depth=depth + self.depth_offset)

    def searches_like(self, other: Variant) -> bool:
        """Whether the two have the same configuration and depth offset, so search every
        test alike (their descriptions and placeholder depths aside)."""
        return (
            self.depth_offset == other.depth_offset
            and replace(self.search, depth=other.search.depth) == other.search
        )


def correct_variant(alg: str, tree: GameTree) -> Variant:
    """The search a test expects of ``alg`` on ``tree`` (its probabilities and layers
    included), from the configuration every part of the grader builds for a test."""
    config = config_from_test(alg, 1, tree)
    if config.algorithm == EXPECTIMINIMAX:
        # Spelled out, so that a mistake reordering the layers compares with them.
        config = replace(config, layers=config.layers_for(tree.num_agents))
    return Variant("correct", config)


class _Unscorable(Exception):
    pass


class _Scored(Protocol):
    """A state with a value: a tree state, or the recording wrapper around one."""

    def get_score(self) -> float: ...


def _score(state: SearchState) -> float:
    """A tree state's value; a search that asks one that has none cannot be the student's."""
    try:
        return cast("_Scored", state).get_score()
    except PacmanError:
        raise _Unscorable from None


def run_variant(
    start: TreeState, depth: int, variant: Variant
) -> tuple[str | None, list[tuple[int, str, str, str]]]:
    """The action and successor calls of ``variant`` from ``start`` (a game-tree state): the
    one search (:func:`agents.search.search`) with the variant's configuration, watched."""
    if depth + variant.depth_offset < 1:
        raise _Unscorable
    if not start.get_legal_actions(0):
        return None, []
    import agents.search as engine  # (here: a grade imports it only to explain a wrong answer)

    log = ExpansionLog()
    result = engine.search(log.wrap(start), variant.config(depth), _score)
    # No action beats a value of -inf: none is chosen.
    action = None if result.value == -math.inf else result.action
    return action, [(e.agent_index, e.action, str(e.parent), str(e.child)) for e in log.entries]


def variants_for(alg: str, tree: GameTree) -> list[Variant]:
    """The known mistakes worth checking for an agent class name on ``tree``: an open list,
    each a variant of the one search. A generated suite is kept only when each of its
    question's mistakes fails one of its tests."""
    right = correct_variant(alg, tree)
    search = right.search
    ghosts = tree.num_agents - 1
    found = [
        Variant(
            "ghosts treated as MAX (every agent maximising)",
            replace(search, layers=(MAX,) * ghosts),
        ),
        *_mixed_with_max(search, ghosts),
        *_depth_mistakes(search),
    ]
    if alg == "AlphaBetaAgent":
        found += [
            Variant(
                "alpha-beta pruning on equality (it must prune only when a value is strictly "
                "greater than beta, or strictly less than alpha)",
                replace(search, prune_on_equal=True),
            ),
            Variant("minimax without any pruning", replace(search, algorithm=MINIMAX)),
            Variant(
                "alpha-beta without the root's bound (the root must pass its best value so far "
                "to the next child as alpha)",
                replace(search, root_unbounded=True),
            ),
        ]
    # Mistakes about chance and layers come first: on such trees ghosts-as-MAX and the like
    # can agree with them by coincidence, and the specific name is the useful one.
    specific: list[Variant] = []
    if alg == "ExpectimaxAgent":
        if search.weights is not None:
            specific.append(
                Variant(
                    "chance nodes averaged uniformly where the test gives probabilities (a chance "
                    "node is worth the sum of probability times value over its children)",
                    replace(search, ghost_model=None),
                )
            )
        else:
            specific += [
                Variant(text, replace(search, chance_divisor=by)) for by, text in _DIVISORS
            ]
        found.append(
            Variant(
                "ghosts taking the minimum (minimax) instead of the average", SearchConfig(MINIMAX)
            )
        )
    if alg == "ExpectiminimaxAgent" and search.layers:
        specific += _layer_mistakes(search)
    found = specific + found
    if alg == "MinimaxAgent":
        found += [
            Variant("ghosts averaging (expectimax) instead of minimising", SearchConfig(EXPECTIMAX))
        ]
    # A mistake that searches exactly as the right search does cannot be told from it.
    return [v for v in found if not v.searches_like(right)]


#: A plain chance node divided by the wrong number: (the divisor, the mistake).
_DIVISORS = (
    (
        "one",
        "chance nodes summed instead of averaged (a chance node is worth the average of "
        "its children's values)",
    ),
    ("ghost", "chance nodes divided by the ghost's index instead of by the number of moves"),
    ("agents", "chance nodes divided by the number of agents instead of by the number of moves"),
)


def _depth_mistakes(right: SearchConfig) -> list[Variant]:
    """The right search with its depth counted wrong."""
    return [
        Variant(
            "depth counted per agent move instead of per round (one unit of depth is a move by "
            "Pac-Man and every ghost)",
            replace(right, depth_per_agent=True),
        ),
        Variant("a search one round too shallow (depth off by one)", right, depth_offset=-1),
        Variant("a search one round too deep (depth off by one)", right, depth_offset=1),
        Variant(
            "evaluation before the depth limit (the last round stops after Pac-Man's move, "
            "before the ghosts reply)",
            replace(right, partial_ply=True),
        ),
    ]


def _mixed_with_max(right: SearchConfig, ghosts: int) -> list[Variant]:
    """With two ghosts or more, the first ghost searched right and the later ones maximising,
    and the other way round (every ghost maximising is a mistake of its own)."""
    if ghosts < 2 or right.layers is not None:
        return []
    layer = right.layers_for(ghosts + 1)[0]  # every ghost's, the layers not being given
    verb, name = ("minimising", "MIN") if layer == MIN else ("averaging", "chance")
    return [
        Variant(
            f"the first ghost {verb}, later ghosts maximising (every ghost is a {name} layer)",
            replace(right, layers=(layer, *(MAX,) * (ghosts - 1))),
        ),
        Variant(
            f"the first ghost maximising, later ghosts {verb} (every ghost is a {name} layer)",
            replace(right, layers=(MAX, *(layer,) * (ghosts - 1))),
        ),
    ]


def _layer_mistakes(right: SearchConfig) -> list[Variant]:
    """Expectiminimax's mistakes about layers, where ``right`` gives each ghost's."""
    layers = right.layers or ()
    found = []
    if right.weights is not None and CHANCE in layers:
        found.append(
            Variant(
                "chance layers averaged uniformly where the test gives probabilities (a chance "
                "node is worth the sum of probability times value over its children)",
                replace(right, ghost_model=None),
            )
        )
    shown = " ".join(layers)
    swapped = tuple(CHANCE if layer == MIN else MIN for layer in layers)
    found += [
        Variant(
            f"every ghost a MIN layer (minimax), where the layers are {shown}",
            SearchConfig(MINIMAX),
        ),
        Variant(
            f"every ghost a chance layer (expectimax), where the layers are {shown}",
            SearchConfig(EXPECTIMAX, ghost_model=right.ghost_model),
        ),
        Variant(
            f"MIN and chance swapped, where the layers are {shown}",
            replace(right, layers=swapped),
        ),
    ]
    reverse = tuple(reversed(layers))
    if reverse != swapped:  # with two ghosts, reversing is swapping
        found.append(
            Variant(
                f"the layers in reverse order, where they are {shown} from ghost 1 on",
                replace(right, layers=reverse),
            )
        )
    return found


def generated_names(start: str, expansions: Iterable[Sequence[object]]) -> list[str]:
    """CS188's generated set: the start state and every child, sorted."""
    names = {start}
    names.update(str(e[3]) for e in expansions)
    return sorted(names)


def outcome(tree: GameTree, depth: int, variant: Variant) -> tuple[str | None, list[str]] | None:
    """The move and generated states (CS188's sorted names) of ``variant`` on ``tree``;
    ``None`` where it cannot search the tree to the end (a depth below 1, a state without
    a value scored)."""
    try:
        action, expansions = run_variant(tree.start, depth, variant)
    except (_Unscorable, PacmanError, RecursionError):
        return None
    return action, generated_names(str(tree.start), expansions)


def diagnose(
    tree: GameTree, depth: int, alg: str, action: str | None, generated: list[str]
) -> list[str]:
    """Sentences naming the known mistake the submission's results match, if any."""
    right = outcome(tree, depth, correct_variant(alg, tree))
    right_generated = None if right is None else right[1]
    both: list[str] = []
    states: list[str] = []
    moves: list[str] = []
    for variant in variants_for(alg, tree):
        found = outcome(tree, depth, variant)
        if found is None:
            continue
        v_action, v_generated = found
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
    for fitted, (one, several) in zip((both, states, moves), _SENTENCES, strict=True):
        if fitted:
            return [_naming(fitted, one, several)]
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


def unscorable_hints(error: str, tree: GameTree) -> list[str]:
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


def parent_of(tree: GameTree, name: str) -> tuple[str, str] | None:
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
