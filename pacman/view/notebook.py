"""Games in Jupyter, JupyterLab, VS Code notebooks and Colab: ``pacman.show(...)``.

``show(layout, pacman, ...)`` plays a game in the notebook's output: live where the front end
updates outputs (every one named above does: each round is drawn by the window's own drawing
code and sent as a PNG in place of the last, which needs pygame), then the finished game as
the HTML replay, embedded whole in the output (play, step, scrub, values), so it needs no
server and stays in the saved notebook. ``show(record)`` (a record's dict or its ``.json``
file) shows a recorded game the same way. Outside a notebook nothing is shown: the returned
:class:`ShownGame` has the result and the replay.

Nothing here is imported by ``import pacman``; IPython is imported only inside a notebook.
"""

from __future__ import annotations

import html
import io
import os
import time
from pathlib import Path
from typing import Any

from pacman.commandline import MAX_FRAME_TIME, check_amount
from pacman.view.html_replay import ReplayData, replay_page

__all__ = ["ShownGame", "embed", "show"]


def embed(page: str, height: int) -> str:
    """A whole HTML page as an ``<iframe srcdoc>`` that a notebook output can hold."""
    return (
        f'<iframe srcdoc="{html.escape(page, quote=True)}" '
        f'style="width:100%;height:{height}px;border:0" title="Pac-Man"></iframe>'
    )


class ShownGame:
    """A game shown in a notebook: its ``result`` and its replay ``data`` (as the replay page
    embeds it). In a notebook the cell's output already holds the game, so the object itself
    shows a one-line summary there; anywhere else its HTML is the replay."""

    def __init__(self, result: Any, data: dict[str, Any], shown: bool) -> None:
        self.result = result
        self.data = data
        self.shown = shown

    @property
    def frames(self) -> int:
        """The replay's frames: the start and one per move."""
        return len(self.data["frames"])

    def page(self) -> str:
        """The replay as one self-contained HTML page."""
        return replay_page(self.data)

    def summary(self) -> str:
        result = self.result
        how = "won" if result.win else "lost" if result.lose else "stopped on"
        return (
            f"{self.data.get('agent') or 'Pac-Man'} {how} {self.data['layout']}: "
            f"score {result.score:g} in {result.moves} moves"
        )

    def _repr_html_(self) -> str:
        if self.shown:
            return f"<p>{html.escape(self.summary())}</p>"
        return embed(self.page(), _height(self.data))

    def __repr__(self) -> str:
        return f"<ShownGame: {self.summary()}>"


def _height(data: dict[str, Any]) -> int:
    """An output tall enough for the board at about 30 pixels a cell and the controls."""
    return 170 + round((data["height"] + 1.2) * 30)


class _Live:
    """Draws each round as a PNG into the notebook's output, at most one per ``frame_time``."""

    def __init__(self, handle: Any, image: Any, frame_time: float, values: bool, name: str):
        from pacman.view import draw  # needs pygame: without it there is no live picture

        self._draw = draw
        self._handle, self._image = handle, image
        self.frame_time, self.values, self.name = frame_time, values, name
        self._notes: Any = None
        self._moves = 0
        self._last = 0.0

    def _show(self, state: Any, force: bool = False) -> None:
        wait = self.frame_time - (time.monotonic() - self._last)
        if wait > 0 and not force:
            time.sleep(wait)
        caption = f"{self.name}  move {self._moves}" if self.name else f"move {self._moves}"
        surface = self._draw.render(
            state, caption=caption, notes=self._notes, overlay=self.values, banner=None
        )
        buffer = io.BytesIO()
        self._draw.pygame.image.save(surface, buffer, "frame.png")
        self._handle.update(self._image(data=buffer.getvalue(), format="png"))
        self._last = time.monotonic()

    def initialize(self, state: Any) -> None:
        self._moves = 0
        self._show(state, force=True)

    def annotate(self, notes: Any) -> None:
        self._notes = notes

    def update(self, state: Any, agent_index: int, action: str) -> None:
        self._moves += 1
        if agent_index == state.get_num_agents() - 1 or state.is_terminal():
            self._show(state)  # once a round: every agent has moved


