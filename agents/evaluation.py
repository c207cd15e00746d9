"""Evaluation functions ``(state) -> float`` for the search agents, found by name.

``resolve_evaluation`` turns what a user typed (``evalFn=better``) into a
callable: a name listed in :data:`EVALUATION_FUNCTIONS`, or ``module.name`` /
``module:name`` for a function of one's own.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from agents.features import ghost_distances, nearest_food_distance, scared_times
from pacman.errors import AgentError

__all__ = [
    "EVALUATION_FUNCTIONS",
    "better",
    "betterEvaluationFunction",
    "resolve_evaluation",
    "scoreEvaluationFunction",
]

Evaluation = Callable[[Any], float]
EvalSpec = Evaluation | str


def scoreEvaluationFunction(currentGameState: Any) -> float:
    """The state's game score: CS188's default evaluation."""
    return currentGameState.get_score()


# Weights of betterEvaluationFunction, in points (the game's own unit).
FOOD_WEIGHT = 20.0  # per dot left: with the +10 for eating, a dot is worth more than any detour
FOOD_DISTANCE_WEIGHT = 1.5  # per move to the nearest dot: the pull toward food
CAPSULE_WEIGHT = 60.0  # per capsule left: a capsule opens the way to +200 ghosts
HUNT_BONUS = 150.0  # a scared ghost Pac-Man can reach in time, less...
HUNT_DISTANCE_WEIGHT = 5.0  # ...this per move to it (below the 200 it scores when eaten)
DANGER_PENALTY = 400.0  # a dangerous ghost one move away (or less)
NEAR_DANGER_PENALTY = 40.0  # a dangerous ghost two moves away
LOSS_PENALTY = 5000.0  # on top of the game's -500: never trade a loss for points


def betterEvaluationFunction(currentGameState: Any) -> float:
    """The score, plus what it will likely become: food, capsules and ghosts by maze distance.

    Terms (weights above): the game score; each dot left costs FOOD_WEIGHT and
    the walk to the nearest dot FOOD_DISTANCE_WEIGHT a move, so eating always
    pays; each capsule left costs CAPSULE_WEIGHT; a scared ghost that Pac-Man
    can reach before its timer ends is a bonus shrinking with distance; an
    unscared ghost one or two moves away is a penalty. A won game is worth its
    score; a lost one LOSS_PENALTY less than its score and dots, so losing
    never looks like a way to be rid of the dots left, however many there are.
    """
    state = currentGameState
    value = state.get_score() - FOOD_WEIGHT * state.get_num_food()
    if state.is_win():
        return value
    if state.is_lose():
        return value - LOSS_PENALTY
    value -= FOOD_DISTANCE_WEIGHT * nearest_food_distance(state)
    value -= CAPSULE_WEIGHT * len(state.get_capsules())
    for distance, scared in zip(ghost_distances(state), scared_times(state), strict=True):
        if scared > distance:
            value += HUNT_BONUS - HUNT_DISTANCE_WEIGHT * distance
        elif distance <= 1:
            value -= DANGER_PENALTY
        elif distance <= 2:
            value -= NEAR_DANGER_PENALTY
    return value


better = betterEvaluationFunction

#: The names ``evalFn=`` accepts without a module.
EVALUATION_FUNCTIONS: dict[str, Evaluation] = {
    "scoreEvaluationFunction": scoreEvaluationFunction,
    "score": scoreEvaluationFunction,
    "betterEvaluationFunction": betterEvaluationFunction,
    "better": betterEvaluationFunction,
}


def resolve_evaluation(spec: EvalSpec) -> Evaluation:
    """The evaluation function ``spec`` names (a callable is returned as it is)."""
    return resolve_callable(spec, EVALUATION_FUNCTIONS, "evalFn", "evaluation function")


def resolve_callable(spec: Any, known: dict[str, Any], flag: str, what: str) -> Any:
    """``spec`` if callable, else the entry of ``known`` it names, else ``module.name`` imported.

    ``flag`` and ``what`` name the argument in errors (``evalFn``, ``evaluation function``).
    """
    if callable(spec):
        return spec
    if not isinstance(spec, str):
        raise AgentError(f"{flag} must be a function or a name, got {spec!r}")
    name = spec.strip()
    found = known.get(name)
    if found is not None:
        return found
    module_name, sep, attribute = name.replace(":", ".").rpartition(".")
    if sep:
        try:
            found = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError) as error:
            raise AgentError(f"{flag}={name}: cannot import it ({error})") from None
        if callable(found):
            return found
        raise AgentError(f"{flag}={name}: {attribute} is not a function")
    names = ", ".join(known)
    raise AgentError(f"{flag}={name}: unknown {what}; known: {names} (or module.name)")
