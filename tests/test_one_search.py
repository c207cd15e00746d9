"""The reference search is written once: swap the one search for a wrong variant, and the
agents, the grader's diagnosis and its reference solutions go wrong together.

Each family is checked on a few representative cases against what the repository records
(tree tests' solution files, a game test's recorded solution, CS188's counts from the
mediumClassic start). With the one search as it is, every check passes; with it swapped for
a classic mistake (depth counted per agent move, ghosts maximising), every check fails.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

import agents
import agents.search as engine
from agents.anytime import AnytimeAgent
from agents.search_config import MAX, SearchConfig, config_from_test
from pacman.gametree import GameTree
from pacman.grading import diagnose, reference
from pacman.layout import load_layout, parse_layout
from pacman.recording import ExpansionLog
from pacman.state import GameState
from pacman.testfile import read_test_file

CASES = Path(__file__).resolve().parents[1] / "test_cases"

#: Tree tests of every kind of search: minimax, alpha-beta, expectimax (uniform and
#: weighted), expectiminimax.
TREE_TESTS = [
    "q2/3-two-ghosts",
    "q3/1-prune-at-min",
    "q3/4-two-ghosts",
    "q4/4-terminal-states",
    "q6/1-notes-chance-node",
    "q7/1-min-then-chance",
]
#: Game tests whose recorded solutions the reference wrote.
GAME_TESTS = ["q2/7-pacman-game", "q4/5-pacman-game"]


def _tree(name: str) -> tuple[dict[str, str], dict[str, str], GameTree]:
    test = read_test_file(str(CASES / f"{name}.test"))
    return test, read_test_file(str(CASES / f"{name}.solution")), GameTree.from_fields(test)


def agent_plays_the_tree_test(name: str) -> bool:
    """The project's agent, built from the test's configuration: the solution's move and
    generated states."""
    test, solution, tree = _tree(name)
    config = config_from_test(test["alg"], test["depth"], tree)
    agent = getattr(agents, test["alg"].strip())(**config.agent_args())
    log = ExpansionLog()
    action = agent.get_action(log.wrap(tree.start))
    return (action, log.generated_names()) == (solution["action"], solution["generated"].split())


def agents_match_cs188_from_medium_classic() -> bool:
    """CS188's depth-2 counts (72 successor calls for minimax, 44 for alpha-beta) and the
    anytime agent's 45 at depth 2."""
    start = GameState.initial(load_layout("mediumClassic"))
    counts = []
    for agent in (agents.MinimaxAgent(depth=2), agents.AlphaBetaAgent(depth=2)):
        log = ExpansionLog()
        counts.append((agent.get_action(log.wrap(start)), len(log)))
    anytime = AnytimeAgent(time=1e6, max_depth=2)
    anytime.get_action(start)
    return counts == [("West", 72), ("West", 44)] and anytime.stats.nodes == 45


def diagnosis_knows_the_right_search(name: str) -> bool:
    """The diagnosis's correct search generates the solution's states and makes its move."""
    test, solution, tree = _tree(name)
    right = diagnose.correct_variant(test["alg"].strip(), tree)
    action, expansions = diagnose.run_variant(tree.start, int(test["depth"]), right)
    generated = diagnose.generated_names(tree.start.name, expansions)
    return (action, generated) == (solution["action"], solution["generated"].split())


def diagnosis_names_the_unpruned_search() -> bool:
    _, _, tree = _tree("q3/1-prune-at-min")
    unpruned = diagnose.run_variant(tree.start, 1, diagnose.Variant("minimax"))[1]
    found = diagnose.diagnose(
        tree, 1, "AlphaBetaAgent", "Nowhere", diagnose.generated_names("root", unpruned)
    )
    return found == [
        "Diagnosis: your generated states fit any of 3 mistakes, each generating exactly them: "
        "ghosts treated as MAX (every agent maximising); minimax without any pruning; "
        "alpha-beta without the root's bound (the root must pass its best value so far to the "
        "next child as alpha)."
    ]


def reference_writes_the_recorded_first_turn(name: str) -> bool:
    """The best actions the reference gives the game's first position, with and without
    Stop, one round shallower and deeper and with the partial-ply bug: the solution's first
    line of each."""
    test = read_test_file(str(CASES / f"{name}.test"))
    solution = read_test_file(str(CASES / f"{name}.solution"))
    layout = parse_layout(test["layout"], test["layoutName"])
    state = GameState.initial(layout, int(test.get("numGhosts", "2")))
    config = config_from_test(test["alg"], test["depth"])

    def both(searched: SearchConfig) -> list[list[str]]:
        return [
            reference.best_actions(reference.root_values(state, searched)),
            reference.best_actions(reference.root_values(state, searched, no_stop=True)),
        ]

    first = {key: json.loads(solution[key].split("\n")[0]) for key in solution if "Actions" in key}
    depth = config.depth
    return (
        [actions for actions, _ in first["optimalActions"]] == both(config)
        and first["altDepthActions"]
        == [*both(replace(config, depth=depth - 1)), *both(replace(config, depth=depth + 1))]
        and first["partialPlyBugActions"] == both(replace(config, partial_ply=True))
    )


FAMILIES: dict[str, list[Callable[[], bool]]] = {
    "agents": [
        *(lambda name=name: agent_plays_the_tree_test(name) for name in TREE_TESTS),
        agents_match_cs188_from_medium_classic,
    ],
    "diagnosis": [
        *(lambda name=name: diagnosis_knows_the_right_search(name) for name in TREE_TESTS),
        diagnosis_names_the_unpruned_search,
    ],
    "reference": [
        *(lambda name=name: reference_writes_the_recorded_first_turn(name) for name in GAME_TESTS)
    ],
}


def _passes(check: Callable[[], bool]) -> bool:
    try:
        return check()
    except Exception:  # a wrong search may also ask a tree for a value it does not have
        return False


def _per_agent_depth(config: SearchConfig, state: object) -> SearchConfig:
    return replace(config, depth_per_agent=True, partial_ply=False)


def _ghosts_maximise(config: SearchConfig, state: object) -> SearchConfig:
    ghosts = state.get_num_agents() - 1  # type: ignore[attr-defined]
    return replace(config, layers=(MAX,) * ghosts)


def test_every_family_agrees_with_the_one_search():
    failed = {
        family: [i for i, c in enumerate(checks) if not _passes(c)]
        for family, checks in FAMILIES.items()
    }
    assert failed == {"agents": [], "diagnosis": [], "reference": []}


@pytest.mark.parametrize("mistake", [_per_agent_depth, _ghosts_maximise])
def test_a_wrong_one_search_fails_every_family_together(monkeypatch, mistake):
    one_search = engine.search

    def wrong(state, config, evaluate, *args, **kwargs):
        return one_search(state, mistake(config, state), evaluate, *args, **kwargs)

    monkeypatch.setattr(engine, "search", wrong)
    passed = {
        family: [i for i, c in enumerate(checks) if _passes(c)]
        for family, checks in FAMILIES.items()
    }
    assert passed == {"agents": [], "diagnosis": [], "reference": []}
