"""Agent arguments checked where the agent is built, each error naming the argument and value.

``-a simulations=abc`` arrives as the string ``"abc"``; from Python it may be a number. Each
function here turns one argument into its value or raises one
:class:`~pacman.errors.AgentError` line such as ``bad argument c=nan: c must be a finite
number``, so a mistake is reported when the agent is made, never as a crash on move 1.

>>> whole_number("simulations", "200", minimum=1)
200
>>> real_number("c", "0.7", minimum=0)
0.7
>>> real_number("c", "nan", minimum=0)
Traceback (most recent call last):
...
pacman.errors.AgentError: bad argument c=nan: c must be a finite number
"""

from __future__ import annotations

import math

from pacman.errors import AgentError

__all__ = ["real_number", "whole_number"]


def _refuse(name: str, value: object, rule: str) -> AgentError:
    return AgentError(f"bad argument {name}={value}: {name} must be {rule}")


def whole_number(name: str, value: int | float | str, *, minimum: int | None = None) -> int:
    """``value`` as an int (``"3"`` or ``3``); an AgentError naming ``name`` otherwise."""
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise _refuse(name, value, "a whole number")
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise _refuse(name, value, "a whole number") from None
    if minimum is not None and number < minimum:
        raise _refuse(name, value, f"at least {minimum}")
    return number


def real_number(
    name: str, value: float | str, *, minimum: float | None = None, positive: bool = False
) -> float:
    """``value`` as a finite float; ``minimum`` bounds it below, ``positive`` refuses 0 too."""
    if isinstance(value, bool):
        raise _refuse(name, value, "a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise _refuse(name, value, "a number") from None
    if not math.isfinite(number):
        raise _refuse(name, value, "a finite number")
    if positive and number <= 0:
        raise _refuse(name, value, "positive")
    if minimum is not None and number < minimum:
        raise _refuse(name, value, f"at least {minimum:g}")
    return number
