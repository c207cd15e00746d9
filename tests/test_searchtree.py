"""The search tree, its HTML page and ``pacman tree``: the page's data is the search's expansion."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import agents
from agents.evaluation import scoreEvaluationFunction
from agents.search import SearchConfig, search
from pacman.cli import main
from pacman.gametree import GameTree
from pacman.layout import load_layout
from pacman.recording import ExpansionLog
from pacman.state import GameState
from pacman.view.html import embedded_data, json_block
from pacman.view.html_tree import tree_page
from pacman.view.searchtree import CHANCE, MAX, MIN, SearchTree, TreeNode, observe
from pacman.view.tree_text import to_text

CASES = Path(__file__).resolve().parents[2] / "shared" / "berkeley" / "test_cases"
LECTURE = CASES / "q3" / "0-lecture-6-tree.test"
needs_cases = pytest.mark.skipif(not LECTURE.is_file(), reason=f"CS188 tests not at {CASES}")

#: Anything that would make a browser reach outside the file.
NETWORK = re.compile(
    r"https?:|ftp:|//[\w.-]+\.\w|\bsrc\s*=|\bhref\s*=|url\(|@import|<link|<iframe|fetch\(|"
    r"XMLHttpRequest|WebSocket|EventSource|sendBeacon|importScripts",
    re.I,
)


def page_nodes(page: str) -> list[dict]:
    return embedded_data(page, "tree-data")["nodes"]


def test_alphabeta_depth_2_from_minimax_classic_is_the_expansion_exactly():
    state = GameState.initial(load_layout("minimaxClassic"))
    # The expansion as the recorder sees it, from a search of its own.
    log = ExpansionLog()
    agents.AlphaBetaAgent(depth=2).get_action(log.wrap(state))
    agent = agents.AlphaBetaAgent(depth=2)
    page = tree_page(observe(agent, state))
    nodes = page_nodes(page)
    assert len(nodes) == len(log) + 1 == 180
    assert [n["id"] for n in nodes] == list(range(180))
    for node, entry, parent in zip(nodes[1:], log.entries, log.parents, strict=True):
        assert (node["parent"], node["action"]) == (parent + 1, entry.action)
        assert nodes[node["parent"]]["agent"] == entry.agent_index
    # Values: the root's and each root action's are the search's own.
    result = agent.last_result
    assert nodes[0]["value"] == result.value == 8
    root_children = {n["action"]: n["value"] for n in nodes if n["parent"] == 0}
    assert root_children == result.values == {"West": 8, "Stop": -2, "East": 8}
    # Leaves are the evaluated states, in evaluation order.
    leaves = [n for n in nodes if n.get("leaf")]
    assert len(leaves) == result.evaluations == 44
    assert all(
        n["value"] == scoreEvaluationFunction(log.entries[n["id"] - 1].child) for n in leaves
    )
    # Pruned children: every legal action a node with children never expanded.
    pruned = {n["id"]: n["pruned"] for n in nodes if "pruned" in n}
    for node_id, actions in pruned.items():
        parent_state = state if node_id == 0 else log.entries[node_id - 1].child
        legal = parent_state.get_legal_actions(nodes[node_id]["agent"])
        expanded = [n["action"] for n in nodes if n["parent"] == node_id]
        assert expanded + actions == legal
    assert pruned == {
        **{key: ["East"] for key in [69, 73, 96, 100, 108, 112, 116, 146, 150, 154]},
        90: ["South"],
    }
    # The principal variation is the search's.
    data = embedded_data(page, "tree-data")
    assert [nodes[i]["action"] for i in data["pv"][1:]] == list(result.pv)
    assert data["action"] == "West"
    assert not NETWORK.search(page)


@needs_cases
def test_cs188_q3_lecture_tree_is_drawn_as_searched(tmp_path, capsys):
    out = tmp_path / "lecture.html"
    assert main(["tree", "--test", str(LECTURE), "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    nodes = page_nodes(page)
    assert [n["state"] for n in nodes] == [
        "max",
        "min1",
        "A",
        "B",
        "C",
        "min2",
        "D",
        "E",
        "F",
        "min3",
        "G",
        "H",
    ]
    assert [n["value"] for n in nodes] == [4, 3, 3, 12, 8, 4, 5, 4, 6, 1, 14, 1]
    assert [n["kind"] for n in nodes if not n.get("leaf")] == [MAX, MIN, MIN, MIN]
    assert {n["id"]: n["pruned"] for n in nodes if "pruned" in n} == {9: ["Right"]}
    ab = [(n["alpha"], n["beta"]) for n in nodes if not n.get("leaf")]
    assert ab == [("-inf", "inf"), ("-inf", "inf"), (3, "inf"), (4, "inf")]
    data = embedded_data(page, "tree-data")
    assert (data["action"], data["pv"]) == ("Center", [0, 5, 7])
    # The generated states are the solution's.
    solution = (CASES / "q3" / "0-lecture-6-tree.solution").read_text()
    generated = re.search(r'generated: "([^"]*)"', solution).group(1).split()
    assert sorted(n["state"] for n in nodes) == sorted(generated)
    assert not NETWORK.search(page)
    err = capsys.readouterr().err
    assert err == f"pacman tree: 12 nodes written to {out}\n"


@needs_cases
def test_text_tree_of_the_lecture(capsys):
    assert main(["tree", "--test", str(LECTURE)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "AlphaBetaAgent depth=2 on 0-lecture-6-tree.test",
        "AlphaBetaAgent (alphabeta, depth 2): 12 nodes, 11 successor calls; chose Center = 4",
        "principal variation: Center Center",
        "* #0 MAX max = 4 [a=-inf b=+inf]",
        "  |-- Left: #1 MIN min1 = 3 [a=-inf b=+inf]",
        "  |   |-- Left: #2 leaf A = 3 (win)",
        "  |   |-- Center: #3 leaf B = 12 (win)",
        "  |   `-- Right: #4 leaf C = 8 (win)",
        "* |-- Center: #5 MIN min2 = 4 [a=3 b=+inf]",
        "  |   |-- Left: #6 leaf D = 5 (win)",
        "* |   |-- Center: #7 leaf E = 4 (win)",
        "  |   `-- Right: #8 leaf F = 6 (win)",
        "  `-- Right: #9 MIN min3 = 1 [a=4 b=+inf]",
        "      |-- Left: #10 leaf G = 14 (win)",
        "      |-- Center: #11 leaf H = 1 (win)",
        "      `-X pruned: Right",
    ]


LECTURE_FIELDS = {
    "num_agents": "2",
    "start_state": "max",
    "win_states": "A B C D E F G H I",
    "successors": "\n".join(
        f"{p} {a} {c}"
        for p, a, c in [
            ("max", "Left", "min1"),
            ("max", "Center", "min2"),
            ("max", "Right", "min3"),
            *((f"min{i // 3 + 1}", "LCR"[i % 3], "ABCDEFGHI"[i]) for i in range(9)),
        ]
    ),
    "evaluation": "A 3\nB 12\nC 8\nD 5\nE 4\nF 6\nG 14\nH 1\nI 11",
}


def test_expectimax_nodes_are_chance_nodes_with_probabilities():
    tree = GameTree.from_fields(LECTURE_FIELDS)
    found = observe(agents.ExpectimaxAgent(depth=1), tree.start)
    chance = [n for n in found if n.kind == CHANCE and not n.leaf]
    assert [str(n.state) for n in chance] == ["min1", "min2", "min3"]
    assert [n.value for n in chance] == [23 / 3, 5.0, 26 / 3]
    assert [n.probability for n in found if n.ply == 2] == [1 / 3] * 9
    assert found.action == "Right" and found.pv == [0, 9]  # a chance node ends the line
    assert (
        found.root.value
        == search(tree.start, SearchConfig("expectimax", 1), scoreEvaluationFunction).value
    )


class _MonteCarloLike(agents.RandomAgent):
    """An agent that keeps its own tree (visit counts, mean values) and hands it over."""

    def get_action(self, state):
        return "Left"

    def search_tree(self):
        nodes = [
            TreeNode(0, None, None, 0, MAX, 0, "root", value=2.0, visits=10, mean=2.0),
            TreeNode(1, 0, "Left", 1, MIN, 1, "a", value=3.0, visits=7, mean=3.0),
            TreeNode(2, 0, "Right", 1, MIN, 1, "b", value=-1.0, visits=3, mean=-1.0),
        ]
        nodes[0].children = [1, 2]
        return SearchTree(nodes, "mcts", "MonteCarloLike", "Left", 2, pv=[0, 1])


def test_an_agent_with_its_own_tree_hands_it_over():
    tree = GameTree.from_fields(LECTURE_FIELDS)
    found = observe(_MonteCarloLike(), tree.start)
    data = embedded_data(tree_page(found), "tree-data")
    assert [(n["visits"], n["mean"]) for n in data["nodes"]] == [(10, 2.0), (7, 3.0), (3, -1.0)]
    assert data["algorithm"] == "mcts"


def test_a_student_style_agent_is_watched_through_camel_case_names():
    class Student(agents.RandomAgent):
        def __init__(self):
            super().__init__()
            self.evaluationFunction = scoreEvaluationFunction

        def getAction(self, gameState):
            values = []
            for action in gameState.getLegalActions(0):
                child = gameState.generateSuccessor(0, action)
                worst = min(
                    self.evaluationFunction(child.generateSuccessor(1, a))
                    for a in child.getLegalActions(1)
                )
                values.append((worst, action))
            return max(values)[1]

    tree = GameTree.from_fields(LECTURE_FIELDS)
    student = Student()
    found = observe(student, tree.start, algorithm="minimax")
    assert [n.value for n in found if n.ply == 1] == [3, 4, 1]
    assert found.action == "Center" and len(found) == 13
    assert student.evaluationFunction is scoreEvaluationFunction  # given back unchanged


def test_anytime_agent_iterations_share_one_root():
    state = GameState.initial(load_layout("minimaxClassic"))
    agent = agents.AnytimeAgent(time=0.05, max_depth=2)
    found = observe(agent, state)
    root_actions = [found.nodes[c].action for c in found.root.children]
    # Depth 1, then depth 2 with the best move first.
    assert len(root_actions) == 6 and set(root_actions) == {"West", "Stop", "East"}
    assert found.nodes[found.pv[1]].action == found.action


def test_a_large_tree_stays_small_on_disk(tmp_path):
    out = tmp_path / "big.html"
    assert main(["tree", "-p", "AlphaBetaAgent", "-a", "depth=4", "-l", "openClassic",
                 "--html", str(out)]) == 0  # fmt: skip
    page = out.read_text(encoding="utf-8")
    assert len(page_nodes(page)) == 5639
    assert out.stat().st_size < 3_000_000
    assert not NETWORK.search(page)


def test_embedded_data_cannot_close_its_script():
    block = json_block("x", {"s": "</script><script>alert(1)</script> & \u2028"})
    assert "</script><script>" not in block[:-9] and "\u2028" not in block
    assert json.loads(block[block.index(">") + 1 : -9]) == {
        "s": "</script><script>alert(1)</script> & \u2028"
    }


def test_infinities_are_strings_in_the_data():
    tree = observe(agents.AlphaBetaAgent(depth=1), GameTree.from_fields(LECTURE_FIELDS).start)
    root = json.loads(json.dumps(tree.to_data()))["nodes"][0]
    assert (root["alpha"], root["beta"]) == ("-inf", "inf")


def test_record_move_and_bad_input(tmp_path, capsys):
    record = tmp_path / "game.json"
    assert main(["-p", "GreedyAgent", "-l", "minimaxClassic", "-q", "--seed", "3",
                 "--record", str(record)]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["tree", "--replay", str(record), "--move", "2", "-a", "depth=1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("AlphaBetaAgent depth=1 before Pac-Man's move 2 of game.json\n")
    moves = sum(1 for agent, _ in json.loads(record.read_text())["actions"] if agent == 0)
    assert main(["tree", "--replay", str(record), "--move", str(moves + 1)]) == 2
    assert capsys.readouterr().err == (
        f"pacman tree: --move {moves + 1}: {record} has only {moves} Pac-Man moves\n"
    )
    assert main(["tree", "-l", "noSuchLayout"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["tree", "--text-ply", "-1"]) == 2
    assert capsys.readouterr().err == "pacman tree: --text-ply -1: must be at least 0\n"


def test_each_tree_flag_reaches_its_own_option():
    from dataclasses import asdict

    from pacman.tree_cli import parse_options

    flags = "-p ExpectimaxAgent -a depth=1 -l testClassic -k 1 --replay g.json --move 3 "
    flags += "--test t.test --algorithm expectimax --html t.html --text --text-ply 2"
    assert asdict(parse_options(flags.split())) == {
        "pacman": "ExpectimaxAgent", "agent_args": "depth=1", "layout": "testClassic",
        "num_ghosts": 1, "replay": "g.json", "move": 3, "test_file": "t.test",
        "algorithm": "expectimax", "html": "t.html", "text": True, "text_ply": 2,
    }  # fmt: skip


def test_a_crashing_agent_is_one_line_and_exit_1(tmp_path, capsys):
    code = tmp_path / "myAgents.py"
    code.write_text(
        "from game import Agent\n"
        "class Broken(Agent):\n"
        "    def getAction(self, gameState):\n"
        "        return 1 / 0\n"
    )
    assert main(["tree", "-p", f"{code}:Broken", "-a", "index=0"]) == 1
    assert capsys.readouterr().err == (
        "pacman tree: Broken crashed: ZeroDivisionError: division by zero at myAgents.py:4\n"
    )


def test_text_folds_below_a_ply():
    tree = observe(agents.AlphaBetaAgent(depth=1), GameTree.from_fields(LECTURE_FIELDS).start)
    assert to_text(tree, max_ply=0).splitlines()[-1] == "  `-- ... 11 nodes below"


def test_a_reflex_agent_gets_its_root_values_from_its_public_result():
    state = GameState.initial(load_layout("minimaxClassic"))
    agent = agents.ReflexAgent()
    tree = observe(agent, state)
    assert [n.leaf for n in tree] == [False, True, True, True]
    assert (
        tree.root_values()
        == agent.last_result.values
        == {
            "West": -55.5,
            "Stop": -47.5,
            "East": -42.5,
        }
    )
    assert (tree.action, tree.root.value, tree.pv) == ("East", -42.5, [0, 3])


def test_an_evaluation_of_a_move_is_not_taken_for_a_leaf():
    log = ExpansionLog()
    root = log.wrap(GameTree.from_fields(LECTURE_FIELDS).start)
    watched = log.watch(lambda state, action=None: 1.0)
    watched(root, "Left")  # CS188's ReflexAgent.evaluationFunction(state, action)
    watched(root.generate_successor(0, "Left"))
    assert log.evaluations == [(0, 1.0)]


def test_names_from_agents_and_states_stay_text():
    tree = observe(agents.AlphaBetaAgent(depth=1), GameTree.from_fields(LECTURE_FIELDS).start)
    tree.title = "<img src=x onerror=alert(1)></script>"
    tree.nodes[1].state = "</script><b>min1</b>"
    page = tree_page(tree)
    assert "<img" not in page and "<b>" not in page
    assert embedded_data(page, "tree-data")["title"] == tree.title


def test_expectiminimax_layers_and_a_ghost_models_probabilities_are_drawn_as_searched():
    from agents.models import directional
    from agents.search import ExpectiminimaxAgent

    state = GameState.initial(load_layout("minimaxClassic"))
    agent = ExpectiminimaxAgent(depth=1, layers="min:chance:min", ghostModel="directional")
    tree = observe(agent, state)
    # Ghost 1 MIN, ghost 2 chance, ghost 3 MIN, as layers says; the leaves after ghost 3.
    kinds = {node.ply: node.kind for node in tree.nodes if not node.leaf}
    assert kinds == {0: MAX, 1: MIN, 2: CHANCE, 3: MIN}
    for node in tree.nodes:
        if node.kind == CHANCE and node.children:
            weights = directional(node.state, node.agent)
            assert {tree.nodes[c].action: tree.nodes[c].probability for c in node.children} == {
                action: p for action, p in weights.items() if p
            }
    assert tree.action == agent.last_result.action == "West"
    root_values = {tree.nodes[c].action: tree.nodes[c].value for c in tree.root.children}
    assert root_values == agent.last_result.values
    assert len(tree.nodes) == agent.last_result.nodes + 1


def test_an_mcts_tree_has_its_visit_counts_and_mean_returns():
    from agents.mcts import MCTSAgent

    state = GameState.initial(load_layout("minimaxClassic"))
    agent = MCTSAgent(simulations=40, rng=__import__("random").Random(3))
    tree = observe(agent, state)
    root = tree.root
    edges = [tree.nodes[c] for c in root.children]
    # Every simulation tried one root edge; each edge's replies account for each try.
    assert root.visits == sum(edge.visits for edge in edges) == 40
    for node in tree.nodes:
        if node.kind == CHANCE:
            assert node.visits == sum(tree.nodes[c].visits for c in node.children)
            assert sum(tree.nodes[c].probability for c in node.children) == pytest.approx(1.0)
    most_tried = max(edges, key=lambda edge: (edge.visits, edge.mean))
    assert tree.action == most_tried.action and tree.pv[:2] == [0, most_tried.id]
    assert {edge.action for edge in edges} <= set(state.get_legal_actions(0))
