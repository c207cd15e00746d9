"""A game as one self-contained HTML page that replays it in any browser.

``HtmlReplay("game.html")`` is a game observer, like the frame recorder: it
keeps every move (agents' positions, facing, scared timers, score, food and
capsules eaten) and, when the game ends, writes one file whose script draws
the maze as the window draws it (wall tubes, Pac-Man, ghosts, the score bar)
on a canvas. Play/pause (Space), step (arrow keys), a scrub bar, a speed
choice, and, when they were recorded, the agents' marks and the search overlay
(V) with each root action's value, the principal variation, depth and nodes.
Nothing is fetched; it needs no pygame.

With several games, game 1 goes to ``FILE.html``, game 2 to ``FILE-2.html``...
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pacman.view.board_page import BODY, SCRIPT, STYLE
from pacman.view.html import json_block, page
from pacman.view.themes import FLASH_BELOW, GAME_OVER_RED, get_theme

if TYPE_CHECKING:
    from pacman.game import GameResult
    from pacman.state import GameState, Position

__all__ = ["HtmlReplay", "ReplayData", "ending", "replay_page", "write_replay"]


def _hex(color: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*color)


def _agents(state: GameState) -> list[list[Any]]:
    found = []
    for index in range(state.get_num_agents()):
        agent = state.get_pacman_state() if index == 0 else state.get_ghost_state(index)
        x, y = agent.get_position()
        found.append([x, y, agent.get_direction(), agent.scared_timer])
    return found


#: A crash reason that says a time limit ended the game: the game's own limits ("Pac-Man
#: (X) timed out on move 3: ...", "... ran out of time on move 3: ..."), the grader's ("Your
#: code timed out: ...") or a sandboxed agent's ("... crashed on move 3: timed out in its
#: sandbox: ..."). Only those leading clauses count: the agent's own error text comes after.
_TIME_LIMIT = re.compile(r"^(?:[^:]* crashed [^:]*: )?[^:]*\b(?:timed out|ran out of time)\b")


def ending(win: bool, lose: bool, crash: str | None) -> str:
    """How a game ended, as its replay's title says: win, lose, timed out, crash or stop
    (a move limit, or a record that ends there)."""
    if win:
        return "win"
    if lose:
        return "lose"
    if crash:
        return "timed out" if _TIME_LIMIT.match(crash) else "crash"
    return "stop"


class ReplayData:
    """A game observer that keeps every move as a replay page draws it (``data``, JSON-ready):
    the walls, food and capsules at the start, then per move the agents, the score, what was
    eaten and, when they changed, the agents' notes. The live view sends the same data."""

    def __init__(
        self,
        *,
        theme: Any = "classic",
        agent_name: str | None = None,
        frame_time: float = 0.1,
        values: bool = False,
    ) -> None:
        self.theme = get_theme(theme)
        self.agent_name = agent_name
        self.frame_time = frame_time
        self.values = values
        #: The game being kept (``None`` before a game starts).
        self.data: dict[str, Any] | None = None
        self._food: set[Position] = set()
        self._capsules: set[Position] = set()
        self._pending: int | None = None

    def initialize(self, state: GameState) -> None:
        layout = state.layout
        self._food = set(state.get_food_positions())
        self._capsules = set(state.get_capsules())
        self._pending = None
        walls = layout.walls
        self.data = {
            "layout": layout.name,
            "agent": self.agent_name or "",
            "width": layout.width,
            "height": layout.height,
            # Row strings from the top, as a layout file is written: '%' a wall.
            "walls": [
                "".join("%" if walls[x][y] else " " for x in range(layout.width))
                for y in range(layout.height - 1, -1, -1)
            ],
            "food": sorted(self._food),
            "capsules": sorted(self._capsules),
            "frames": [{"p": _agents(state), "s": state.get_score()}],
            "notes": [],
            "frame_time": self.frame_time,
            "values": self.values,
            "flash_below": FLASH_BELOW,
            "theme": _theme_data(self.theme),
        }

    def annotate(self, notes: Any) -> None:
        """Marks and search results: kept once, referred to by the frames that show them."""
        if self.data is None:
            return
        self.data["notes"].append(notes.to_json())
        self._pending = len(self.data["notes"]) - 1

    def update(self, state: GameState, agent_index: int, action: str) -> None:
        if self.data is None:
            return
        frame: dict[str, Any] = {
            "a": agent_index,
            "m": action,
            "p": _agents(state),
            "s": state.get_score(),
        }
        food = set(state.get_food_positions())
        if food != self._food:
            frame["e"] = sorted(self._food - food)
            self._food = food
        capsules = set(state.get_capsules())
        if capsules != self._capsules:
            frame["c"] = sorted(self._capsules - capsules)
            self._capsules = capsules
        if self._pending is not None:
            frame["n"] = self._pending
            self._pending = None
        self.data["frames"].append(frame)

    def end(self, state: GameState, result: GameResult, recorded: dict[str, Any] | None) -> str:
        """How the game ended (kept in the data as ``end``); ``recorded``: the record replayed."""
        crash = result.crash if result.crashed else None
        if recorded is not None:  # a replayed record: its own end, not the replayer's
            crash = recorded.get("crash")
        finished = ending(state.is_win(), state.is_lose(), crash)
        if self.data is not None:
            self.data["end"] = finished
        return finished


