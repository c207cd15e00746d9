"""Minimax, alpha-beta and expectimax on hand-written game trees: action and exact expansion."""

from __future__ import annotations

import pytest

from agents.anytime import AnytimeAgent
from agents.evaluation import betterEvaluationFunction, scoreEvaluationFunction
from agents.search import (
    ALPHABETA,
    EXPECTIMAX,
    EXPECTIMINIMAX,
    MINIMAX,
    AlphaBetaAgent,
    ExpectimaxAgent,
    ExpectiminimaxAgent,
    MinimaxAgent,
    SearchConfig,
    search,
)
from agents.search_config import CHANCE, EVALUATION, MIN
from pacman.errors import AgentError
from pacman.gametree import GameTree
from pacman.recording import ExpansionLog

AGENTS = {MINIMAX: MinimaxAgent, ALPHABETA: AlphaBetaAgent, EXPECTIMAX: ExpectimaxAgent}


def tree(num_agents: int, successors: str, values: str, win: str = "", lose: str = "") -> GameTree:
    return GameTree.from_fields(
        {
            "num_agents": str(num_agents),
            "start_state": "root",
            "successors": successors,
            "evaluation": values,
            "win_states": win,
            "lose_states": lose,
        }
    )


def play(kind: str, game: GameTree, depth: int) -> tuple[str, list[str]]:
    """The agent's action and its successor calls as ``"agent parent action child"`` lines."""
    log = ExpansionLog()
    action = AGENTS[kind](depth=depth).get_action(log.wrap(game.start))
    return action, [f"{e.agent_index} {e.parent} {e.action} {e.child}" for e in log]


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().splitlines()]


# A max root over three MIN (or chance) nodes: the lecture example, one ghost, depth 1.
LECTURE = tree(
    2,
    """
    root Left m1
    root Center m2
    root Right m3
    m1 Left A
    m1 Center B
    m1 Right C
    m2 Left D
    m2 Center E
    m2 Right F
    m3 Left G
    m3 Center H
    m3 Right I
    """,
    "A 3\nB 12\nC 8\nD 2\nE 4\nF 6\nG 14\nH 5\nI 2",
)
LECTURE_ALL = """
    0 root Left m1
    1 m1 Left A
    1 m1 Center B
    1 m1 Right C
    0 root Center m2
    1 m2 Left D
    1 m2 Center E
    1 m2 Right F
    0 root Right m3
    1 m3 Left G
    1 m3 Center H
    1 m3 Right I
"""


def test_lecture_tree_minimax_expands_everything():
    assert play(MINIMAX, LECTURE, 1) == ("Left", lines(LECTURE_ALL))


def test_lecture_tree_alpha_beta_prunes_after_a_value_below_alpha():
    action, calls = play(ALPHABETA, LECTURE, 1)
    assert action == "Left"
    assert calls == lines(
        """
        0 root Left m1
        1 m1 Left A
        1 m1 Center B
        1 m1 Right C
        0 root Center m2
        1 m2 Left D
        0 root Right m3
        1 m3 Left G
        1 m3 Center H
        1 m3 Right I
        """
    )


def test_lecture_tree_expectimax_averages():
    # Averages 23/3, 4, 22/3.
    assert play(EXPECTIMAX, LECTURE, 1) == ("Left", lines(LECTURE_ALL))
    assert (
        search(LECTURE.start, SearchConfig(EXPECTIMAX, 1), scoreEvaluationFunction).value == 23 / 3
    )


# Ties: both root moves are worth 5; the MIN node's first child equals alpha, so it must not prune.
TIED = tree(2, "root Left m1\nroot Right m2\nm1 a A\nm2 a B\nm2 b C", "A 5\nB 5\nC 7")
TIED_ALL = """
    0 root Left m1
    1 m1 a A
    0 root Right m2
    1 m2 a B
    1 m2 b C
"""


@pytest.mark.parametrize("kind", [MINIMAX, ALPHABETA, EXPECTIMAX])
def test_ties_go_to_the_first_action_and_equality_never_prunes(kind):
    expected_action = "Right" if kind == EXPECTIMAX else "Left"  # expectimax: 5 against 6
    assert play(kind, TIED, 1) == (expected_action, lines(TIED_ALL))


def test_all_equal_root_moves_choose_the_first():
    flat = tree(2, "root c m1\nroot b m2\nroot a m3\nm1 x A\nm2 x B\nm3 x C", "A 1\nB 1\nC 1")
    for kind in AGENTS:
        assert play(kind, flat, 1)[0] == "c"


