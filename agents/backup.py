"""How the one search (:mod:`agents.search`) values a node from its children: the back-up by
the node's kind, alpha-beta's window after each child, a ghost model's answer checked.

These are the search's rules. Whatever redraws a search (the tree views,
:mod:`pacman.view.searchtree`) calls them, so a drawn tree's values and windows are the ones
the search computed, to the bit. The search's loops write the back-up and the window out
rather than call them per child (a call there costs the search a few percent);
tests/test_backup.py holds the loops and these functions to the same values and windows.

>>> backed_up(MAX, [3.0, 7.0, 5.0]), backed_up(MIN, [3.0, 7.0, 5.0])
(7.0, 3.0)
>>> backed_up(CHANCE, [3.0, 6.0]), backed_up(CHANCE, [3.0, 6.0], [0.25, 0.75])
(4.5, 5.25)
>>> narrowed(MAX, -math.inf, math.inf, 4.0), narrowed(MIN, 2.0, 9.0, 4.0)
((4.0, inf), (2.0, 4.0))
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from agents.search_config import CHANCE, MAX, MIN
from pacman.errors import AgentError

__all__ = ["backed_up", "checked_weights", "narrowed"]


def backed_up(kind: str, values: Sequence[float], weights: Sequence[float] | None = None) -> float:
    """A node's value from its children's ``values`` (at least one, in the order searched).

    MAX: the largest (the first of the best); MIN: the smallest. CHANCE: with ``weights``
    (the children's probabilities) ``sum(p * value)`` in order, a child of probability 0
    left out; without, the plain mean, summed in order then divided by the number of
    children (CS188's average, to the bit).
    """
    if kind == MAX:
        best = -math.inf
        for value in values:
            if value > best:
                best = value
        return best
    if kind == MIN:
        best = math.inf
        for value in values:
            if value < best:
                best = value
        return best
    if kind != CHANCE:
        raise ValueError(f"backed_up: kind {kind!r} is none of {MAX}, {MIN}, {CHANCE}")
    total = 0.0
    if weights is None:
        for value in values:
            total += value
        return total / len(values)
    for weight, value in zip(weights, values, strict=True):
        if weight:
            total += weight * value
    return total


def narrowed(kind: str, alpha: float, beta: float, value: float) -> tuple[float, float]:
    """The window ``(alpha, beta)`` a node searches its next child with, after a child worth
    ``value``: a MAX node raises alpha to it, a MIN node lowers beta to it, a chance node's
    window stays (alpha-beta prunes MAX and MIN layers only)."""
    if kind == MAX:
        return (value, beta) if value > alpha else (alpha, beta)
    if kind == MIN:
        return (alpha, value) if value < beta else (alpha, beta)
    return alpha, beta


def checked_weights(
    probabilities: Mapping[str, float], actions: Sequence[str], state: object, agent: int
) -> Mapping[str, float]:
    """A ghost model's answer for ``agent`` in ``state``, refused (an AgentError) unless it
    is a distribution over the legal ``actions``."""
    total = 0.0
    for action, p in probabilities.items():
        if action not in actions or not p >= 0:
            raise AgentError(
                f"ghost model: {action!r} with probability {p!r} for agent {agent} in state "
                f"{state} (legal: {', '.join(actions)})"
            )
        total += p
    if abs(total - 1.0) > 1e-6:
        raise AgentError(
            f"ghost model: probabilities for agent {agent} in state {state} sum to {total}, not 1"
        )
    return probabilities
