"""Grade Pac-Man multi-agent code: ``python autograder.py [CS188 flags]``."""

import sys

from pacman.grading import main

if __name__ == "__main__":
    sys.exit(main())
