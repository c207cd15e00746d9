"""A finished game kept: its JSON line, its replayable record (``--record``), and playing a
record back move for move (``--replay``, the HTML replay, the notebook)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pacman.errors import PacmanError
from pacman.game import GameResult
from pacman.layout import Layout, parse_layout

RECORD_FORMAT = "pacman-game-record"
RECORD_VERSION = 1


def json_line(index: int, result: GameResult, extra: dict[str, Any] | None = None) -> str:
    """One game as a JSON line: its index in the batch first, so the batch's order can be restored."""
    return json.dumps({"index": index, **result.to_json(), **(extra or {})}) + "\n"


def game_record(result: GameResult, layout: Layout, num_ghosts: int) -> dict[str, Any]:
    """A replayable record of a finished game."""
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "layout": layout.name,
        "layout_rows": list(layout.rows),
        "num_ghosts": num_ghosts,
        "pacman": result.pacman,
        "ghosts": result.ghosts,
        "seed": result.seed,
        "actions": [[agent, action] for agent, action in result.actions],
        "score": result.score,
        "win": result.win,
        "moves": result.moves,
        "crash": result.crash,
        "truncated": result.truncated,
        # What agents drew and Pac-Man's searches found, when kept: replays show them too.
        **({"notes": [[move, data] for move, data in result.notes]} if result.notes else {}),
    }


class _Replayer:
    """Plays the record's next move when it is this agent's; otherwise ends the replay.

    With ``notes``, puts the record's marks and search results on ``board`` (Pac-Man's
    replayer) just before the move they were recorded at, so the game hands them to
    observers as it did when the game was played.
    """

    def __init__(
        self,
        index: int,
        moves: Iterator[tuple[int, str]],
        notes: _RecordedNotes | None = None,
    ) -> None:
        self.index = index
        self.moves = moves
        self.notes = notes

    def get_action(self, state: Any) -> str:
        agent, action = next(self.moves, (None, None))
        if agent != self.index or action is None:
            raise _RecordEnd("the record has no move for this agent here")
        if self.notes is not None:
            try:
                self.notes.before_move()
            except Exception:  # notes only decorate a replay: a malformed one never stops it
                self.notes = None
        return action


class _RecordedNotes:
    """A record's ``notes``, replayed onto the Pac-Man replayer move by move."""

    def __init__(self, notes: list[Any]) -> None:
        self.by_move: dict[int, dict[str, Any]] = {}
        for entry in notes:
            # A hand-edited record's odd entry is skipped: notes only decorate the replay.
            if (
                isinstance(entry, list)
                and len(entry) == 2
                and isinstance(entry[0], int)
                and isinstance(entry[1], dict)
            ):
                self.by_move[entry[0]] = entry[1]
        self.move = 0
        self.board: Any = None
        self._search_data: Any = None

    def before_move(self) -> None:
        from pacman.marks import clear_drawing, draw_cells

        self.move += 1
        data = self.by_move.get(self.move)
        if data is None or self.board is None:
            return
        clear_drawing(self.board)
        for mark in data.get("marks") or []:
            if isinstance(mark, list) and len(mark) == 3:
                draw_cells(self.board, [mark[:2]], mark[2])
        search = data.get("search")
        if search != self._search_data:  # a new search: a new result object, as live
            self._search_data = search
            self.board.last_result = _recorded_result(search) if isinstance(search, dict) else None


def _recorded_result(search: dict[str, Any]) -> Any:
    """A search result rebuilt from a record (``None`` values, infinities, become NaN)."""
    from types import SimpleNamespace

    values = {}
    given = search.get("values")
    for action, value in (given if isinstance(given, dict) else {}).items():
        values[str(action)] = float(value) if isinstance(value, (int, float)) else math.nan
    return SimpleNamespace(
        action=search.get("action"),
        value=values.get(str(search.get("action")), math.nan),
        values=values,
        pv=tuple(a for a in search.get("pv") or () if isinstance(a, str))
        if isinstance(search.get("pv"), list)
        else (),
        depth=search.get("depth"),
        nodes=search.get("nodes"),
    )


class _RecordEnd(PacmanError):
    """The record has no move for the agent to move (used up, or another agent's)."""


