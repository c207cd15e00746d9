"""Diagnoses name every mistake the evidence fits (a wrong divisor is not ghosts as MAX), and
q7 tells MIN from chance in every order."""

from __future__ import annotations

import itertools
from pathlib import Path

from grading_submissions import ask_tree, mistake_text, student_runtime
from test_grading import CHANCE_STYLE, grade_project_question, last_line

from agents import ExpectiminimaxAgent
from pacman.gametree import GameTree
from pacman.grading import diagnose
from pacman.testfile import parse_test_text, read_test_file

REPO = Path(__file__).resolve().parents[1]
Q7 = REPO / "test_cases" / "q7"

#: The chance_style agent with its layers swapped: a ghost the test makes MIN is a chance layer.
RIGHT_LAYER = 'return self.layers[agentIndex - 1] == "chance"'
SWAPPED_LAYER = 'return self.layers[agentIndex - 1] != "chance"'

SWAPPED = "MIN and chance swapped, where the layers are {}"


def _tests() -> dict[str, tuple[GameTree, str, int]]:
    """Each q7 tree test: its tree, its solution's move and its depth."""
    found = {}
    for path in sorted(Q7.glob("*.test")):
        test = read_test_file(str(path))
        solution = read_test_file(str(path.with_suffix(".solution")))
        found[path.stem] = (
            GameTree.from_fields(test),
            solution["action"].strip(),
            int(test["depth"]),
        )
    return found


def test_q7_catches_every_wrong_layer_in_either_order():
    """Whichever order a test gives its layers in, an agent that makes any ghost the wrong
    kind of layer (the two swapped, every ghost MIN, every ghost chance) fails a test of that
    order; the new test alone catches all three."""
    tests = _tests()
    caught: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for name, (tree, action, depth) in tests.items():
        for layers in itertools.product(("min", "chance"), repeat=2):
            agent = ExpectiminimaxAgent(
                depth=depth, layers=",".join(layers), ghostModel=tree.ghost_model
            )
            if agent.get_action(tree.start) != action:
                caught.setdefault(tree.layers, set()).add(layers)
                if name == "4-every-layer-order":
                    assert layers != tree.layers
        if name == "4-every-layer-order":
            assert tree.layers == ("chance", "min")
    wrong = {("min", "chance"), ("chance", "min"), ("min", "min"), ("chance", "chance")}
    assert caught == {order: wrong - {order} for order in (("min", "chance"), ("chance", "min"))}
    # Before the new test, chance-then-MIN did not catch the swap.
    tree, action, depth = tests["2-chance-then-min"]
    swapped = ExpectiminimaxAgent(depth=depth, layers="min,chance", ghostModel=tree.ghost_model)
    assert swapped.get_action(tree.start) == action


def test_the_new_test_gives_each_wrong_layer_its_own_move():
    tree, action, depth = _tests()["4-every-layer-order"]
    moves = {}
    for variant in diagnose.variants_for("ExpectiminimaxAgent", tree):
        if variant.depth_offset or variant.search.depth_per_agent or variant.search.partial_ply:
            continue  # the tree is one round deep: these score inner states or match the right one
        moves[variant.description.split(",")[0].split(" (")[0]] = diagnose.run_variant(
            tree.start, depth, variant
        )[0]
    assert action == "North"
    assert moves == {
        "chance layers averaged uniformly where the test gives probabilities": "South",
        "every ghost a MIN layer": "South",
        "every ghost a chance layer": "East",
        "MIN and chance swapped": "West",
        "ghosts treated as MAX": "East",
    }


def test_a_swapped_agent_is_told_every_mistake_its_evidence_fits(capsys, monkeypatch, tmp_path):
    text = CHANCE_STYLE.read_text()
    assert text.count(RIGHT_LAYER) == 1
    (tmp_path / "multiAgents.py").write_text(text.replace(RIGHT_LAYER, SWAPPED_LAYER))
    out = grade_project_question(capsys, monkeypatch, tmp_path, "q7")
    assert last_line(out) == "Total: 0/3"
    verdicts = [line for line in out.splitlines() if line.startswith(("*** PASS", "*** FAIL"))]
    assert verdicts == [
        "*** FAIL: test_cases/q7/1-min-then-chance.test",
        "*** PASS: test_cases/q7/2-chance-then-min.test",
        "*** FAIL: test_cases/q7/3-two-rounds.test",
        "*** FAIL: test_cases/q7/4-every-layer-order.test",
    ]
    diagnoses = [line for line in out.splitlines() if "Diagnosis" in line]
    assert diagnoses[0] == (
        "***     Diagnosis: your move and generated states fit any of 4 mistakes, each giving "
        "exactly them: chance layers averaged uniformly where the test gives probabilities (a "
        "chance node is worth the sum of probability times value over its children); every "
        "ghost a chance layer (expectimax), where the layers are min chance; "
        + SWAPPED.format("min chance")
        + "; ghosts treated as MAX (every agent maximising)."
    )
    assert SWAPPED.format("min chance") in diagnoses[1]
    assert diagnoses[2] == (
        "***     Diagnosis: your move and generated states are exactly those of "
        + SWAPPED.format("chance min")
        + "."
    )
    assert len(diagnoses) == 3