# A MAX node under a MIN node: its first child equals beta (no prune), the next exceeds it (prune).
BETA = tree(
    2,
    """
    root Go g
    g a p1
    g b p2
    p1 x L1
    p2 x L2
    p2 y L3
    p2 z L4
    """,
    "L1 4\nL2 4\nL3 9\nL4 1",
    win="L1 L2 L3 L4",
)


def test_alpha_beta_prunes_a_max_node_only_above_beta():
    action, calls = play(ALPHABETA, BETA, 2)
    assert action == "Go"
    assert calls == lines(
        """
        0 root Go g
        1 g a p1
        0 p1 x L1
        1 g b p2
        0 p2 x L2
        0 p2 y L3
        """
    )
    assert play(MINIMAX, BETA, 2)[1] == [*calls, "0 p2 z L4"]


# Terminal states above the depth limit are scored, not expanded; so is a state with no moves.
SHALLOW = tree(
    2,
    """
    root L lose1
    root R g
    g a W
    g b p
    p s m
    m t leaf
    """,
    "lose1 -10\nW 7\np 3\nleaf 100",
    win="W",
    lose="lose1",
)


@pytest.mark.parametrize("kind", [MINIMAX, ALPHABETA])
def test_terminal_states_above_the_depth_limit(kind):
    assert play(kind, SHALLOW, 1) == ("R", ["0 root L lose1", "0 root R g", "1 g a W", "1 g b p"])
    assert play(kind, SHALLOW, 2) == (
        "R",
        ["0 root L lose1", "0 root R g", "1 g a W", "1 g b p", "0 p s m", "1 m t leaf"],
    )
    # Deeper than the tree: the leaf has no moves, so it is scored where it stands.
    assert play(kind, SHALLOW, 4) == play(kind, SHALLOW, 2)


def test_expectimax_with_terminal_states():
    action, calls = play(EXPECTIMAX, SHALLOW, 2)
    assert action == "R"  # (7 + 100) / 2 against -10
    assert search(SHALLOW.start, SearchConfig(EXPECTIMAX, 2), scoreEvaluationFunction).value == 53.5
    assert calls == play(MINIMAX, SHALLOW, 2)[1]


def test_scoring_a_state_above_the_depth_limit_is_an_error_naming_it():
    # The same tree without a value for p: p must be scored at depth 1, so that is an error.
    broken = tree(2, "root R g\ng b p\np s m\nm t leaf", "leaf 100")
    with pytest.raises(AgentError, match="'p' has no evaluation value"):
        play(MINIMAX, broken, 1)
    assert play(MINIMAX, broken, 2)[0] == "R"


# Two ghosts (three agents), depth 1: pruning at the second ghost's layer and at the first's.
TWO_GHOSTS = tree(
    3,
    """
    root L g1a
    root R g1b
    g1a x g2a
    g1a y g2b
    g2a x A
    g2a y B
    g2b x C
    g2b y D
    g1b x g2c
    g1b y g2d
    g2c x E
    g2c y F
    g2d x G
    """,
    "A 3\nB 5\nC 4\nD 6\nE 2\nF 8\nG 9",
)
TWO_GHOSTS_LEFT = """
    0 root L g1a
    1 g1a x g2a
    2 g2a x A
    2 g2a y B
    1 g1a y g2b
    2 g2b x C
    2 g2b y D
    0 root R g1b
    1 g1b x g2c
    2 g2c x E
"""


def test_two_ghosts_minimax():
    assert play(MINIMAX, TWO_GHOSTS, 1) == (
        "L",
        [*lines(TWO_GHOSTS_LEFT), "2 g2c y F", "1 g1b y g2d", "2 g2d x G"],
    )


def test_two_ghosts_alpha_beta_prunes_both_ghost_layers():
    assert play(ALPHABETA, TWO_GHOSTS, 1) == ("L", lines(TWO_GHOSTS_LEFT))


def test_two_ghosts_expectimax():
    # Left: (4 + 5) / 2 = 4.5; Right: ((2 + 8) / 2 + 9) / 2 = 7.
    action, calls = play(EXPECTIMAX, TWO_GHOSTS, 1)
    assert (action, calls) == ("R", play(MINIMAX, TWO_GHOSTS, 1)[1])


