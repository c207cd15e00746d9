"""Stand-ins for CS188's ``util`` and ``game`` modules, for student files.

The student worker registers these as the top-level modules ``util`` and
``game`` before it imports a submission, so ``from util import
manhattanDistance`` and ``from game import Agent, Directions`` work unchanged.
They are never on ``sys.path`` of the grader itself.
"""
