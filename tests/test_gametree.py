"""The explicit game tree: built from a GraphGameTreeTest's fields, it behaves as a GameState."""

from __future__ import annotations

import pytest

from pacman.errors import AgentError, IllegalActionError, PacmanError
from pacman.gametree import GameTree, GameTreeError, TreeState

FIELDS = {
    "num_agents": "2",
    "start_state": "root",
    "win_states": "A C",
    "lose_states": "B D",
    "successors": "root pacLeft minLeft\nroot pacRight minRight\nminLeft gLeft A\nminLeft gRight B\n"
    "minRight gLeft C\nminRight gRight deeper\ndeeper pacLeft D\n",
    "evaluation": "A 4.0\nB 3.0\nC 2.0\nD 1000.0\n",
    "alg": "MinimaxAgent",  # other fields of a test are ignored
}


@pytest.fixture
def tree() -> GameTree:
    return GameTree.from_fields(FIELDS)


def test_states_answer_the_game_state_questions(tree):
    root = tree.start
    assert isinstance(root, TreeState)
    assert str(root) == "root" and repr(root) == "TreeState('root')"
    assert root.get_num_agents() == root.getNumAgents() == 2
    assert root.get_legal_actions(0) == ["pacLeft", "pacRight"]
    assert root.getLegalActions(agentIndex=0) == ["pacLeft", "pacRight"]
    assert root.get_legal_pacman_actions() == ["pacLeft", "pacRight"]
    left = root.generate_successor(0, "pacLeft")
    assert left is tree.state("minLeft")
    assert root.generateSuccessor(agentIndex=0, action="pacRight") == tree.state("minRight")
    assert root.generatePacmanSuccessor("pacLeft") is left
    a = left.generate_successor(1, "gLeft")
    assert (a.is_win(), a.is_lose(), a.isWin(), a.isLose()) == (True, False, True, False)
    b = left.generate_successor(1, "gRight")
    assert (b.is_win(), b.is_lose()) == (False, True)
    assert a.get_score() == a.getScore() == 4.0
    assert not root.is_win() and not root.is_lose()


def test_legal_actions_are_a_fresh_list(tree):
    actions = tree.start.get_legal_actions()
    actions.append("junk")
    assert tree.start.get_legal_actions() == ["pacLeft", "pacRight"]


def test_terminal_states_have_no_actions_and_no_successors(tree):
    a = tree.state("A")
    assert a.get_legal_actions(0) == []
    with pytest.raises(IllegalActionError, match="'A' is finished"):
        a.generate_successor(0, "pacLeft")


def test_an_illegal_action_names_state_and_action(tree):
    with pytest.raises(IllegalActionError, match="'pacUp' by agent 0 is not legal in state 'root'"):
        tree.start.generate_successor(0, "pacUp")


def test_scoring_a_state_without_a_value_names_it(tree):
    with pytest.raises(AgentError, match="state 'minLeft' has no evaluation value"):
        tree.state("minLeft").get_score()


def test_equality_and_hash_follow_the_name_within_one_tree(tree):
    other = GameTree.from_fields(FIELDS)
    assert tree.state("A") == tree.start.generate_successor(0, "pacLeft").generate_successor(
        1, "gLeft"
    )
    assert tree.state("A") != other.state("A")  # another game
    assert len({tree.state("A"), tree.state("A"), tree.state("B")}) == 2
    assert sorted([tree.state("deeper"), tree.state("A"), tree.state("root")]) == [
        tree.state("A"),
        tree.state("deeper"),
        tree.state("root"),
    ]


def test_a_state_without_successors_that_is_not_terminal_has_no_actions(tree):
    assert tree.state("nowhere").get_legal_actions() == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"num_agents": "two"}, "num_agents is not a whole number: 'two'"),
        ({"num_agents": "0"}, "num_agents must be at least 1"),
        (
            {"successors": "root left"},
            "field 'successors' line 1: expected 3 or 4 words, got 'root left'",
        ),
        (
            {"successors": "root left A 1/2 x"},
            "field 'successors' line 1: expected 3 or 4 words",
        ),
        (
            {"successors": "root left A half\nroot right B 1/2"},
            "field 'successors' line 1: probability 'half' is not a number or a fraction",
        ),
        (
            {"successors": "root left A 1/2\nroot right B"},
            "state 'root' gives probabilities for some moves but not for right",
        ),
        (
            {"successors": "root left A 1/2\nroot right B 1/3"},
            "the probabilities of state 'root' sum to 0.833333, not 1",
        ),
        (
            {"successors": "root left A 3/2\nroot right B -1/2"},
            "probability of 'root' 'left' is 1.5, not between 0 and 1",
        ),
        ({"layers": "min max"}, "layers: 'max' is neither min nor chance"),
        ({"layers": "min chance"}, "layers has 2 entries for 1 ghost"),
        ({"evaluation": "A 1\nB x"}, "value of 'B' is not a number: 'x'"),
        ({"evaluation": "A 1 2"}, "field 'evaluation' line 1: expected 2 words"),
        ({"successors": "root a x\nroot a y"}, "state 'root' lists action 'a' twice"),
    ],
)
def test_malformed_fields_are_named(change, message):
    with pytest.raises(GameTreeError, match=message) as raised:
        GameTree.from_fields({**FIELDS, **change})
    assert isinstance(raised.value, PacmanError)


def test_missing_required_field_is_named():
    fields = dict(FIELDS)
    del fields["start_state"]
    with pytest.raises(GameTreeError, match="field 'start_state' is missing"):
        GameTree.from_fields(fields)


def test_win_and_lose_fields_may_be_absent():
    tree = GameTree.from_fields({"num_agents": "1", "start_state": "s", "successors": "s a t"})
    assert tree.start.get_legal_actions() == ["a"]
    assert not tree.state("t").is_win() and not tree.state("t").is_lose()
