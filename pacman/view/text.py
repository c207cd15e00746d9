"""The text display: the board in a terminal, redrawn in place.

On a terminal each frame replaces the previous one (no scrolling flood);
when output is not a terminal (a log, a pipe) each frame is printed as
plain lines.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

_HOME_AND_CLEAR = "\x1b[H\x1b[J"


class TextDisplay:
    """Game observer that draws ``str(state)`` after every round of moves."""

    def __init__(
        self,
        frame_time: float = 0.0,
        stream: TextIO | None = None,
        every_move: bool = False,
    ) -> None:
        self.frame_time = frame_time
        self.stream = stream if stream is not None else sys.stdout
        self.every_move = every_move
        self.in_place = bool(getattr(self.stream, "isatty", lambda: False)())
        self.moves = 0

    def _draw(self, state: Any, note: str = "") -> None:
        prefix = _HOME_AND_CLEAR if self.in_place else ""
        self.stream.write(f"{prefix}{state}  moves: {self.moves}{note}\n")
        self.stream.flush()

    def initialize(self, state: Any) -> None:
        self.moves = 0
        self._draw(state)

    def update(self, state: Any, agent_index: int, action: str) -> None:
        self.moves += 1
        last_agent = agent_index == state.get_num_agents() - 1
        if self.every_move or last_agent or state.is_win() or state.is_lose():
            self._draw(state)
            if self.frame_time:
                time.sleep(self.frame_time)

    def finish(self, state: Any, result: Any) -> None:
        outcome = (
            "win" if result.win else "crash" if result.crashed else "loss" if result.lose else "end"
        )
        self._draw(state, f"  ({outcome})")
