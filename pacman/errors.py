"""One exception family for every mistake a user or an agent can make.

Messages name the input and the place, so the CLI can print ``str(error)`` as a
single line and exit 2 instead of showing a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn


class PacmanError(Exception):
    """Base class of every error this project raises on purpose."""


class LayoutError(PacmanError):
    """A layout file or text is malformed; the message names file, line and column."""


class IllegalActionError(PacmanError):
    """An agent asked for an action that is not legal in the state, or moved a finished game."""


class AgentError(PacmanError):
    """An agent could not be found, built, or it crashed, timed out or misbehaved."""


class UsageError(PacmanError):
    """A command-line flag or argument is wrong; the message names the flag."""


class DisplayUnavailable(PacmanError):
    """No window can be opened (no display, or pygame missing); the message says how to fix it.

    ``reason`` is the cause alone, for a caller whose fix differs from the message's hint.
    """

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = message if reason is None else reason


class AgentCrashed(AgentError):
    """An agent raised, timed out or played an illegal move during a game."""


class AgentExited(AgentCrashed):
    """An agent's code called ``sys.exit``: the run stops, naming the agent and the line."""


def machine_problem(error: OSError) -> str:
    """An error of the machine (a full disk, a folder that cannot be made) in one line,
    naming the path: the user's to fix, not a bug to show a traceback for."""
    where = error.filename if error.filename is not None else None
    reason = error.strerror or str(error)
    return f"{where}: {reason}" if where is not None else reason


def run_script(main: Callable[[], object], prog: str) -> NoReturn:
    """Run a script's ``main``: a PacmanError is one line on stderr and exit 2, Ctrl-C 130."""
    try:
        main()
    except PacmanError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(0)
