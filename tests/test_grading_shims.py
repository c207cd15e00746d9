"""The CS188 stand-ins (util, game), the worker protocol, and the reference searches."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agents.search_config import ALPHABETA, EXPECTIMAX, SearchConfig
from pacman.gametree import GameTree
from pacman.grading import diagnose
from pacman.sandbox import protocol
from pacman.shims import game, util


def test_counter_reads_missing_keys_as_zero():
    counts = util.Counter()
    counts["a"] += 2
    counts["b"] = 5
    counts.incrementAll(["a", "c"], 1)
    assert counts["missing"] == 0
    assert counts.argMax() == "b"
    assert counts.sortedKeys()[:3] == ["b", "a", "c"]
    assert counts.totalCount() == 9
    other = util.Counter({"a": 2, "b": 1})
    assert counts * other == 3 * 2 + 5 * 1
    assert (counts + other)["a"] == 5 and (counts - other)["b"] == 4
    counts.normalize()
    assert counts["b"] == pytest.approx(5 / 9)
    assert util.Counter().argMax() is None


def test_containers_and_helpers():
    stack, queue, heap = util.Stack(), util.Queue(), util.PriorityQueue()
    for item, priority in [("x", 3), ("y", 1), ("z", 2)]:
        stack.push(item)
        queue.push(item)
        heap.push(item, priority)
    assert [stack.pop(), queue.pop(), heap.pop()] == ["z", "x", "y"]
    heap.update("x", 0)
    assert heap.pop() == "x" and not heap.isEmpty()
    assert util.manhattanDistance((1, 2), (4, 0)) == 5
    assert util.nearestPoint((2.5, 3.4)) == (3, 3)
    assert util.lookup("manhattanDistance", vars(util)) is util.manhattanDistance


def test_raise_not_defined_names_the_method():
    def getAction():
        util.raiseNotDefined()

    with pytest.raises(NotImplementedError, match=r"Method not implemented: getAction at line \d+"):
        getAction()


def test_game_names():
    assert game.Directions.NORTH == "North"
    assert game.Directions.REVERSE["West"] == "East"
    assert game.Actions.directionToVector("West", 0.5) == (-0.5, 0)
    assert game.Actions.vectorToDirection((0, -1)) == "South"
    assert game.Actions.reverseDirection("North") == "South"
    assert issubclass(game.Agent, object) and game.Agent.__module__ == "pacman.agent"


def test_protocol_round_trip_and_rejects_garbage():
    read, write = os.pipe()
    try:
        protocol.write_frame(write, {"a": [1, "b"]})
        assert protocol.read_frame(read, deadline=None) == {"a": [1, "b"]}
        os.write(write, (protocol.MAX_FRAME + 1).to_bytes(4, "big"))
        with pytest.raises(protocol.ProtocolError, match="announced"):
            protocol.read_frame(read)
        os.write(write, (3).to_bytes(4, "big") + b"{x}")
        with pytest.raises(protocol.ProtocolError, match="malformed"):
            protocol.read_frame(read)
        import time

        with pytest.raises(protocol.Timeout):
            protocol.read_frame(read, deadline=time.monotonic() + 0.01)
    finally:
        os.close(read)
        os.close(write)


TREE = {
    "num_agents": "2",
    "start_state": "r",
    "successors": "r L a\nr R b\na x A\na y B\nb x C\nb y D",
    "evaluation": "A 3\nB 5\nC 3\nD 9",
}


def test_reference_variants_on_a_small_tree():
    tree = GameTree.from_fields(TREE)
    minimax = diagnose.Variant("minimax")
    action, expansions = diagnose.run_variant(tree.start, 1, minimax)
    assert action == "L"
    assert [e[3] for e in expansions] == ["a", "A", "B", "b", "C", "D"]
    strict = diagnose.Variant("ab", SearchConfig(ALPHABETA))
    equal = diagnose.Variant("ab=", SearchConfig(ALPHABETA, prune_on_equal=True))
    assert [e[3] for e in diagnose.run_variant(tree.start, 1, strict)[1]] == list("aABbCD")
    assert [e[3] for e in diagnose.run_variant(tree.start, 1, equal)[1]] == list("aABbC")
    average = diagnose.Variant("avg", SearchConfig(EXPECTIMAX))
    assert diagnose.run_variant(tree.start, 1, average)[0] == "R"
    assert diagnose.diagnose(tree, 1, "AlphaBetaAgent", "L", ["A", "B", "C", "a", "b", "r"]) == [
        "Diagnosis: your move and generated states are exactly those of alpha-beta pruning on "
        "equality (it must prune only when a value is strictly greater than beta, or strictly "
        "less than alpha)."
    ]


def test_expectiminimax_mistakes_are_named_on_the_suites_mixed_tree():
    from pacman.testfile import read_test_file

    root = Path(__file__).resolve().parents[1]
    tree = GameTree.from_fields(read_test_file(str(root / "test_cases/q7/2-chance-then-min.test")))
    right = diagnose.correct_variant("ExpectiminimaxAgent", tree)
    assert right.search.layers == ("chance", "min") and right.search.weights == tree.ghost_model
    action, expansions = diagnose.run_variant(tree.start, 1, right)
    assert action == "Right" and len(expansions) == 13
    named = {}
    for variant in diagnose.variants_for("ExpectiminimaxAgent", tree):
        try:
            v_action, v_expansions = diagnose.run_variant(tree.start, 1, variant)
        except diagnose._Unscorable:  # a search too shallow scores an inner state
            continue
        generated = diagnose.generated_names("root", v_expansions)
        found = diagnose.diagnose(tree, 1, "ExpectiminimaxAgent", v_action, generated)
        named[variant.description.split(",")[0].split(" (")[0]] = (v_action, found)
    uniform = named["chance layers averaged uniformly where the test gives probabilities"]
    assert uniform[0] == "Left" and "averaged uniformly" in uniform[1][0]
    # Two ghosts: reversing the layers is swapping them, named once.
    assert "MIN and chance swapped" in named
    assert not any(name.startswith("the layers in reverse order") for name in named)
