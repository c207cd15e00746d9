"""The agent protocol: an ``index`` and one method that picks an action."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pacman.compat import Twinned
from pacman.errors import AgentError


class Agent(Twinned):
    """Base class of every agent. Override ``get_action`` or CS188's ``getAction``.

    Whichever spelling a subclass overrides, both reach it (see ``pacman.compat.Twinned``).
    """

    def __init__(self, index: int = 0) -> None:
        self.index = index

    @property
    def display_name(self) -> str:
        """The name games, records and reports show for this agent: its class's."""
        return vars(self).get("_display_name", type(self).__name__)

    @display_name.setter
    def display_name(self, name: str) -> None:
        # An agent written before this name existed may set it: it must not crash for that.
        vars(self)["_display_name"] = name

    def get_action(self, state: Any) -> str:
        raise AgentError(f"{self.display_name} defines neither get_action nor getAction")

    getAction = get_action

    # Drawing on the board: shown in the window, GIFs, frames and HTML replays; never raises.

    def draw_cells(
        self, cells: Iterable[Any], color: Any = (255, 0, 0), clear: bool = False
    ) -> None:
        """Mark ``cells`` (``(x, y)`` pairs) in ``color``; ``clear`` first removes earlier marks.

        ``color`` is ``(r, g, b)`` in 0-255 or fractions 0-1 (CS188's contest), or ``#rrggbb``.
        """
        from pacman.marks import draw_cells

        draw_cells(self, cells, color, clear)

    def clear_drawing(self) -> None:
        """Remove every mark this agent drew."""
        from pacman.marks import clear_drawing

        clear_drawing(self)

    def debug_draw(
        self, cells: Iterable[Any], color: Any = (255, 0, 0), clear: bool = False
    ) -> None:
        """CS188 contest's name for :meth:`draw_cells`."""
        self.draw_cells(cells, color, clear)

    def debug_clear(self) -> None:
        """CS188 contest's name for :meth:`clear_drawing`."""
        self.clear_drawing()

    drawCells = draw_cells
    clearDrawing = clear_drawing
    debugDraw = debug_draw
    debugClear = debug_clear

    def __repr__(self) -> str:
        return f"{type(self).__name__}(index={getattr(self, 'index', '?')})"


def display_name(agent: object) -> str:
    """The name games, records and reports show for ``agent``: its ``display_name`` (an
    :class:`Agent`'s class, a sandboxed agent's student class), else its class's name (agents
    need not derive from :class:`Agent`)."""
    name = getattr(agent, "display_name", None)
    return name if isinstance(name, str) else type(agent).__name__


def _overridden(agent: object, snake: str, camel: str) -> Callable[..., Any] | None:
    """The agent's method under either spelling, preferring the one its class defines itself."""
    cls = type(agent)
    for name in (snake, camel):
        for klass in cls.__mro__:
            if klass is Agent or klass is object:
                break
            if name in vars(klass):
                return getattr(agent, name)
    return None


def action_method(agent: object) -> Callable[[Any], str]:
    """The callable that asks ``agent`` for an action, whichever spelling it implements."""
    method = _overridden(agent, "get_action", "getAction")
    if method is None:
        raise AgentError(f"agent {display_name(agent)} has no get_action or getAction method")
    return method


def hook(agent: object, snake: str, camel: str) -> Callable[[Any], Any] | None:
    """An optional hook such as ``register_initial_state``/``registerInitialState``, if defined."""
    return _overridden(agent, snake, camel)
