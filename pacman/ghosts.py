"""Ghost policies with CS188's distributions and its one-draw sampling.

Each ghost computes a distribution over its legal actions, then picks with a
single ``rng.random()`` draw over the actions sorted by name, exactly as
CS188's ``util.chooseFromDistribution`` does, so seeded games replay CS188's
move for move. The float arithmetic (insertion-order sums, normalising twice
when a sum is not exactly 1) is reproduced on purpose.
"""

from __future__ import annotations

import random
from functools import lru_cache
from itertools import accumulate
from typing import Any

from pacman.agent import Agent
from pacman.directions import STOP, VECTORS
from pacman.errors import AgentError


def _normalised(weights: dict[str, float]) -> dict[str, float]:
    total = float(sum(weights.values()))
    if total == 0:
        return weights
    return {action: weight / total for action, weight in weights.items()}


def _summing_to_one(probabilities: list[float]) -> list[float]:
    """The probabilities divided by their sum where it is not exactly 1, as CS188 does."""
    if sum(probabilities) != 1:
        total = float(sum(probabilities))
        return [p / total for p in probabilities]
    return probabilities


def running_sums(distribution: dict[str, float]) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The actions in name order and the running sums of their probabilities, as
    :func:`sample` walks them (the batched engine tabulates these to draw alike)."""
    items = sorted(distribution.items())
    sums = tuple(accumulate(_summing_to_one([p for _, p in items])))
    return tuple(action for action, _ in items), sums


def sample(distribution: dict[str, float], rng: random.Random) -> str:
    """Draw an action with one ``rng.random()`` call, walking the actions in name order."""
    names, sums = running_sums(distribution)
    draw = rng.random()
    for name, bound in zip(names, sums, strict=True):
        if draw <= bound:
            return name
    raise IndexError("list index out of range")  # past the last sum, as CS188's walk fails


class GhostAgent(Agent):
    """A ghost that samples its action from ``get_distribution``."""

    def __init__(self, index: int, rng: random.Random | None = None) -> None:
        super().__init__(index)
        # The global generator by default, as CS188 ghosts use; the runner always hands one in.
        self.rng = rng if rng is not None else random._inst

    def get_distribution(self, state: Any) -> dict[str, float]:
        raise AgentError(
            f"{type(self).__name__} defines neither get_distribution nor getDistribution"
        )

    def get_action(self, state: Any) -> str:
        distribution = self.get_distribution(state)
        if not distribution:
            return STOP
        return sample(distribution, self.rng)

    # CS188's spelling; Agent links the two, so a subclass may override either one.
    getDistribution = get_distribution


@lru_cache(maxsize=8)
def _uniform_bounds(count: int) -> tuple[float, ...]:
    """The running sums :func:`sample` walks for ``count`` equally likely actions, computed
    with the same float operations, so the draw picks the same action."""
    return tuple(accumulate(_summing_to_one([1.0 / float(count)] * count)))


class RandomGhost(GhostAgent):
    """Moves uniformly at random among its legal actions."""

    def get_distribution(self, state: Any) -> dict[str, float]:
        return _normalised(dict.fromkeys(state.get_legal_actions(self.index), 1.0))

    def get_action(self, state: Any) -> str:
        if type(self).get_distribution is not RandomGhost.get_distribution:
            return super().get_action(state)  # a subclass with a distribution of its own
        # The uniform draw without building the distribution: the same rng.random() call
        # and the same running sums as sample(), a third of a random batch's time less.
        names = sorted(set(state.get_legal_actions(self.index)))
        if not names:
            return STOP
        draw = self.rng.random()
        for name, bound in zip(names, _uniform_bounds(len(names)), strict=True):
            if draw <= bound:
                return name
        raise IndexError("list index out of range")  # what sample() raises past the last sum


class DirectionalGhost(GhostAgent):
    """Chases Pac-Man (or flees when scared) with probability 0.8, else moves at random."""

    def __init__(
        self,
        index: int,
        prob_attack: float = 0.8,
        prob_scaredFlee: float = 0.8,  # CS188 spelling
        rng: random.Random | None = None,
    ) -> None:
        super().__init__(index, rng)
        self.prob_attack = float(prob_attack)
        self.prob_scared_flee = float(prob_scaredFlee)

    def get_distribution(self, state: Any) -> dict[str, float]:
        return directional_distribution(state, self.index, self.prob_attack, self.prob_scared_flee)


def directional_distribution(
    state: Any, index: int, prob_attack: float = 0.8, prob_scared_flee: float = 0.8
) -> dict[str, float]:
    """DirectionalGhost's distribution for ghost ``index`` in ``state`` (empty if it cannot move).

    A function of its own so that a search can weigh a ghost's moves exactly as the ghost
    draws them (``agents.models.directional``).
    """
    legal = state.get_legal_actions(index)
    if not legal:
        return {}
    scared = state.get_ghost_state(index).scared_timer > 0
    speed = 0.5 if scared else 1.0
    x, y = state.get_ghost_position(index)
    px, py = state.get_pacman_position()
    distances = [
        abs(x + VECTORS[a][0] * speed - px) + abs(y + VECTORS[a][1] * speed - py) for a in legal
    ]
    if scared:
        best_distance, best_probability = max(distances), prob_scared_flee
    else:
        best_distance, best_probability = min(distances), prob_attack
    best = [a for a, d in zip(legal, distances, strict=True) if d == best_distance]
    return directional_weights(legal, best, best_probability)


def directional_weights(
    legal: list[str], best: list[str], best_probability: float
) -> dict[str, float]:
    """``best`` share ``best_probability``, every ``legal`` action the rest (both in legal order)."""
    weights: dict[str, float] = {}
    for action in best:
        weights[action] = best_probability / len(best)
    for action in legal:
        weights[action] = weights.get(action, 0) + (1 - best_probability) / len(legal)
    return _normalised(weights)


GHOST_TYPES: dict[str, type[GhostAgent]] = {
    "RandomGhost": RandomGhost,
    "DirectionalGhost": DirectionalGhost,
}
#: The environments' short names of the same ghosts (``PacmanEnv(ghost="directional")``).
GHOST_ALIASES: dict[str, type[GhostAgent]] = {
    "random": RandomGhost,
    "directional": DirectionalGhost,
}
