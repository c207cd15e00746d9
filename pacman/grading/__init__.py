"""The autograder: CS188-format test suites, run against sandboxed student code.

Importing this package is cheap. Its command line (``autograder.py``, ``pacman autograde``)
sits with the other commands, in :mod:`pacman.grade_cli`.
"""
