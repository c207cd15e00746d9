"""Evaluation functions, their names, the feature helpers, and the q1/q5 strength targets."""

from __future__ import annotations

import math

import pytest

import agents
from agents import features
from agents.evaluation import (
    EVALUATION_FUNCTIONS,
    better,
    betterEvaluationFunction,
    resolve_evaluation,
    scoreEvaluationFunction,
)
from agents.reflex import ReflexAgent
from pacman.errors import AgentError
from pacman.layout import load_layout, parse_layout
from pacman.recording import ExpansionLog
from pacman.runner import GameSpec, batch, run_games
from pacman.state import GameState

MAZE = parse_layout(
    """
%%%%%%%
%P.%.o%
%.%%..%
%..G..%
%%%%%%%
""".strip("\n"),
    "maze",
)


@pytest.fixture
def state() -> GameState:
    return GameState.initial(MAZE)


# ----------------------------------------------------------------- names


def test_names_resolve_to_the_functions():
    assert resolve_evaluation("scoreEvaluationFunction") is scoreEvaluationFunction
    assert resolve_evaluation("score") is scoreEvaluationFunction
    assert resolve_evaluation("better") is better is betterEvaluationFunction
    assert resolve_evaluation(" betterEvaluationFunction ") is betterEvaluationFunction
    assert resolve_evaluation("agents.features.food_left") is features.food_left
    assert resolve_evaluation("agents.features:capsules_left") is features.capsules_left
    assert resolve_evaluation(len) is len
    assert set(EVALUATION_FUNCTIONS) <= set(agents.public_names()) | {"score"}
    assert agents.better is better


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("bestest", "evalFn=bestest: unknown evaluation function; known: scoreEvaluationFunction"),
        ("no_module.f", "evalFn=no_module.f: cannot import it"),
        ("agents.features.nothing", "evalFn=agents.features.nothing: cannot import it"),
        ("agents.features.__all__", "evalFn=agents.features.__all__: __all__ is not a function"),
        (3, "evalFn must be a function or a name, got 3"),
    ],
)
def test_bad_names_are_one_line_errors(spec, message):
    with pytest.raises(AgentError, match=message):
        resolve_evaluation(spec)


def test_score_evaluation_is_the_score(state):
    assert scoreEvaluationFunction(state) == 0.0
    after = state.generate_successor(0, "South")
    assert scoreEvaluationFunction(after) == 9.0


# -------------------------------------------------------------- features


def test_maze_distances_follow_the_corridors(state):
    assert state.get_pacman_position() == (1, 3)
    # (1,3) to (4,3): down the left column, along the bottom, up the right side.
    assert features.maze_distance(state, (1, 3), (4, 3)) == 7
    assert features.maze_distance(state, (4, 3), (1, 3)) == 7
    assert features.maze_distance(state, (1, 3), (1, 3)) == 0
    assert features.maze_distance(state, (3, 1), (3, 1)) == 0  # the ghost's cell
    # Half a cell between two cells (a scared ghost): the nearer cell plus a half.
    assert features.maze_distance(state, (1, 3), (1.5, 1)) == 2.5
    assert features.maze_distance(state, (1, 3), (1, 1.5)) == 1.5


def test_unreachable_and_wall_cells():
    walled = GameState.initial(parse_layout("%%%%%%\n%P%..%\n%%%%%%", "walled"))
    assert features.maze_distance(walled, (1, 1), (3, 1)) == math.inf
    assert features.nearest_food_distance(walled) == math.inf
    with pytest.raises(AgentError, match=r"\(2, 1\) is not an open cell"):
        features.maze_distance(walled, (2, 1), (3, 1))


def test_distances_are_computed_once_per_layout(state):
    table = features.maze_distances(state)
    assert features.maze_distances(state.generate_successor(0, "South")) is table
    assert features.maze_distances(MAZE) is table
    assert features.maze_distances(GameState.initial(load_layout("smallClassic"))) is not table
    row = table.from_cell((1, 3))
    assert table.from_cell((1, 3)) is row  # one breadth-first search per source cell
    assert len(row) == 12  # every open cell of the maze


