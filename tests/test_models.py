"""Ghost models: the directional model is DirectionalGhost's own distribution."""

from __future__ import annotations

import random

import pytest

from agents.models import DirectionalModel, directional, resolve_ghost_model, uniform
from agents.search import ExpectimaxAgent
from pacman.errors import AgentError
from pacman.ghosts import DirectionalGhost, RandomGhost
from pacman.layout import load_layout
from pacman.state import GameState


def random_states(count: int, seed: int) -> list[tuple[GameState, int]]:
    """(state, ghost to move) pairs met in random play on three mazes, each game cut short."""
    rng = random.Random(seed)
    found: list[tuple[GameState, int]] = []
    layouts = [load_layout(name) for name in ("mediumClassic", "smallClassic", "capsuleClassic")]
    while len(found) < count:
        state = GameState.initial(rng.choice(layouts))
        agent = 0
        for _ in range(rng.randrange(20, 400)):
            if state.is_win() or state.is_lose():
                break
            if agent and state.get_legal_actions(agent):
                found.append((state, agent))
            state = state.generate_successor(agent, rng.choice(state.get_legal_actions(agent)))
            agent = (agent + 1) % state.get_num_agents()
    return found[:count]


def test_directional_model_is_directional_ghosts_distribution_on_1000_random_states():
    states = random_states(1000, seed=7)
    scared = 0
    for state, index in states:
        ghost = DirectionalGhost(index)
        assert directional(state, index) == ghost.get_distribution(state)
        assert uniform(state, index) == RandomGhost(index).get_distribution(state)
        scared += state.get_ghost_state(index).scared_timer > 0
        brave = DirectionalGhost(index, prob_attack=0.5, prob_scaredFlee=0.3)
        model = DirectionalModel(prob_attack=0.5, prob_scaredFlee=0.3)
        assert model(state, index) == brave.get_distribution(state)
    # Scared ghosts (which flee, at half speed) are among them.
    assert scared == 159


def test_models_are_found_by_name_or_given_as_callables():
    assert resolve_ghost_model("directional") is directional
    assert resolve_ghost_model(" uniform ") is uniform
    assert resolve_ghost_model("agents.models:directional") is directional
    mine = lambda state, ghost: {}  # noqa: E731
    assert resolve_ghost_model(mine) is mine
    with pytest.raises(AgentError, match=r"ghostModel=agents\.models\.nothing: cannot import it"):
        resolve_ghost_model("agents.models.nothing")


def test_expectimax_with_the_directional_model_from_the_start_of_medium_classic():
    start = GameState.initial(load_layout("mediumClassic"))
    weighted = ExpectimaxAgent(depth=2, ghostModel="directional")
    plain = ExpectimaxAgent(depth=2)
    assert weighted.get_action(start) == plain.get_action(start) == "West"
    # Every ghost action has a probability above 0, so both generate the same children.
    assert (weighted.stats.nodes, plain.stats.nodes) == (72, 72)