def _theme_data(theme: Any) -> dict[str, Any]:
    """The theme's colours as the page's script reads them."""
    names = (
        "background",
        "wall",
        "wall_fill",
        "food",
        "capsule",
        "pacman",
        "scared",
        "scared_face",
        "flash",
        "flash_face",
        "eye",
        "pupil",
        "text",
        "score",
    )
    return {name: _hex(getattr(theme, name)) for name in names} | {
        "ghosts": [_hex(c) for c in theme.ghosts],
        "game_over": _hex(GAME_OVER_RED),
    }


class HtmlReplay(ReplayData):
    """A game observer that writes the game as a self-contained HTML replay when it ends."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        theme: Any = "classic",
        agent_name: str | None = None,
        frame_time: float = 0.1,
        values: bool = False,
    ) -> None:
        super().__init__(theme=theme, agent_name=agent_name, frame_time=frame_time, values=values)
        self.path = Path(path)
        #: Files written so far, in order.
        self.written: list[Path] = []
        self._games = 0
        #: The game record being replayed (by :func:`write_replay`): a record cut short by a
        #: crash or a time limit replays to its last move and then stops on its replayer.
        self.recorded: dict[str, Any] | None = None

    def _file(self) -> Path:
        if self._games == 1:
            return self.path
        return self.path.with_name(f"{self.path.stem}-{self._games}{self.path.suffix or '.html'}")

    def initialize(self, state: GameState) -> None:
        self._games += 1
        super().initialize(state)

    def finish(self, state: GameState, result: GameResult) -> None:
        if self.data is None:
            return
        self.end(state, result, self.recorded)
        from pacman.outputs import write_atomically

        target = self._file()
        write_atomically(target, replay_page(self.data))
        self.written.append(target)
        self.data = None

    def close(self) -> None:
        """Nothing to flush: each game's file is written whole when it ends."""


def write_replay(record: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """A game record (as ``--record`` writes it) as an HTML replay page at ``path``."""
    from pacman.records import replay

    page = HtmlReplay(path, agent_name=record.get("pacman"))
    page.recorded = record
    replay(record, [page])
    return Path(path)


def replay_page(data: dict[str, Any]) -> str:
    """The HTML page for a game's replay data (as :class:`ReplayData` collects it)."""
    title = f"{data.get('agent') or 'Pac-Man'} on {data['layout']}"
    return page(
        title,
        STYLE,
        json_block("replay-data", data) + BODY.format(title=html.escape(title)),
        SCRIPT,
    )
