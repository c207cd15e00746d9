"""Play Pac-Man yourself: arrow keys or WASD in the pygame window.

The agent reads the keys the open window records (``take_direction()`` of the key
source it registered in :mod:`pacman.controls`), so it needs that window: run ``pacman`` without
``-t``/``-q``. Pac-Man keeps going the way it was last sent, as in the
arcade: a held key keeps it moving, and a turn asked for before a junction
is taken as soon as it becomes possible; Q stops it. Until the first key
is pressed the game waits.
"""

from __future__ import annotations

from typing import Any

from pacman import controls
from pacman.agent import Agent
from pacman.directions import STOP
from pacman.errors import AgentError

__all__ = ["KeyboardAgent"]


class KeyboardAgent(Agent):
    """Pac-Man steered from the keyboard through the pygame window.

    ``window`` is anything with ``take_direction() -> str | None`` and
    ``idle(notice)`` (the ``PygameDisplay``); by default the window that is
    open when the first move is asked for.
    """

    def __init__(self, index: int = 0, window: Any = None) -> None:
        super().__init__(index)
        self.window = window
        self.wanted: str | None = None  # the direction last asked for with a key
        self.last_move: str = STOP

    def register_initial_state(self, state: Any) -> None:
        self.wanted = None
        self.last_move = STOP

    def _window(self) -> Any:
        if self.window is None:
            self.window = controls.key_source()
        if self.window is None:
            raise AgentError(
                "KeyboardAgent needs the pygame window to read keys: run without -t/-q on a "
                "machine with a display, or choose another agent with -p"
            )
        return self.window

    def get_action(self, state: Any) -> str:
        window = self._window()
        key = window.take_direction()
        while key is None and self.wanted is None:  # the game waits for the player's first key
            window.idle("press an arrow key or WASD to start")
            key = window.take_direction()
        if key is not None:
            self.wanted = key
        legal = state.get_legal_actions(self.index)
        wanted = self.wanted
        if wanted is not None and wanted in legal:
            move = wanted
        elif self.last_move in legal and self.last_move != STOP:
            move = self.last_move  # keep going until the asked-for turn opens up
        else:
            move = STOP
        self.last_move = move
        return move
