"""The recording wrapper sees every successor call, whatever the spelling."""

from __future__ import annotations

import copy
import pickle

import pytest

from pacman.gametree import GameTree
from pacman.recording import Expansion, ExpansionLog, RecordingState, unwrap

SUCCESSORS = [
    ("root", "left", "m1"),
    ("root", "right", "m2"),
    ("m1", "down", "A"),
    ("m2", "down", "B"),
    ("m2", "up", "C"),
]


@pytest.fixture
def tree() -> GameTree:
    return GameTree(2, "root", SUCCESSORS, win_states="ABC", evaluation={"A": 1, "B": 2, "C": 3})


def logged(log: ExpansionLog) -> list[tuple[int, str, str, str]]:
    return [(e.agent_index, e.action, str(e.parent), str(e.child)) for e in log]


def test_every_spelling_and_keyword_form_is_logged_in_order(tree):
    log = ExpansionLog()
    root = log.wrap(tree.start)
    m1 = root.generate_successor(0, "left")
    m2 = root.generateSuccessor(agentIndex=0, action="right")
    m2.generate_successor(agent_index=1, action="down")
    m2.generateSuccessor(1, "up")
    m1.generatePacmanSuccessor("down")  # not a legal move order, but the wrapper only records
    root.generate_pacman_successor(action="left")
    assert logged(log) == [
        (0, "left", "root", "m1"),
        (0, "right", "root", "m2"),
        (1, "down", "m2", "B"),
        (1, "up", "m2", "C"),
        (0, "down", "m1", "A"),
        (0, "left", "root", "m1"),
    ]
    assert log.entries[0] == Expansion(0, "left", tree.start, tree.state("m1"))
    # Parents and children are logged unwrapped; children are handed out wrapped.
    assert all(type(e.parent) is type(tree.start) for e in log)
    assert isinstance(m1, RecordingState) and m1.wrapped is tree.state("m1")


def test_generated_and_explored(tree):
    log = ExpansionLog()
    root = log.wrap(tree.start)
    assert log.generated_names() == ["root"]  # the start counts before any call
    assert log.explored_count() == 0
    m2 = root.generate_successor(0, "right")
    m2.generate_successor(1, "up")
    root.generate_successor(0, "right")  # a repeat adds a call, not a state
    assert len(log) == 3
    assert log.generated() == {tree.start, tree.state("m2"), tree.state("C")}
    assert log.generated_names() == ["C", "m2", "root"]
    assert log.explored_count() == 3
    log.clear()
    assert len(log) == 0 and log.generated() == set()


def test_wrapper_is_invisible_to_the_agent(tree):
    log = ExpansionLog()
    root = log.wrap(tree.start)
    # Equality and hash are the wrapped state's, in both directions.
    assert root == tree.start and tree.start == root
    assert hash(root) == hash(tree.start)
    assert {root, tree.start} == {tree.start}
    assert root != tree.state("m1")
    # Everything else is forwarded, in both spellings.
    assert root.get_legal_actions(0) == root.getLegalActions(agentIndex=0) == ["left", "right"]
    assert root.getNumAgents() == 2 and root.name == "root" and root.tree is tree
    leaf = root.generate_successor(0, "left").generate_successor(1, "down")
    assert leaf.isWin() and leaf.getScore() == 1.0
    assert str(leaf) == "A" and repr(leaf) == "RecordingState(TreeState('A'))"
    with pytest.raises(AttributeError):
        root.no_such_thing  # noqa: B018


def test_two_logs_never_mix(tree):
    first, second = ExpansionLog(), ExpansionLog()
    first.wrap(tree.start).generate_successor(0, "left")
    # Wrapping a wrapped state takes the new log only.
    second.wrap(first.wrap(tree.start)).generate_successor(0, "right")
    assert logged(first) == [(0, "left", "root", "m1")]
    assert logged(second) == [(0, "right", "root", "m2")]
    assert unwrap(second.wrap(first.wrap(tree.start))) is tree.start


def test_errors_of_the_state_pass_through_and_log_nothing(tree):
    log = ExpansionLog()
    with pytest.raises(Exception, match="not legal"):
        log.wrap(tree.start).generate_successor(0, "up")
    assert len(log) == 0


def test_copy_and_pickle_do_not_recurse(tree):
    log = ExpansionLog()
    root = log.wrap(tree.start)
    assert copy.copy(root) == tree.start
    assert pickle.loads(pickle.dumps(root)).name == "root"