# Three ghosts (four agents): every agent moves once per unit of depth, in index order.
THREE_GHOSTS = tree(
    4,
    "\n".join(f"{side}{level} Go {side}{level + 1}" for side in "ab" for level in range(1, 8))
    + "\nroot L a1\nroot R b1\na1 Alt c2\nc2 Go c3\nc3 Go c4",
    "a4 5\nb4 1\nc4 0\na8 2\nb8 6",
)


@pytest.mark.parametrize("kind", [MINIMAX, ALPHABETA, EXPECTIMAX])
def test_three_ghosts(kind):
    action, calls = play(kind, THREE_GHOSTS, 1)
    # Depth 1: a4 against b4, but the first ghost can steer a1 to c4 (0) instead.
    side = {MINIMAX: "R", ALPHABETA: "R", EXPECTIMAX: "L"}[kind]  # expectimax: (5 + 0) / 2 > 1
    assert action == side
    assert calls[:4] == ["0 root L a1", "1 a1 Go a2", "2 a2 Go a3", "3 a3 Go a4"]
    assert calls[4:7] == ["1 a1 Alt c2", "2 c2 Go c3", "3 c3 Go c4"]
    assert calls[7:] == ["0 root R b1", "1 b1 Go b2", "2 b2 Go b3", "3 b3 Go b4"]
    action, calls = play(kind, THREE_GHOSTS, 2)
    assert action == "R"  # b8 = 6; the left side is at most 2
    assert calls[-8:] == [f"{i % 4} b{i} Go b{i + 1}" if i else "0 root R b1" for i in range(8)]


def _ladder_calls(side: str, depth: int) -> list[str]:
    calls = [f"0 root {side} {side}1"]
    calls += [f"{level % 2} {side}{level} go {side}{level + 1}" for level in range(1, 2 * depth)]
    return calls


# One ghost, single-file corridors of 8 moves on each side. Only even levels have values, and the
# better side alternates with depth, so a depth off by one unit (or by one ply) is caught.
LADDER = tree(
    2,
    "root Left Left1\nroot Right Right1\n"
    + "\n".join(f"{s}{n} go {s}{n + 1}" for s in ("Left", "Right") for n in range(1, 8)),
    "\n".join(
        f"{s}{n} {5 if (n // 2 % 2 == 1) == (s == 'Left') else 1}"
        for s in ("Left", "Right")
        for n in range(2, 9, 2)
    ),
)


@pytest.mark.parametrize("kind", [MINIMAX, ALPHABETA, EXPECTIMAX])
@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_depth_one_to_four(kind, depth):
    action, calls = play(kind, LADDER, depth)
    assert action == ("Left" if depth % 2 else "Right")
    assert calls == _ladder_calls("Left", depth) + _ladder_calls("Right", depth)


def test_full_binary_tree_depth_two_alpha_beta_against_minimax():
    # Depth 2, one ghost, two moves everywhere: 16 leaves valued 1..16 in a scrambled order.
    order = [9, 3, 14, 6, 1, 12, 7, 16, 2, 11, 5, 15, 8, 4, 13, 10]
    rows, values = [], []

    def grow(name: str, level: int) -> None:
        if level == 4:
            values.append(f"{name} {order[int(name[1:], 2)]}")
            return
        for move in "01":
            rows.append(f"{name if level else 'root'} m{move} {'n' + name[1:] + move}")
            grow("n" + name[1:] + move, level + 1)

    grow("n", 0)
    full = tree(2, "\n".join(rows), "\n".join(values))
    minimax_action, minimax_calls = play(MINIMAX, full, 2)
    alphabeta_action, alphabeta_calls = play(ALPHABETA, full, 2)
    assert len(minimax_calls) == 30
    assert minimax_action == alphabeta_action == "m0"
    # Left: min(max(min(9,3), min(14,6)), max(min(1,12), min(7,16))) = min(6, 7) = 6.
    # Right: min(max(min(2,11), min(5,15)), ...) = 5 at most.
    assert search(full.start, SearchConfig(MINIMAX, 2), scoreEvaluationFunction).value == 6
    assert alphabeta_calls == lines(
        """
        0 root m0 n0
        1 n0 m0 n00
        0 n00 m0 n000
        1 n000 m0 n0000
        1 n000 m1 n0001
        0 n00 m1 n001
        1 n001 m0 n0010
        1 n001 m1 n0011
        1 n0 m1 n01
        0 n01 m0 n010
        1 n010 m0 n0100
        1 n010 m1 n0101
        0 n01 m1 n011
        1 n011 m0 n0110
        1 n011 m1 n0111
        0 root m1 n1
        1 n1 m0 n10
        0 n10 m0 n100
        1 n100 m0 n1000
        0 n10 m1 n101
        1 n101 m0 n1010
        """
    )