def load_record(path: str | os.PathLike[str], named: str | None = None) -> dict[str, Any]:
    """Read and check a game record written by ``--record``; errors name it as ``named`` (the
    caller's words for the input, ``--replay PATH`` by default)."""
    named = named or f"--replay {path}"
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise PacmanError(f"{named}: cannot read ({error.strerror})") from None
    except json.JSONDecodeError as error:
        raise PacmanError(
            f"{named} line {error.lineno} column {error.colno}: not JSON ({error.msg})"
        ) from None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise PacmanError(f'{named}: not a game record (no "format": "{RECORD_FORMAT}")')
    for key in ("layout", "layout_rows", "num_ghosts", "actions"):
        if key not in record:
            raise PacmanError(f"{named}: the record has no {key!r}")
    for key, wanted, fits in _RECORD_FIELDS:
        if key in record and not fits(record[key]):
            raise PacmanError(f"{named}: the record's {key!r} is not {wanted}")
    return record


def _all(kind: Any, value: Any, test: Any = None) -> bool:
    """Whether ``value`` is a list of ``kind`` (each passing ``test``)."""
    return isinstance(value, list) and all(
        isinstance(item, kind) and (test is None or test(item)) for item in value
    )


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _pair(pair: list[Any]) -> bool:
    return len(pair) == 2 and _whole(pair[0]) and isinstance(pair[1], str)


#: What each field of a record must be, checked before the replay reads it.
_RECORD_FIELDS: tuple[tuple[str, str, Any], ...] = (
    ("layout", "a name", lambda value: isinstance(value, str)),
    ("layout_rows", "a list of rows of text", lambda rows: _all(str, rows)),
    ("num_ghosts", "a whole number", _whole),
    ("actions", "a list of [agent, action] pairs", lambda actions: _all(list, actions, _pair)),
    ("seed", "a whole number or null", lambda seed: seed is None or _whole(seed)),
    ("score", "a number", lambda score: _whole(score) or isinstance(score, float)),
    ("pacman", "a name", lambda value: isinstance(value, str)),
    ("ghosts", "a list of names", lambda names: _all(str, names)),
)


def _first_unplayed(record: dict[str, Any], result: GameResult, count: int) -> str:
    """Why the replay stopped before the record's end, in the record's terms (not the replayer's)."""
    played = result.moves
    agent, action = record["actions"][played]
    who = "Pac-Man" if agent == 0 else f"ghost {agent}"
    if result.final_state is not None and result.final_state.is_terminal():
        why = "the game is already over"
    elif agent != played % count:
        why = f"it is {'Pac-Man' if played % count == 0 else f'ghost {played % count}'}'s turn"
    else:
        why = "it is not a legal move there"
    return f"move {played + 1} of {len(record['actions'])} ({who} {action}) cannot be played: {why}"


def replay(record: dict[str, Any], observers: Sequence[object] = ()) -> GameResult:
    """Play a record back move for move; the result's score must equal the recorded one."""
    # Here, not above: reading or writing a record needs none of the runner's machinery.
    from pacman.runner import GameSpec, play

    layout = parse_layout("\n".join(record["layout_rows"]), name=record["layout"])
    count = 1 + min(max(0, record["num_ghosts"]), layout.num_ghosts)
    moves = iter([(agent, action) for agent, action in record["actions"]])
    notes = _RecordedNotes(record["notes"]) if isinstance(record.get("notes"), list) else None
    agents = [_Replayer(index, moves, notes) for index in range(count)]
    if notes is not None:
        notes.board = agents[0]  # what the game reads marks and last_result from
    # Seeded as the game was, so observers that draw see what they saw.
    spec = GameSpec(
        layout=layout.name,
        loaded_layout=layout,
        num_ghosts=count - 1,
        seed=record.get("seed"),
        catch_exceptions=True,
    )
    result = play(spec, observers, agents[0], agents[1:])
    if result.moves != len(record["actions"]):
        raise PacmanError(f"does not replay: {_first_unplayed(record, result, count)}")
    # A record cut short (crash, move limit) ends on the exhausted replayer, not on a crash of its own.
    result.crashed = bool(record.get("crash"))
    result.crash = record.get("crash")
    result.truncated = bool(record.get("truncated"))
    result.pacman = record.get("pacman", "replay")
    result.ghosts = list(record.get("ghosts", []))
    return result