def _tree_test(name: str) -> tuple[GameTree, int, str, list[str]]:
    """A suite tree test: its tree, depth, agent and the correct search's generated states."""
    test = read_test_file(str(REPO / "test_cases" / f"{name}.test"))
    tree, depth, alg = GameTree.from_fields(test), int(test["depth"]), test["alg"].strip()
    right = diagnose.run_variant(tree.start, depth, diagnose.correct_variant(alg, tree))[1]
    return tree, depth, alg, diagnose.generated_names(str(tree.start), right)


def test_states_alone_and_a_move_alone_name_every_mistake_they_fit():
    # Every state generated, a wrong move: no pruning and ghosts as MAX both generate them.
    tree, depth, alg, right = _tree_test("q3/1-prune-at-min")
    unpruned = diagnose.generated_names(
        "root", diagnose.run_variant(tree.start, depth, diagnose.Variant("minimax"))[1]
    )
    assert diagnose.diagnose(tree, depth, alg, "Nowhere", unpruned) == [
        "Diagnosis: your generated states fit any of 3 mistakes, each generating exactly them: "
        "ghosts treated as MAX (every agent maximising); minimax without any pruning; "
        "alpha-beta without the root's bound (the root must pass its best value so far to the "
        "next child as alpha)."
    ]
    # The right states and a wrong move that three mistakes choose.
    tree, depth, alg, right = _tree_test("q6/2-zero-probability")
    assert diagnose.diagnose(tree, depth, alg, "Left", right) == [
        "Diagnosis: your move is chosen by any of 3 mistakes: chance nodes averaged uniformly "
        "where the test gives probabilities (a chance node is worth the sum of probability "
        "times value over its children); ghosts treated as MAX (every agent maximising); "
        "ghosts taking the minimum (minimax) instead of the average."
    ]
    # One mistake alone keeps its sentence.
    tree, depth, alg, right = _tree_test("q3/1-prune-at-min")
    assert diagnose.diagnose(tree, depth, alg, "East", right) == [
        "Diagnosis: your move is the one chosen by ghosts treated as MAX (every agent maximising)."
    ]


#: Two ghosts, one round: every ghost's node a plain average (CS188's q4). Left is worth 6,
#: Center 2; dividing by the ghost's index (1, then 2) makes them 3 and 4, as summing (6, 8)
#: and dividing by the number of agents (2/3, 8/9) do, while ghosts as MAX tie them at 6.
DIVIDED_TREE = """\
num_agents: "3"
start_state: "root"
win_states: ""
lose_states: ""
successors: \"\"\"
root Left A1
root Center A2
A1 Center B1
B1 Right C1
A2 Left B2
A2 Center B3
B2 Left C2
B2 Center C3
B3 Left C4
B3 Center C5
\"\"\"
evaluation: \"\"\"
A1 3
B1 1
C1 6
A2 5
B2 5
C2 -1
C3 2
B3 3
C4 6
C5 1
\"\"\"
"""


def test_expectimax_dividing_by_the_ghosts_index_is_not_called_ghosts_as_max(tmp_path):
    test = {**parse_test_text(DIVIDED_TREE), "alg": "ExpectimaxAgent", "depth": "1"}
    path = tmp_path / "multiAgents.py"
    path.write_text(
        mistake_text("chance nodes divided by the ghost's index instead of by the number of moves")
    )
    with student_runtime(path) as runtime:
        action, generated, error = ask_tree(runtime, test)
    tree = GameTree.from_fields(test)
    assert (action, error) == ("Center", None)
    assert diagnose.outcome(tree, 1, diagnose.correct_variant("ExpectimaxAgent", tree)) == (
        "Left",
        generated,
    )
    assert diagnose.diagnose(tree, 1, "ExpectimaxAgent", action, generated) == [
        "Diagnosis: your move and generated states fit any of 3 mistakes, each giving exactly "
        "them: chance nodes summed instead of averaged (a chance node is worth the average of "
        "its children's values); chance nodes divided by the ghost's index instead of by the "
        "number of moves; chance nodes divided by the number of agents instead of by the "
        "number of moves."
    ]