def test_feature_helpers(state):
    assert features.food_left(state) == 9
    assert sorted(features.food_positions(state))[:3] == [(1, 1), (1, 2), (2, 1)]
    assert features.nearest_food_distance(state) == 1
    assert features.capsules_left(state) == 1
    assert features.nearest_capsule_distance(state) == 8
    assert features.ghost_distances(state) == [4]
    assert features.scared_times(state) == [0]
    assert features.nearest_distance(state, []) == 0
    assert features.nearest_distance(state, [(5, 1), (5, 3)], start=(4, 3)) == 1


def test_features_see_through_a_recording_wrapper(state):
    wrapped = ExpansionLog().wrap(state)
    assert features.ghost_distances(wrapped) == [4]
    assert features.nearest_food_distance(wrapped) == 1


# ------------------------------------------------------ better evaluation


def test_better_ranks_outcomes(state):
    won = GameState.initial(parse_layout("%%%%\n%P.%\n%%%%", "one"))
    won = won.generate_successor(0, "East")
    assert won.is_win() and betterEvaluationFunction(won) == won.get_score() == 509.0
    lost = GameState.initial(parse_layout("%%%%%\n%PG.%\n%%%%%", "two"))
    lost = lost.generate_successor(0, "East")
    assert lost.is_lose() and betterEvaluationFunction(lost) < -5000
    # Eating beats standing next to food; food nearer beats food further.
    assert betterEvaluationFunction(
        state.generate_successor(0, "South")
    ) > betterEvaluationFunction(state.generate_successor(0, "Stop"))


def _play(agent: str, layout: str, args: dict[str, str], seed: int) -> list:
    spec = GameSpec(
        layout=layout, pacman=agent, pacman_args=args, ghost="RandomGhost", num_ghosts=1, seed=seed
    )
    return list(run_games(batch(spec, 10)))


def test_expectimax_with_better_meets_cs188_q5():
    # q5's full marks: 10 wins of 10 and an average of at least 1,000, against one RandomGhost.
    results = _play("ExpectimaxAgent", "smallClassic", {"depth": "2", "evalFn": "better"}, seed=0)
    assert [r.win for r in results] == [True] * 10
    assert sum(r.score for r in results) / 10 >= 1000
    assert not any(r.crashed for r in results)


def test_reflex_agent_meets_cs188_q1():
    results = _play("ReflexAgent", "openClassic", {}, seed=0)
    assert [r.win for r in results] == [True] * 10
    assert sum(r.score for r in results) / 10 >= 1000


def test_reflex_agent_evaluates_actions(state):
    agent = ReflexAgent()
    assert agent.evaluate(state, "South") > agent.evaluate(state, "Stop")
    assert agent.evaluationFunction(state, "South") == agent.evaluate(state, "South")
    assert agent.get_action(state) == agent.getAction(state) == "South"
    assert agent.stats.moves == 2 and agent.stats.nodes == 6


def test_nearest_food_walk_agrees_with_the_food_list():
    # Many dots: the outward walk from Pac-Man; few dots: the list. Both give the same answer.
    state = GameState.initial(load_layout("mediumClassic"))
    seen = []
    for action in ["West"] * 3 + ["North"] * 2 + ["West"] * 2 + ["South", "South"]:
        if action in state.get_legal_actions(0):
            state = state.generate_successor(0, action)
        seen.append(features.nearest_food_distance(state))
        assert seen[-1] == features.nearest_distance(state, features.food_positions(state))
    assert state.get_num_food() > 6 and max(seen) > 0
    few = GameState.initial(parse_layout("%%%%%%%\n%P...%%\n%%%%%%%", "few"))
    assert features.nearest_food_distance(few) == 1
    assert features.nearest_food_distance(few.generate_successor(0, "East")) == 1
