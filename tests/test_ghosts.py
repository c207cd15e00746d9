"""Ghost policies: CS188's distributions, its one-draw sampling, and its recorded game."""

from __future__ import annotations

import json
import random

import pytest
from short_games import EastFirst

from pacman.agent import Agent
from pacman.game import Game
from pacman.ghosts import DirectionalGhost, GhostAgent, RandomGhost, sample
from pacman.layout import load_layout, parse_layout
from pacman.state import GameState

OPEN = "%%%%%%%\n%%%.%%%\n%%.G.P%\n%%%.%%%\n%%%%%%%"


class FixedDraws(random.Random):
    def __init__(self, *draws: float) -> None:
        super().__init__(0)
        self.draws = list(draws)

    def random(self) -> float:
        return self.draws.pop(0)


def test_random_ghost_is_uniform_over_legal_actions():
    state = GameState.initial(parse_layout(OPEN))
    assert RandomGhost(1).get_distribution(state) == {
        a: 0.25 for a in ("West", "East", "North", "South")
    }


def test_directional_ghost_puts_0_8_on_the_chasing_moves():
    state = GameState.initial(parse_layout(OPEN))
    distribution = DirectionalGhost(1).get_distribution(state)
    assert distribution == pytest.approx({"East": 0.85, "West": 0.05, "North": 0.05, "South": 0.05})
    assert sum(distribution.values()) == pytest.approx(1.0)


def test_a_scared_directional_ghost_flees():
    state = GameState.initial(parse_layout("%%%%%%%%\n%%%%.%%%\n%%%.GoP%\n%%%%.%%%\n%%%%%%%%"))
    state = state.generate_successor(0, "West")  # eats the capsule, next to the ghost
    distribution = DirectionalGhost(1).get_distribution(state)
    # Half-speed moves: all but East end 1.5 from Pac-Man, East 0.5.
    flee = 0.8 / 3 + 0.2 / 4
    assert distribution == pytest.approx({"West": flee, "North": flee, "South": flee, "East": 0.05})


def test_one_draw_walks_the_actions_in_name_order():
    distribution = {"West": 0.05, "East": 0.85, "North": 0.05, "South": 0.05}
    # Name order: East 0.85, North 0.90, South 0.95, West 1.00; a draw equal to a bound stays.
    draws = [0.0, 0.85, 0.8500001, 0.9, 0.93, 0.99]
    rng = FixedDraws(*draws)
    assert [sample(distribution, rng) for _ in draws] == [
        "East",
        "East",
        "North",
        "North",
        "South",
        "West",
    ]


def test_ghosts_draw_from_the_generator_they_are_given():
    state = GameState.initial(parse_layout(OPEN))
    ghost = RandomGhost(1, rng=FixedDraws(0.3, 0.6))
    assert [ghost.get_action(state), ghost.get_action(state)] == ["North", "South"]


def test_cs188_recorded_game_replays_move_for_move(berkeley):
    """q2/8-pacman-game: seed 0, then seed + k after Pac-Man's k-th move, first optimal actions."""
    folder = berkeley / "test_cases" / "q2"
    test_text = (folder / "8-pacman-game.test").read_text()
    solution = (folder / "8-pacman-game.solution").read_text()
    layout = parse_layout(test_text.split('layout: """')[1].split('"""')[0], "smallClassic")
    block = solution.split('optimalActions: """')[1].split('"""')[0]
    actions = [json.loads(line)[0][0][0] for line in block.strip().splitlines()]

    rng = random.Random(0)

    class Recorded(Agent):
        played = 0

        def get_action(self, state):
            self.played += 1
            return actions[self.played - 1]

    class Reseed:
        def update(self, state, agent_index, action):
            if agent_index == 0:
                rng.seed(0 + pacman.played)

    pacman = Recorded()
    ghosts = [DirectionalGhost(1, rng=rng), DirectionalGhost(2, rng=rng)]
    result = Game(GameState.initial(layout, 2), [pacman, *ghosts], observers=[Reseed()]).run()
    assert (result.pacman_moves, result.moves) == (146, 436)
    assert result.lose and not result.win
    assert result.score == 84.0
    assert result.pacman_moves == len(actions)


def test_the_cs188_spelling_of_get_distribution_is_the_distribution():
    state = GameState.initial(parse_layout(OPEN))
    assert DirectionalGhost(1).getDistribution(state) == pytest.approx(
        {"East": 0.85, "West": 0.05, "North": 0.05, "South": 0.05}
    )
    assert RandomGhost(1).getDistribution(state) == RandomGhost(1).get_distribution(state)


class LastChoiceGhost(GhostAgent):
    """Written as a CS188 ghost: only ``getDistribution``, camelCase calls throughout."""

    def __init__(self, index):
        super().__init__(index)
        self.asked = 0

    def getDistribution(self, state):
        self.asked += 1
        legal = state.getLegalActions(self.index)
        return {action: (1.0 if action == legal[-1] else 0.0) for action in legal}


def test_a_cs188_ghost_overriding_only_getDistribution_plays_through_getAction():
    start = GameState.initial(load_layout("smallClassic"), 2)
    ghosts = [LastChoiceGhost(1), LastChoiceGhost(2)]
    result = Game(start, [EastFirst(), *ghosts], max_moves=12).run()
    assert result.pacman_moves == 12 and not result.crashed
    state, ghost_moves = start, 0
    for index, action in result.actions:
        if index > 0:
            assert action == state.get_legal_actions(index)[-1]
            ghost_moves += 1
        state = state.generate_successor(index, action)
    assert ghost_moves == result.moves - 12
    assert ghosts[0].asked + ghosts[1].asked == ghost_moves
    assert LastChoiceGhost(2).getAction(start) == start.getLegalActions(2)[-1]  # CS188's call


def test_a_cs188_override_may_call_the_base_distribution_under_either_spelling():
    class Cautious(DirectionalGhost):
        def getDistribution(self, state):
            base = super().getDistribution(state)
            return {action: p for action, p in base.items() if action != "South"}

    class CautiousToo(DirectionalGhost):
        def getDistribution(self, state):
            return {a: p for a, p in super().get_distribution(state).items() if a != "South"}

    state = GameState.initial(parse_layout(OPEN))
    expected = {"East": 0.85, "West": 0.05, "North": 0.05}
    for ghost in (Cautious(1), CautiousToo(1)):
        assert ghost.get_distribution(state) == pytest.approx(expected)
        assert ghost.getDistribution(state) == pytest.approx(expected)


def test_random_ghosts_fast_draw_picks_what_the_distribution_walk_picks():
    import random

    from pacman.ghosts import GhostAgent, RandomGhost
    from pacman.layout import load_layout
    from pacman.state import GameState

    walk = random.Random(5)
    state = GameState.initial(load_layout("mediumClassic"))
    compared = set()
    for step in range(4000):
        if state.is_terminal():
            state = GameState.initial(load_layout("mediumClassic"))
        index = step % state.get_num_agents()
        if index:
            fast, generic = (
                RandomGhost(index, random.Random(step)),
                RandomGhost(index, random.Random(step)),
            )
            assert fast.get_action(state) == GhostAgent.get_action(generic, state)
            compared.add(len(state.get_legal_actions(index)))
        state = state.generate_successor(index, walk.choice(state.get_legal_actions(index)))
    assert compared == {1, 2, 3}  # every number of choices a ghost has (never Stop or back)
