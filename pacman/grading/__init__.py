"""The autograder: CS188-format test suites, run against sandboxed student code.

Importing this package is cheap; the heavy parts (the sandbox, the test kinds,
the command line) load when ``main`` is called.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None, prog: str = "autograder.py") -> int:
    """Run the autograder with command-line arguments; return the exit code.

    ``prog`` is how the user called it, for help and usage lines (``pacman autograde``).
    """
    from pacman.grading.autograder import main as _main

    return _main(argv, prog)
