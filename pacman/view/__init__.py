"""Displays: ``text`` needs nothing; ``pygame_view``, ``draw`` and ``frames`` need pygame."""
