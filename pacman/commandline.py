"""What the project's command lines share: an argument parser whose mistakes are one line.

``pacman``, ``pacman tree`` and the autograder each turn argv into options with a
:class:`CommandParser`; a flag given wrong is a :class:`~pacman.errors.UsageError` naming
it, which the command prints as one line (exit 2), never argparse's usage block.
"""

from __future__ import annotations

import argparse
import math
from typing import NoReturn

from pacman.errors import UsageError


class CommandParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` raising :class:`UsageError` instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


#: The largest --frameTime (seconds), -z/--zoom and --timeout (seconds) taken: beyond them a
#: clock or a screen cannot hold the value (a window 10x the board's size is ~10,000 px wide).
MAX_FRAME_TIME, MAX_ZOOM, MAX_TIMEOUT = 60.0, 10.0, 86_400.0


def check_amount(flag: str, number: float, most: float, *, zero: bool = False) -> float:
    """``number`` if it is finite, positive (or 0 where ``zero``) and at most ``most``; else a
    UsageError naming ``flag``. argparse's ``float`` takes "nan" and "inf", which no clock,
    CPU limit or screen can hold."""
    if not math.isfinite(number):
        raise UsageError(f"{flag} {number}: must be a finite number")
    if number < 0 or (number == 0 and not zero):
        raise UsageError(f"{flag} {number:g}: must be {'at least 0' if zero else 'positive'}")
    if number > most:
        raise UsageError(f"{flag} {number:g}: must be at most {most:g}")
    return number