def test_arguments_from_the_command_line_are_strings():
    agent = AlphaBetaAgent(depth="3", evalFn="better")
    assert agent.depth == 3 and agent.evaluation_function is betterEvaluationFunction
    assert (
        MinimaxAgent().depth == 2 and MinimaxAgent().evaluation_function is scoreEvaluationFunction
    )
    custom = ExpectimaxAgent(evalFn=lambda state: 0.0, depth=1)
    assert custom.evaluation_function(None) == 0.0
    for bad in ("0", "two", -1):
        with pytest.raises(AgentError, match="depth"):
            MinimaxAgent(depth=bad)
    with pytest.raises(AgentError, match="evalFn=nonsense: unknown evaluation function"):
        MinimaxAgent(evalFn="nonsense")


def test_stats_count_nodes_and_evaluations():
    agent = AlphaBetaAgent(depth=1)
    agent.get_action(LECTURE.start)
    agent.getAction(LECTURE.start)
    assert (agent.stats.moves, agent.stats.nodes, agent.stats.evaluations) == (2, 20, 14)
    assert agent.stats.summary().startswith("2 moves, 20 nodes (10/move), 14 evaluations, ")


def test_search_rejects_bad_arguments():
    with pytest.raises(AgentError, match="unknown kind 'negamax'"):
        search(LECTURE.start, SearchConfig("negamax", 1), scoreEvaluationFunction)
    with pytest.raises(AgentError, match=r"config is a SearchConfig .*, not 2$"):
        search(LECTURE.start, 2, scoreEvaluationFunction)
    with pytest.raises(AgentError, match="no legal action in state A"):
        search(LECTURE.state("A"), SearchConfig(depth=1), scoreEvaluationFunction)


def test_medium_classic_start_depth_two_matches_cs188():
    # CS188's figures: depth-2 minimax from the mediumClassic start makes 72 successor calls
    # that touch 59 distinct states (its "explored" count); depth 4 makes 8,361 calls.
    from pacman.layout import load_layout
    from pacman.state import GameState

    start = GameState.initial(load_layout("mediumClassic"))
    log = ExpansionLog()
    assert MinimaxAgent(depth=2).get_action(log.wrap(start)) == "West"
    assert (len(log), log.explored_count()) == (72, 59)
    assert [e.agent_index for e in log][:4] == [0, 1, 2, 0]
    assert search(start, SearchConfig(MINIMAX, 4), scoreEvaluationFunction).nodes == 8361
    log.clear()
    assert AlphaBetaAgent(depth=2).get_action(log.wrap(start)) == "West"
    assert (len(log), log.explored_count()) == (44, 39)


# ------------------------------------------------------------- the anytime agent


def test_anytime_agent_solves_a_small_tree_and_stops_deepening():
    agent = AnytimeAgent(time="5", evalFn="scoreEvaluationFunction")
    # The ladder ends after 4 rounds: depth 5 finds no state cut off, so deepening stops there.
    assert agent.get_action(LADDER.start) == "Right"
    assert agent.stats.depths == [5]
    assert agent.stats.moves == 1
    assert agent.stats.summary().endswith(", depth 5.0 on average (5-5)")
    # The table holds numbers only (hashes), never states.
    assert all(isinstance(key[0], int) for key in agent.table)


@pytest.mark.parametrize(("game", "minimax_action"), [(TWO_GHOSTS, "L"), (LECTURE, "Left")])
def test_anytime_agent_at_a_fixed_depth_agrees_with_minimax(game, minimax_action):
    agent = AnytimeAgent(time=5, evalFn="scoreEvaluationFunction", max_depth="1")
    assert agent.get_action(game.start) == minimax_action
    assert agent.stats.depths == [1]


