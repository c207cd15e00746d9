"""The ghosts' choices as tables: one row of running sums per legal set (and best set).

A ghost in the object engine builds its distribution, sorts it by action name and walks the
running sums with one draw (``pacman.ghosts.sample``). The sums depend only on which moves are
legal (and, for ``DirectionalGhost``, which of them are best and whether the ghost is scared),
so they are computed once here by the object engine's own functions and looked up per game: a
draw then picks the first move whose running sum reaches it, with the same floats.

Rows hold four sums in name order (East, North, South, West). An illegal move repeats the sum
before it (minus infinity before the first legal one), so "how many sums lie below the draw"
is the index of the move the walk stops at.
"""

from __future__ import annotations

import numpy as np

from pacman.directions import ACTION_ORDER
from pacman.envs.batched.boards import NAME_BIT, NAME_ORDER
from pacman.ghosts import RandomGhost, directional_weights, running_sums

#: ``LEGAL_MOVES[bits]``: the four moves in name order, True where legal.
LEGAL_MOVES = (np.arange(16)[:, None] >> np.arange(4)[None, :]) & 1 == 1


def _legal_names(bits: int) -> list[str]:
    """The legal moves of a bit set, in legal-action order (as ``get_legal_actions`` lists them)."""
    return [a for code, a in enumerate(ACTION_ORDER) if NAME_BIT[code] & bits]


def sums_row(distribution: dict[str, float]) -> list[float]:
    """A distribution's running sums laid out as a table row (name order)."""
    names, sums = running_sums(distribution)
    by_name = dict(zip(names, sums, strict=True))
    row, last = [], -np.inf
    for code in NAME_ORDER:
        last = by_name.get(ACTION_ORDER[code], last)
        row.append(last)
    return row


class _LegalOnly:
    """The one question ``RandomGhost.get_distribution`` asks of a state."""

    def __init__(self, legal: list[str]) -> None:
        self.legal = legal

    def get_legal_actions(self, index: int = 0) -> list[str]:
        return self.legal


def uniform_sums() -> np.ndarray:
    """``(16, 4)``: RandomGhost's running sums for each legal set."""
    table = np.full((16, 4), -np.inf)
    ghost = RandomGhost(1)
    for bits in range(1, 16):
        table[bits] = sums_row(ghost.get_distribution(_LegalOnly(_legal_names(bits))))
    return table


def directional_sums(prob_attack: float, prob_scared_flee: float) -> np.ndarray:
    """``(2, 16, 16, 4)``: DirectionalGhost's sums by (scared, legal set, best set)."""
    table = np.full((2, 16, 16, 4), -np.inf)
    for scared, probability in enumerate((prob_attack, prob_scared_flee)):
        for legal in range(1, 16):
            names = _legal_names(legal)
            for best in range(1, 16):
                if best & ~legal:
                    continue
                weights = directional_weights(names, _legal_names(best), probability)
                table[scared, legal, best] = sums_row(weights)
    return table


def choice_table() -> np.ndarray:
    """``[bits * 5 + below]``: the action code chosen when ``below`` sums lie under the draw.

    ``below`` 4 (a draw above every sum, which CS188's walk fails on) takes the last legal move.
    """
    table = np.zeros(16 * 5, dtype=np.int8)
    for bits in range(1, 16):
        legal = np.flatnonzero(LEGAL_MOVES[bits])
        for below in range(5):
            table[bits * 5 + below] = NAME_ORDER[min(below, legal[-1])]
    return table


def first_legal_table() -> np.ndarray:
    """``[bits]``: the first legal move in legal-action order (what replaces an illegal one)."""
    table = np.full(16, ACTION_ORDER.index("Stop"), dtype=np.int8)
    for bits in range(1, 16):
        table[bits] = ACTION_ORDER.index(_legal_names(bits)[0])
    return table
