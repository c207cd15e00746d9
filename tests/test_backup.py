"""The search's rules (agents.backup): a node's value from its children's, alpha-beta's window,
a ghost model's answer checked; and the search's loops, which write the first two out, held to
them through the tree views, which call them."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import agents
import agents.search as engine
from agents.backup import backed_up, checked_weights, narrowed
from agents.models import directional
from agents.search_config import CHANCE, MAX, MIN, config_from_test
from pacman.errors import AgentError
from pacman.gametree import GameTree
from pacman.layout import load_layout
from pacman.state import GameState
from pacman.testfile import read_test_file
from pacman.view.searchtree import observe

CASES = Path(__file__).resolve().parents[1] / "test_cases"


def test_max_and_min_keep_the_first_of_the_best():
    assert backed_up(MAX, [3.0, 7.0, 5.0, 7.0]) == 7.0
    assert backed_up(MIN, [3.0, 7.0, -2.0]) == -2.0
    # The first of equal values: the sign of a zero tells which one was kept.
    assert math.copysign(1.0, backed_up(MAX, [-0.0, 0.0])) == -1.0
    assert math.copysign(1.0, backed_up(MIN, [0.0, -0.0])) == 1.0


def test_a_chance_node_sums_in_order_then_divides_or_weighs():
    values = [0.1, 0.2, 0.3]
    total = 0.0
    for value in values:
        total += value
    assert backed_up(CHANCE, values) == total / 3  # not sum of value / 3: CS188's bits
    assert backed_up(CHANCE, [3.0, 6.0], [0.25, 0.75]) == 5.25
    # A move of probability 0 is left out, as the search never generates it.
    assert backed_up(CHANCE, [3.0, -math.inf], [1.0, 0.0]) == 3.0
    with pytest.raises(ValueError, match="kind"):
        backed_up("average", [1.0])


def test_the_window_narrows_at_max_and_min_nodes_only():
    assert narrowed(MAX, 2.0, 9.0, 4.0) == (4.0, 9.0)
    assert narrowed(MAX, 5.0, 9.0, 4.0) == (5.0, 9.0)
    assert narrowed(MIN, 2.0, 9.0, 4.0) == (2.0, 4.0)
    assert narrowed(MIN, 2.0, 3.0, 4.0) == (2.0, 3.0)
    assert narrowed(CHANCE, 2.0, 9.0, 4.0) == (2.0, 9.0)


def test_a_ghost_models_answer_must_be_a_distribution_over_legal_moves():
    legal = ["North", "South"]
    assert checked_weights({"North": 0.25, "South": 0.75}, legal, "s", 1) == {
        "North": 0.25,
        "South": 0.75,
    }
    for answer, message in [
        ({"East": 1.0}, "'East' with probability"),
        ({"North": -0.5, "South": 1.5}, "probability -0.5"),
        ({"North": 0.5}, "sum to 0.5"),
    ]:
        with pytest.raises(AgentError, match=message):
            checked_weights(answer, legal, "s", 1)


SEARCHES = [
    ("MinimaxAgent", {"depth": 2}, "minimaxClassic"),
    ("AlphaBetaAgent", {"depth": 3}, "minimaxClassic"),
    ("AlphaBetaAgent", {"depth": 2}, "smallClassic"),
    ("ExpectimaxAgent", {"depth": 2}, "minimaxClassic"),
    ("ExpectimaxAgent", {"depth": 2, "ghostModel": "directional"}, "minimaxClassic"),
    (
        "ExpectiminimaxAgent",
        {"depth": 1, "layers": "min:chance:min", "ghostModel": directional},
        "minimaxClassic",
    ),
]


@pytest.mark.parametrize(("name", "args", "layout"), SEARCHES)
def test_the_tree_backs_values_up_to_the_searchs_own_bits(name, args, layout):
    agent = getattr(agents, name)(**args)
    tree = observe(agent, GameState.initial(load_layout(layout)))
    result = agent.last_result
    assert tree.root_values() == result.values
    assert tree.root.value == result.value


@pytest.mark.parametrize("test", ["q6/1-notes-chance-node", "q7/1-min-then-chance"])
def test_a_tree_tests_weighted_chance_nodes_back_up_as_searched(test):
    fields = read_test_file(str(CASES / f"{test}.test"))
    game = GameTree.from_fields(fields)
    config = config_from_test(fields["alg"], fields["depth"], game)
    agent = getattr(agents, fields["alg"].strip())(**config.agent_args())
    tree = observe(agent, game.start)
    assert tree.root_values() == agent.last_result.values


@pytest.mark.parametrize(("depth", "layout"), [(2, "minimaxClassic"), (2, "smallClassic")])
def test_each_node_is_drawn_with_the_window_the_search_gave_it(monkeypatch, depth, layout):
    # Every node below the root is searched by one of these, right after the successor call
    # that made it: the windows they get, in order, are nodes 1, 2, ...'s.
    windows: list[tuple[float, float]] = []
    for method in ("choose", "average", "at_limit"):
        searched = getattr(engine._Walk, method)

        def watched(walk, s, agent, p, alpha, beta, searched=searched):
            windows.append((alpha, beta))
            return searched(walk, s, agent, p, alpha, beta)

        monkeypatch.setattr(engine._Walk, method, watched)
    tree = observe(agents.AlphaBetaAgent(depth=depth), GameState.initial(load_layout(layout)))
    assert any(node.pruned for node in tree.nodes)  # a search that cut branches
    assert [(node.alpha, node.beta) for node in tree.nodes[1:]] == windows
