"""Successor counts by depth ("perft"): full-width expansion, terminal states not expanded."""

from __future__ import annotations

import pytest

from pacman.layout import load_layout
from pacman.state import GameState


def expand(
    state: GameState, plies: int, agent: int = 0, counts: list[int] | None = None
) -> list[int]:
    """[expanded, generated] of a full-width search of ``plies`` single-agent moves."""
    counts = counts if counts is not None else [0, 0]
    if plies == 0 or state.is_win() or state.is_lose():
        return counts
    counts[0] += 1
    following = (agent + 1) % state.get_num_agents()
    for action in state.get_legal_actions(agent):
        counts[1] += 1
        expand(state.generate_successor(agent, action), plies - 1, following, counts)
    return counts


PERFT = {
    "testClassic": [
        [1, 3],
        [4, 15],
        [16, 59],
        [60, 158],
        [159, 536],
        [537, 1166],
        [1167, 3671],
        [3665, 9164],
    ],
    "trappedClassic": [[1, 3], [4, 9], [10, 15], [14, 27], [24, 37], [33, 46], [38, 61], [47, 70]],
}


@pytest.mark.parametrize("name", sorted(PERFT))
def test_perft_by_depth(name):
    state = GameState.initial(load_layout(name))
    assert [expand(state, plies) for plies in range(1, 9)] == PERFT[name]


def test_full_width_minimax_on_medium_classic_matches_cs188():
    # CS188's figures: depth 2 expands 37 and generates 72; depth 4, 4,393 and 8,361.
    state = GameState.initial(load_layout("mediumClassic"))
    assert expand(state, 2 * 3) == [37, 72]
    assert expand(state, 4 * 3) == [4393, 8361]
