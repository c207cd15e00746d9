"""Random game trees (pacman.treegen): every trap holds by construction, whatever the seed."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from pacman.gametree import GameTree
from pacman.treegen import MOVES, TreeSpec, draw_tree

SPECS = {
    "none": TreeSpec((1, 2), "none"),
    "uniform": TreeSpec((1, 2), "uniform"),
    "weighted": TreeSpec((1, 2), "weighted"),
    "mixed": TreeSpec((2, 3), "mixed"),
}


def _trees(spec: TreeSpec, trap: str, count: int = 12):
    rng = random.Random(f"treegen/{spec.chance}/{trap}")
    for index in range(count):
        drawn = draw_tree(rng, spec, ghosts=spec.ghosts[index % len(spec.ghosts)], trap=trap)
        yield drawn, GameTree.from_fields(drawn.fields)


def _plies(tree: GameTree) -> dict[str, int]:
    """Each state's number of moves from the start."""
    found, frontier = {tree.start.name: 0}, [tree.start.name]
    while frontier:
        name = frontier.pop()
        for child in tree.moves.get(name, {}).values():
            found[child] = found[name] + 1
            frontier.append(child)
    return found


def _subtree(tree: GameTree, name: str) -> list[str]:
    found = [name]
    for child in tree.moves.get(name, {}).values():
        found += _subtree(tree, child)
    return found


def test_the_traps_of_each_kind_of_tree():
    assert SPECS["none"].traps() == ("plain", "alpha-equal", "beta-equal", "terminals")
    assert SPECS["uniform"].traps() == ("plain", "terminals")
    assert SPECS["weighted"].traps() == ("plain", "zero-probability", "terminals")
    with pytest.raises(ValueError, match="does not fit"):
        draw_tree(random.Random(0), SPECS["uniform"], ghosts=1, trap="alpha-equal")


@pytest.mark.parametrize("chance", sorted(SPECS))
def test_every_tree_reads_back_and_keeps_cs188s_rules(chance):
    spec = SPECS[chance]
    for trap in spec.traps():
        for drawn, tree in _trees(spec, trap):
            plies = _plies(tree)
            limit = drawn.depth * tree.num_agents
            # Every state but the start has a value, and the start has none.
            assert set(tree.evaluation) == set(plies) - {"root"}
            # Moves named as CS188's trees name them, in order, never Stop; states over have
            # no moves; the first root move never ends the game.
            for name, moves in tree.moves.items():
                assert list(moves) == [m for m in MOVES if m in moves] and "Stop" not in moves
                assert name not in tree.win_states | tree.lose_states
            assert next(iter(tree.moves["root"].values())) in tree.moves
            # States over are above the limit; a subtree below the limit is always there.
            # Every other state above the limit has a move (CS188's trees have no stuck state,
            # and many right agents take the max of no moves there).
            assert all(plies[n] < limit for n in tree.win_states | tree.lose_states)
            over = tree.win_states | tree.lose_states
            assert all(tree.moves.get(n) for n in plies if plies[n] < limit and n not in over)
            if any(plies[n] == limit for n in plies):
                assert max(plies.values()) > limit
            # Exact probabilities summing to 1, on every chance layer of a weighted tree alone.
            for name in tree.moves:
                agent = plies[name] % tree.num_agents
                layer = "max" if agent == 0 else (tree.layers or ("chance",) * agent)[agent - 1]
                if chance == "none":
                    layer = "max" if agent == 0 else "min"
                weighted = layer == "chance" and chance in ("weighted", "mixed")
                assert (name in tree.probabilities) == weighted
                if weighted:
                    given = tree.probabilities[name].values()
                    assert sum(Fraction(p).limit_denominator(100) for p in given) == 1
            assert (tree.layers is not None) == (chance == "mixed")
            if chance == "mixed":
                assert set(tree.layers) == {"min", "chance"}


def test_alpha_and_beta_equal_subtrees_are_flat():
    for _, tree in _trees(SPECS["none"], "alpha-equal"):
        root = list(tree.moves["root"].values())
        second = list(tree.moves[root[1]].values())
        assert len(second) >= 2
        flat = _subtree(tree, root[0]) + _subtree(tree, second[0])
        assert len({tree.evaluation[n] for n in flat}) == 1
        # As in CS188's 6-tied-root, the MIN node meeting alpha ends below it: no root tie.
        (equal,) = {tree.evaluation[n] for n in flat}
        assert max(tree.evaluation[n] for n in _subtree(tree, second[1])) < equal
    for drawn, tree in _trees(SPECS["none"], "beta-equal"):
        assert drawn.depth >= 2
        node = "root"
        for _ in range(tree.num_agents - 1):
            node = next(iter(tree.moves[node].values()))
        below = list(tree.moves[node].values())  # a MIN node whose children are MAX nodes
        assert len(below) >= 2 and len(tree.moves[below[1]]) >= 2
        flat = _subtree(tree, below[0]) + _subtree(tree, next(iter(tree.moves[below[1]].values())))
        assert len({tree.evaluation[n] for n in flat}) == 1


def test_terminals_and_zero_probabilities_are_there_when_asked():
    for _, tree in _trees(SPECS["none"], "terminals"):
        assert tree.win_states | tree.lose_states
    for drawn, tree in _trees(SPECS["mixed"], "zero-probability"):
        plies, limit = _plies(tree), drawn.depth * tree.num_agents
        assert any(
            p == 0 and plies[name] < limit
            for name, given in tree.probabilities.items()
            for p in given.values()
        )


def test_the_same_seed_draws_the_same_tree():
    one = [d.fields for d, _ in _trees(SPECS["mixed"], "plain", 4)]
    two = [d.fields for d, _ in _trees(SPECS["mixed"], "plain", 4)]
    assert one == two
    other = draw_tree(random.Random("other"), SPECS["mixed"], ghosts=2, trap="plain")
    assert other.fields not in one
