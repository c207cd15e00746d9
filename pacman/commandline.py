"""What the project's command lines share: an argument parser whose mistakes are one line.

``pacman``, ``pacman tree`` and the autograder each turn argv into options with a
:class:`CommandParser`; a flag given wrong is a :class:`~pacman.errors.UsageError` naming
it, which the command prints as one line (exit 2), never argparse's usage block.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from pacman.errors import UsageError


class CommandParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` raising :class:`UsageError` instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")
