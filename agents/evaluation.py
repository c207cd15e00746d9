"""Evaluation functions ``(state) -> float`` for the search agents, found by name.

``resolve_evaluation`` turns what a user typed (``evalFn=better``) into a
callable: a name listed in :data:`EVALUATION_FUNCTIONS`, or ``module.name`` /
``module:name`` for a function of one's own.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Union

from pacman.errors import AgentError

__all__ = [
    "EVALUATION_FUNCTIONS",
    "better",
    "betterEvaluationFunction",
    "resolve_evaluation",
    "scoreEvaluationFunction",
]

Evaluation = Callable[[Any], float]
EvalSpec = Union[Evaluation, str]  # noqa: UP007 (a runtime alias; `|` with a str needs 3.10 objects)


def scoreEvaluationFunction(currentGameState: Any) -> float:  # noqa: N802, N803 (CS188's names)
    """The state's game score: CS188's default evaluation."""
    return currentGameState.get_score()


def betterEvaluationFunction(currentGameState: Any) -> float:  # noqa: N802, N803 (CS188's names)
    """A state evaluation strong enough for CS188's q5; see the module docstring."""
    raise NotImplementedError


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
    if callable(spec):
        return spec
    if not isinstance(spec, str):
        raise AgentError(f"evalFn must be a function or a name, got {spec!r}")
    name = spec.strip()
    found = EVALUATION_FUNCTIONS.get(name)
    if found is not None:
        return found
    module_name, sep, attribute = name.replace(":", ".").rpartition(".")
    if sep:
        try:
            found = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError) as error:
            raise AgentError(f"evalFn={name}: cannot import it ({error})") from None
        if callable(found):
            return found
        raise AgentError(f"evalFn={name}: {attribute} is not a function")
    known = ", ".join(EVALUATION_FUNCTIONS)
    raise AgentError(f"evalFn={name}: unknown evaluation function; known: {known} (or module.name)")
