"""The search configuration: built one way from agent arguments and one way from tests, checked
where it is made, and the same in the agents, the grader, ``pacman tree`` and the HTML report."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest
from test_grading import CHANCE_STYLE, grader, last_line

import agents
from agents.evaluation import scoreEvaluationFunction as score
from agents.mcts import MCTSAgent, RolloutEvaluator
from agents.models import directional, uniform
from agents.search import ExpectimaxAgent, ExpectiminimaxAgent, MinimaxAgent, search
from agents.search_config import (
    ALPHABETA,
    CHANCE,
    EXPECTIMAX,
    EXPECTIMINIMAX,
    MAX,
    MIN,
    MINIMAX,
    SearchConfig,
    config_from_args,
    config_from_test,
)
from pacman.cli import main as pacman_main
from pacman.errors import AgentError
from pacman.gametree import GameTree
from pacman.grade_cli import main as grade
from pacman.grading.reference import best_actions, root_values
from pacman.layout import parse_layout
from pacman.state import GameState
from pacman.testfile import read_test_file
from pacman.view.html import embedded_data

REPO = Path(__file__).resolve().parents[1]
Q6 = REPO / "test_cases" / "q6" / "1-notes-chance-node.test"
Q7 = REPO / "test_cases" / "q7" / "2-chance-then-min.test"


def tree_of(path: Path) -> tuple[dict[str, str], GameTree]:
    fields = read_test_file(str(path))
    return fields, GameTree.from_fields(fields)


# ------------------------------------------------------------- built from agent arguments


def test_agent_arguments_become_a_configuration():
    config = config_from_args(EXPECTIMINIMAX, "3", "min:chance", "directional")
    assert config == SearchConfig(EXPECTIMINIMAX, 3, directional, (MIN, CHANCE))
    assert config.layers_for(3) == (MIN, CHANCE) and config.plies(3) == 9
    agent = ExpectiminimaxAgent(depth="3", layers="min:chance", ghostModel="directional")
    assert agent.config == config and agent.depth == 3
    assert MinimaxAgent().config == SearchConfig(MINIMAX, 2)
    assert ExpectimaxAgent(depth=1).config == SearchConfig(EXPECTIMAX, 1, uniform)
    with pytest.raises(FrozenInstanceError):
        config.depth = 4  # type: ignore[misc]


def test_each_algorithm_has_its_layers():
    assert SearchConfig(MINIMAX).layers_for(3) == (MIN, MIN)
    assert SearchConfig(ALPHABETA).layers_for(2) == (MIN,)
    assert SearchConfig(EXPECTIMAX).layers_for(3) == (CHANCE, CHANCE)
    assert SearchConfig(EXPECTIMINIMAX).layers_for(5) == (MIN, CHANCE, MIN, CHANCE)
    assert SearchConfig(MINIMAX, layers=(MAX, MIN)).layers_for(3) == (MAX, MIN)
    assert SearchConfig(MINIMAX).layers_for(1) == ()


def test_the_variants_count_depth_their_way():
    config = SearchConfig(MINIMAX, 2)
    assert config.plies(3) == 6
    assert replace(config, depth_per_agent=True).plies(3) == 2
    assert replace(config, partial_ply=True).plies(3) == 4
    assert replace(config, partial_ply=True).plies(1) == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"algorithm": "negamax"}, "search: unknown kind 'negamax'"),
        ({"depth": 0}, "search: depth must be at least 1, got 0"),
        ({"layers": ("min", "mean")}, "layers ('min', 'mean'): one min, chance or max per ghost"),
        ({"ordering": "random"}, "ordering 'random': expected legal or evaluation"),
        ({"prune_on_equal": True}, "prune_on_equal is a variant of alphabeta"),
        ({"root_unbounded": True}, "root_unbounded is a variant of alphabeta"),
        ({"chance_divisor": "two"}, "chance_divisor 'two': expected one of moves, one, ghost"),
        ({"algorithm": ALPHABETA, "layers": (CHANCE,)}, "prunes MIN and MAX layers only"),
        ({"depth_per_agent": True, "partial_ply": True}, "two ways to count depth"),
    ],
)
def test_a_configuration_that_makes_no_sense_is_refused(kwargs, message):
    with pytest.raises(AgentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        SearchConfig(**kwargs)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: MinimaxAgent(depth="two"), "bad argument depth=two: depth must be a whole number"),
        (lambda: MinimaxAgent(depth=0), "bad argument depth=0: depth must be at least 1"),
        (lambda: MinimaxAgent(depth=2.5), "bad argument depth=2.5: depth must be a whole number"),
        (lambda: MCTSAgent(simulations="abc"), "bad argument simulations=abc: simulations must"),
        (lambda: MCTSAgent(c="nan"), "bad argument c=nan: c must be a finite number"),
        (lambda: MCTSAgent(c=-1), "bad argument c=-1: c must be at least 0"),
        (lambda: MCTSAgent(time="inf"), "bad argument time=inf: time must be a finite number"),
        (lambda: MCTSAgent(time=0), "bad argument time=0: time must be positive"),
        (lambda: MCTSAgent(depth="-1"), "bad argument depth=-1: depth must be at least 0"),
        (lambda: MCTSAgent(simulations=0), "bad argument simulations=0: simulations must be at"),
        (lambda: MCTSAgent(rollout="smart"), "rollout=smart: unknown playout policy"),
        (
            lambda: MCTSAgent(rollout="random", evaluator=RolloutEvaluator()),
            "give evaluator= or rollout, depth and evalFn, not both",
        ),
        (lambda: agents.AnytimeAgent(time="nan"), "bad argument time=nan: time"),
        (
            lambda: agents.AnytimeAgent(table_size="-1"),
            "bad argument table_size=-1: table_size must be at least 0",
        ),
        (
            lambda: agents.AnytimeAgent(loss_delay="lots"),
            "bad argument loss_delay=lots: loss_delay must be a number",
        ),
    ],
)
def test_agent_arguments_are_checked_where_the_agent_is_built(build, message):
    with pytest.raises(AgentError, match=message) as caught:
        build()
    assert "\n" not in str(caught.value)


def test_layers_that_do_not_fit_the_game_are_refused_before_its_first_move():
    _, tree = tree_of(Q7)
    agent = ExpectiminimaxAgent(depth=1, layers="min")
    for check in (lambda: agent.check_game(3), lambda: agent.register_initial_state(tree.start)):
        with pytest.raises(AgentError, match=r"^layers=min: 1 entries for 2 ghost\(s\); give one"):
            check()
    ExpectiminimaxAgent(depth=1, layers="min").check_game(2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("simulations=abc", "bad argument simulations=abc: simulations must be a whole number"),
        ("c=nan", "bad argument c=nan: c must be a finite number"),
    ],
)
def test_the_command_line_says_a_bad_argument_in_one_line(capsys, args, message):
    code = pacman_main(["-p", "MCTSAgent", "-a", args, "-l", "smallClassic", "-q"])
    err = capsys.readouterr().err
    assert code == 2 and err == f"pacman: agent MCTSAgent: {message}\n"


def test_mcts_builds_its_evaluator_from_its_arguments():
    agent = MCTSAgent(simulations="20", rollout="random", depth="3", evalFn="score")
    assert repr(agent.evaluator) == "RolloutEvaluator('random', 3, scoreEvaluationFunction)"
    default = MCTSAgent().evaluator
    assert (default.policy, default.depth) == ("greedy", 5)
    own = RolloutEvaluator("greedy", 0, "better")
    assert MCTSAgent(evaluator=own).evaluator is own


# ------------------------------------------------------------- built from tests


def test_a_tree_test_configures_the_search_it_expects():
    fields, tree = tree_of(Q7)
    config = config_from_test(fields["alg"], fields["depth"], tree)
    assert config == SearchConfig(EXPECTIMINIMAX, 1, tree.ghost_model, (CHANCE, MIN))
    assert config.agent_args() == {
        "depth": 1,
        "layers": "chance,min",
        "ghostModel": tree.ghost_model,
    }
    fields, tree = tree_of(Q6)
    assert config_from_test(fields["alg"], fields["depth"], tree).agent_args() == {
        "depth": 1,
        "ghostModel": tree.ghost_model,
    }
    # Probabilities weigh only chance layers; CS188's tests name only these four agents.
    assert config_from_test("MinimaxAgent", "2", tree) == SearchConfig(MINIMAX, 2)
    assert config_from_test("AlphaBetaAgent", 3).agent_args() == {"depth": 3}
    assert config_from_test("StudentAgent", 1) == SearchConfig(MINIMAX, 1)


SEARCH_TESTS = [
    path
    for path in sorted((REPO / "test_cases").glob("q*/*.test"))
    if "alg" in read_test_file(str(path))
]


@pytest.mark.parametrize("path", SEARCH_TESTS, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_an_agent_built_from_a_tests_configuration_searches_with_it(path):
    fields, tree = read_test_file(str(path)), None
    if fields["class"] == "GraphGameTreeTest":
        tree = GameTree.from_fields(fields)
    config = config_from_test(fields["alg"], fields["depth"], tree)
    agent = getattr(agents, fields["alg"])(**config.agent_args())
    assert agent.config == config


def test_the_search_result_carries_the_layers_it_searched():
    _, tree = tree_of(Q7)
    result = search(tree.start, config_from_test("ExpectiminimaxAgent", 1, tree), score)
    assert result.layers == (CHANCE, MIN)
    agent = ExpectiminimaxAgent(depth=1)
    agent.get_action(tree.start)
    assert agent.last_result.layers == (MIN, CHANCE)  # the default: MIN and chance alternate


def test_the_reference_writes_solutions_for_expectiminimax_games(capsys, tmp_path):
    # It used to refuse them: its own search knew only all-MIN and all-chance ghosts.
    suite = tmp_path / "suite"
    (suite / "q4").mkdir(parents=True)
    (suite / "CONFIG").write_text('order: "q4"\n')
    (suite / "q4" / "CONFIG").write_text((REPO / "test_cases" / "q4" / "CONFIG").read_text())
    game = (REPO / "test_cases" / "q4" / "5-pacman-game.test").read_text()
    assert 'alg: "ExpectimaxAgent"' in game
    game = game.replace('alg: "ExpectimaxAgent"', 'alg: "ExpectiminimaxAgent"')
    (suite / "q4" / "game.test").write_text(game)
    code, out, _ = grader(capsys, "--test-directory", suite, "--generate-solutions")
    assert code == 0 and "Wrote 1 solution files." in out
    solution = read_test_file(str(suite / "q4" / "game.solution"))
    fields = read_test_file(str(suite / "q4" / "game.test"))
    start = GameState.initial(parse_layout(fields["layout"], fields["layoutName"]), 2)
    config = config_from_test("ExpectiminimaxAgent", fields["depth"])
    first = solution["optimalActions"].split("\n")[0]
    assert first.startswith(f"[[{best_actions(root_values(start, config))}".replace("'", '"'))
    code, out, _ = grader(capsys, "--test-directory", suite)
    assert code == 0 and last_line(out) == "Total: 5/5"


# ------------------------------------------------------------- the tree views


def test_pacman_tree_draws_q6s_notes_tree_with_the_tests_probabilities(capsys):
    assert pacman_main(["tree", "--test", str(Q6)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "ExpectimaxAgent depth=1,ghostModel=(the test's probabilities) on 1-notes-chance-node.test",
        "ExpectimaxAgent (expectimax, depth 1): 8 nodes, 7 successor calls; chose Left = 10",
        "principal variation: Left",
        "* #0 MAX root = 10",
        "* |-- Left: #1 CHANCE c1 = 10",
        "  |   |-- a: #2 leaf A = 8 p=0.5",
        "  |   |-- b: #3 leaf B = 24 p=0.333",
        "  |   `-- c: #4 leaf C = -12 p=0.167",
        "  `-- Right: #5 CHANCE c2 = 8.4",
        "      |-- a: #6 leaf D = 30 p=0.1",
        "      `-- b: #7 leaf E = 6 p=0.9",
    ]


def test_pacman_tree_draws_q7s_first_ghost_as_a_chance_layer(capsys, tmp_path):
    page = tmp_path / "q7.html"
    assert pacman_main(["tree", "--test", str(Q7), "--html", str(page), "--text"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "ExpectiminimaxAgent depth=1,layers=chance:min,ghostModel=(the test's probabilities) "
        "on 2-chance-then-min.test",
        "ExpectiminimaxAgent (expectiminimax, depth 1): 14 nodes, 13 successor calls; "
        "chose Right = 2.5",
        "principal variation: Right",
        "* #0 MAX root = 2.5",
        "  |-- Left: #1 CHANCE c1 = 2",
        "  |   |-- a: #2 MIN m1 = 10 p=0.2",
        "  |   |   |-- a: #3 leaf A = 10",
        "  |   |   `-- b: #4 leaf B = 50",
        "  |   `-- b: #5 MIN m2 = 0 p=0.8",
        "  |       |-- a: #6 leaf C = 0",
        "  |       `-- b: #7 leaf D = 5",
        "* `-- Right: #8 CHANCE c2 = 2.5",
        "      |-- a: #9 MIN m3 = 3 p=0.5",
        "      |   `-- a: #10 leaf E = 3",
        "      `-- b: #11 MIN m4 = 2 p=0.5",
        "          |-- a: #12 leaf F = 4",
        "          `-- b: #13 leaf G = 2",
    ]
    nodes = embedded_data(page.read_text(encoding="utf-8"), "tree-data")["nodes"]
    assert [(n["state"], n["kind"]) for n in nodes if not n.get("leaf")] == [
        ("root", MAX),
        ("c1", CHANCE),
        ("m1", MIN),
        ("m2", MIN),
        ("c2", CHANCE),
        ("m3", MIN),
        ("m4", MIN),
    ]


def test_the_html_report_of_a_failing_q6_test_draws_the_tests_probabilities(
    capsys, monkeypatch, tmp_path
):
    # A student who averages uniformly where the test gives probabilities (as in test_grading).
    text = CHANCE_STYLE.read_text()
    text = text.replace("                if p > 0:\n", "                if True:\n").replace(
        "total += p * self.value(child, nextAgent, nextDepth)[0]",
        "total += self.value(child, nextAgent, nextDepth)[0] / len(actions)",
    )
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "multiAgents.py").write_text(text)
    monkeypatch.chdir(REPO)
    reports = tmp_path / "reports"
    test = "test_cases/q6/1-notes-chance-node"
    args = ["-t", test, "--code-directory", str(tmp_path / "student"), "--html-report"]
    assert grade([*args, str(reports)]) == 0
    out = capsys.readouterr().out
    assert "*** FAIL: test_cases/q6/1-notes-chance-node.test" in out
    tree = embedded_data((reports / "q6-1-notes-chance-node.html").read_text(), "tree-data")
    nodes = [
        (n["state"], n["kind"], n["value"], n.get("p"))
        for n in tree["nodes"]
        if n["state"] in ["root", "c1", "A", "B", "C", "c2", "D", "E"]
    ]
    assert nodes == [
        ("root", MAX, 10.0, None),
        ("c1", CHANCE, 10.0, None),
        ("A", MAX, 8.0, 0.5),
        ("B", MAX, 24.0, 1 / 3),
        ("C", MAX, -12.0, 1 / 6),
        ("c2", CHANCE, 8.4, None),
        ("D", MAX, 30.0, 0.1),
        ("E", MAX, 6.0, 0.9),
    ]
    assert tree["action"] == "Left"
    assert tree["compare"]["summary"].startswith("Your move: Right (expected Left). ")


def test_the_divisor_variants_divide_each_ghosts_chance_node_as_named():
    def divisors(by: str) -> tuple[int | None, ...] | None:
        return SearchConfig(EXPECTIMAX, chance_divisor=by).divisors(3)

    assert divisors("moves") is None  # each node divides by its number of moves
    assert (divisors("one"), divisors("ghost"), divisors("agents")) == (
        (None, 1, 1),
        (None, 1, 2),
        (None, 3, 3),
    )