def test_anytime_agent_puts_off_a_loss():
    # Both moves lose; "Later" loses a round later and with a lower score, and is still preferred.
    doomed = tree(
        2,
        "root Now n\nroot Later l\nn g dead1\nl g l2\nl2 go l3\nl3 g dead2",
        "dead1 -1\ndead2 -2\nl2 -1.5",
        lose="dead1 dead2",
    )
    agent = AnytimeAgent(time=5, evalFn="score")
    assert agent.get_action(doomed.start) == "Later"
    assert agent.stats.depths == [
        2
    ]  # depth 1 prefers "Now" (-1 against -1.5); depth 2 sees both losses
    assert AlphaBetaAgent(depth=3).get_action(doomed.start) == "Now"  # CS188's agents do not


def test_anytime_agent_arguments():
    agent = AnytimeAgent(time="0.2", evalFn="better")
    assert agent.time_budget == 0.2 and agent.evaluation_function is betterEvaluationFunction
    for bad in ({"time": "soon"}, {"time": 0}, {"max_depth": "0"}):
        ((key, value),) = bad.items()
        with pytest.raises(AgentError, match=f"^bad argument {key}={value}: {key} must be "):
            AnytimeAgent(**bad)


# ------------------------------------------------------------- chance with probabilities


def weighted_play(agent, game: GameTree) -> tuple[str, list[str]]:
    log = ExpansionLog()
    action = agent.get_action(log.wrap(game.start))
    return action, [f"{e.agent_index} {e.parent} {e.action} {e.child}" for e in log]


# The notes' chance node: children 8, 24, -12 with probabilities 1/2, 1/3, 1/6.
NOTES = tree(2, "root go c\nc a A 1/2\nc b B 1/3\nc c C 1/6", "A 8\nB 24\nC -12")


def test_the_notes_chance_node_is_worth_10():
    found = search(
        NOTES.start, SearchConfig(EXPECTIMAX, 1, NOTES.ghost_model), scoreEvaluationFunction
    )
    assert found[:4] == ("go", 10.0, 4, 3)
    assert (found.values, found.pv, found.depth) == ({"go": 10.0}, ("go",), 1)
    # Averaged uniformly it would be 20/3: the probabilities are what makes it 10.
    assert search(NOTES.start, SearchConfig(EXPECTIMAX, 1), scoreEvaluationFunction).value == 20 / 3


# Left's chance node is worth 8/2 + 24/3 - 12/6 = 10; Right's 30/10 + 6*9/10 + 0*F = 8.4, and
# F (probability 0) is never generated. Averaged uniformly: 20/3 against 12, so Right.
WEIGHTED = tree(
    2,
    """
    root Left c1
    root Right c2
    c1 a A 1/2
    c1 b B 1/3
    c1 c C 1/6
    c2 a D 0.1
    c2 b E 0.9
    c2 c F 0
    """,
    "A 8\nB 24\nC -12\nD 30\nE 6\nF 0",
)


def test_weighted_expectimax_value_action_and_expansion_order():
    agent = ExpectimaxAgent(depth=1, ghostModel=WEIGHTED.ghost_model)
    assert weighted_play(agent, WEIGHTED) == (
        "Left",
        lines(
            """
            0 root Left c1
            1 c1 a A
            1 c1 b B
            1 c1 c C
            0 root Right c2
            1 c2 a D
            1 c2 b E
            """
        ),
    )
    found = search(
        WEIGHTED.start, SearchConfig(EXPECTIMAX, 1, WEIGHTED.ghost_model), scoreEvaluationFunction
    )
    assert found.value == 10.0
    assert ExpectimaxAgent(depth=1).get_action(WEIGHTED.start) == "Right"


# Ghost 1 is MIN, ghost 2 chance. x1 = 0*0.9 + 20*0.1 = 2, x2 = 12, m1 = min = 2;
# x3 = 6/3 + 3*2/3 = 4, x4 = 5, m2 = 4: Right, worth 4. Uniform chance would pick Left
# (m1 = 10 against 4.5), every ghost MIN Right at 3, the layers swapped Left.
MIXED = tree(
    3,
    """
    root Left m1
    root Right m2
    m1 a x1
    m1 b x2
    x1 a A 0.9
    x1 b B 0.1
    x2 a C 1/2
    x2 b D 1/2
    m2 a x3
    m2 b x4
    x3 a E 1/3
    x3 b F 2/3
    x4 a G 1
    """,
    "A 0\nB 20\nC 12\nD 12\nE 6\nF 3\nG 5",
)
MIXED_ALL = """
    0 root Left m1
    1 m1 a x1
    2 x1 a A
    2 x1 b B
    1 m1 b x2
    2 x2 a C
    2 x2 b D
    0 root Right m2
    1 m2 a x3
    2 x3 a E
    2 x3 b F
    1 m2 b x4
    2 x4 a G
"""