def _notebook() -> Any:
    """IPython's display module when running in a notebook's kernel, else None."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return None
    import IPython.display

    return IPython.display


def show(
    layout: Any = "mediumClassic",
    pacman: str = "GreedyAgent",
    ghosts: str = "RandomGhost",
    *,
    agent_args: dict[str, Any] | str | None = None,
    num_ghosts: int = 4,
    seed: int | None = None,
    max_moves: int | None = None,
    frame_time: float = 0.05,
    values: bool = False,
    live: bool = True,
) -> ShownGame:
    """Play a game (or show a record: its dict or ``.json`` path as ``layout``) in a notebook.

    The names are the ``pacman`` command's: ``show("smallClassic", "AlphaBetaAgent",
    agent_args="depth=2", seed=1, values=True)``. ``live=False`` shows only the replay.
    """
    check_amount("frame_time", frame_time, MAX_FRAME_TIME, zero=True)
    display = _notebook()
    handle = None
    observers: list[Any] = []
    record = _record(layout)
    name = record.get("pacman") if record else pacman
    data = ReplayData(agent_name=name, frame_time=frame_time, values=values)
    observers.append(data)
    if display is not None:
        handle = display.display(_bundle("Pac-Man: starting..."), raw=True, display_id=True)
        if live:
            try:
                observers.append(_Live(handle, display.Image, frame_time, values, name or ""))
            except Exception:  # no pygame: the replay alone, at the end
                handle.update(
                    _bundle("Pac-Man: playing (install pygame to watch it live)"), raw=True
                )
    if record is not None:
        from pacman.records import replay

        result = replay(record, observers)
    else:
        result = _play(layout, pacman, ghosts, agent_args, num_ghosts, seed, max_moves, observers)
    # Played here, not in a worker (whose results alone drop their final state).
    assert result.final_state is not None
    data.end(result.final_state, result, record)
    assert data.data is not None
    shown = ShownGame(result, data.data, shown=handle is not None)
    if handle is not None:
        # Raw, as IPython's HTML() warns of an <iframe> in it.
        handle.update(_bundle(shown.summary(), embed(shown.page(), _height(shown.data))), raw=True)
    return shown


def _bundle(text: str, markup: str | None = None) -> dict[str, str]:
    """A notebook output: its text, and its HTML (the text in a paragraph without one)."""
    return {"text/plain": text, "text/html": markup or f"<p>{html.escape(text)}</p>"}


def _record(game: Any) -> dict[str, Any] | None:
    """A game record from its dict or its file's path, or None for a layout."""
    if isinstance(game, dict):
        return game
    if isinstance(game, (str, os.PathLike)) and str(game).endswith(".json"):
        from pacman.records import load_record

        return load_record(Path(game), f"pacman.show({str(game)!r})")
    return None


def _play(
    layout: Any,
    pacman: str,
    ghosts: str,
    agent_args: dict[str, Any] | str | None,
    num_ghosts: int,
    seed: int | None,
    max_moves: int | None,
    observers: list[Any],
) -> Any:
    import random

    from pacman.loading import parse_agent_args
    from pacman.runner import GameSpec, play

    if isinstance(agent_args, str) or agent_args is None:
        agent_args = parse_agent_args(agent_args)
    rows = getattr(layout, "rows", None)  # a Layout made in the notebook travels as its text
    spec = GameSpec(
        layout=getattr(layout, "name", layout),
        layout_text="\n".join(rows) if rows is not None else None,
        pacman=pacman,
        pacman_args={key: str(value) for key, value in agent_args.items()},
        ghost=ghosts,
        num_ghosts=num_ghosts,
        seed=random.SystemRandom().randrange(2**31) if seed is None else seed,
        max_moves=max_moves,
        catch_exceptions=True,
    )
    return play(spec, observers)
