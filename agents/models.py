"""Ghost models: what a searching Pac-Man believes each ghost will do.

A ghost model is any callable ``(state, ghost_index) -> {action: probability}``
giving the ghost's legal actions their probabilities in ``state`` (actions
left out count as probability 0). The chance layers of
:func:`agents.search.search` weigh each child by it, and ``MCTSAgent`` draws
ghost moves from it. Two are built in and found by name (``-a
ghostModel=directional``):

- ``uniform``: every legal action alike, as ``RandomGhost`` moves and as
  CS188's expectimax averages (the default);
- ``directional``: exactly the distribution ``DirectionalGhost`` draws from,
  0.8 on the moves that bring it nearest Pac-Man (farthest when scared).

``module.name`` (or ``module:name``) names a model of one's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.evaluation import resolve_callable
from pacman.ghosts import directional_distribution

__all__ = [
    "GHOST_MODELS",
    "DirectionalModel",
    "GhostModel",
    "directional",
    "resolve_ghost_model",
    "uniform",
]

GhostModel = Callable[[Any, int], dict[str, float]]


def uniform(state: Any, ghost_index: int) -> dict[str, float]:
    """Each legal action of the ghost with the same probability."""
    actions = state.get_legal_actions(ghost_index)
    if not actions:
        return {}
    share = 1.0 / len(actions)
    return dict.fromkeys(actions, share)


class DirectionalModel:
    """``DirectionalGhost(prob_attack, prob_scaredFlee)``'s distribution, as a ghost model."""

    def __init__(self, prob_attack: float = 0.8, prob_scaredFlee: float = 0.8) -> None:
        self.prob_attack = float(prob_attack)
        self.prob_scared_flee = float(prob_scaredFlee)

    def __call__(self, state: Any, ghost_index: int) -> dict[str, float]:
        return directional_distribution(state, ghost_index, self.prob_attack, self.prob_scared_flee)

    def __repr__(self) -> str:
        return f"DirectionalModel({self.prob_attack}, {self.prob_scared_flee})"


directional = DirectionalModel()

#: The names ``ghostModel=`` accepts without a module.
GHOST_MODELS: dict[str, GhostModel] = {"uniform": uniform, "directional": directional}


def resolve_ghost_model(spec: GhostModel | str) -> GhostModel:
    """The ghost model ``spec`` names (a callable is returned as it is)."""
    return resolve_callable(spec, GHOST_MODELS, "ghostModel", "ghost model")