def test_expectiminimax_mixed_layers_value_action_and_expansion_order():
    agent = ExpectiminimaxAgent(depth=1, layers="min,chance", ghostModel=MIXED.ghost_model)
    assert weighted_play(agent, MIXED) == ("Right", lines(MIXED_ALL))
    assert agent.stats.nodes == 13
    value = search(
        MIXED.start,
        SearchConfig(EXPECTIMINIMAX, 1, MIXED.ghost_model, (MIN, CHANCE)),
        scoreEvaluationFunction,
    ).value
    assert value == 4.0
    assert ExpectiminimaxAgent(depth=1, layers="min:chance").get_action(MIXED.start) == "Left"
    assert MinimaxAgent(depth=1).get_action(MIXED.start) == "Right"
    swapped = ExpectiminimaxAgent(depth=1, layers=["chance", "min"], ghostModel=MIXED.ghost_model)
    assert swapped.get_action(MIXED.start) == "Left"


def test_expectiminimax_with_all_min_or_all_chance_layers_is_minimax_or_expectimax():
    for game in (LECTURE, TIED, MIXED):
        layers = ("min",) * (game.num_agents - 1)
        assert play(MINIMAX, game, 2) == weighted_play(
            ExpectiminimaxAgent(depth=2, layers=layers), game
        )
        assert play(EXPECTIMAX, game, 2) == weighted_play(
            ExpectiminimaxAgent(depth=2, layers=",".join(["chance"] * len(layers))), game
        )


def test_uniform_model_is_cs188s_average_to_the_bit():
    from agents.models import uniform

    for game in (LECTURE, WEIGHTED, MIXED):
        for depth in (1, 2):
            plain = search(game.start, SearchConfig(EXPECTIMAX, depth), scoreEvaluationFunction)
            named = ExpectimaxAgent(depth=depth, ghostModel="uniform")
            assert named.ghost_model is uniform
            assert weighted_play(named, game) == play(EXPECTIMAX, game, depth)
            assert (
                search(
                    game.start, SearchConfig(EXPECTIMAX, depth, uniform), scoreEvaluationFunction
                )
                == plain
            )


def test_layers_and_ghost_models_are_checked():
    with pytest.raises(AgentError, match="layers=min,max: 'max' is neither min nor chance"):
        ExpectiminimaxAgent(layers="min,max")
    with pytest.raises(AgentError, match="layers=min: 1 entries for 2 ghost"):
        ExpectiminimaxAgent(depth=1, layers="min").get_action(MIXED.start)
    with pytest.raises(
        AgentError, match="ghostModel=nonsense: unknown ghost model; known: uniform, directional"
    ):
        ExpectimaxAgent(ghostModel="nonsense")
    with pytest.raises(
        AgentError, match=r"probabilities for agent 1 in state c sum to 0\.5, not 1"
    ):
        search(
            NOTES.start,
            SearchConfig(EXPECTIMAX, 1, lambda s, i: {"a": 0.5}),
            scoreEvaluationFunction,
        )
    with pytest.raises(AgentError, match="'z' with probability 1 for agent 1 in state c"):
        search(
            NOTES.start, SearchConfig(EXPECTIMAX, 1, lambda s, i: {"z": 1}), scoreEvaluationFunction
        )


def test_expectiminimax_without_layers_alternates_min_and_chance():
    assert (
        ExpectiminimaxAgent(depth=1, ghostModel=MIXED.ghost_model).get_action(MIXED.start)
        == "Right"
    )


def test_ordered_alpha_beta_plays_minimax_and_counts_every_successor_call():
    # Sorting a node's children means generating them all first; nodes counts those calls.
    from pacman.layout import load_layout
    from pacman.state import GameState

    start = GameState.initial(load_layout("mediumClassic"))
    counts = []
    for depth in (2, 3):
        log = ExpansionLog()
        found = search(
            log.wrap(start),
            SearchConfig(ALPHABETA, depth, ordering=EVALUATION),
            betterEvaluationFunction,
        )
        right = search(start, SearchConfig(MINIMAX, depth), betterEvaluationFunction)
        assert (found.action, found.value) == (right.action, right.value)
        assert found.nodes == len(log)
        counts.append(found.nodes)
    assert counts == [51, 262]
