"""Grade Pac-Man multi-agent code: ``python autograder.py [CS188 flags]``."""

import os
import sys

# Copied into a CS188 course folder, this script sits beside the course's own pacman.py,
# which would hide the installed grader: there, its folder is the student's, not code to import.
_HERE = os.path.dirname(os.path.realpath(__file__))
if not os.path.isdir(os.path.join(_HERE, "pacman", "grading")):
    sys.path[:] = [entry for entry in sys.path if os.path.realpath(entry or ".") != _HERE]

from pacman.grade_cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
