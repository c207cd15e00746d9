"""The turn loop: agents move in order until the game is won or lost.

Observers (displays, recorders) get ``initialize(state)``, ``update(state,
agent_index, action)`` after every move and ``finish(state, result)``; each
method is optional. An observer with ``annotate(notes)`` is also given the
agents' marks and Pac-Man's last search (:class:`pacman.marks.BoardNotes`)
just before the ``update`` of a move that changed them. An agent that raises,
runs out of time or plays an illegal move ends the game as a crash; with
``catch_exceptions=False`` the crash is raised as one ``AgentError`` whose
message says what happened.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from pacman import untrusted
from pacman.agent import action_method, display_name, hook
from pacman.errors import AgentCrashed, AgentError, IllegalActionError, PacmanError
from pacman.marks import collect as collect_notes
from pacman.seeding import GameSeeds, seed_game
from pacman.state import GameState

if TYPE_CHECKING:
    from pacman.layout import Layout


class QuitRequested(Exception):
    """Raised by an observer (a window being closed) to end the run cleanly."""


@dataclass
class GameResult:
    """How one game ended."""

    layout: str
    pacman: str
    ghosts: list[str]
    score: float
    win: bool
    lose: bool
    moves: int
    pacman_moves: int
    crashed: bool = False
    crash: str | None = None
    truncated: bool = False
    seconds: float = 0.0
    seed: int | None = None
    #: The Pac-Man agent's own statistics summary, when it keeps any (``--stats``).
    stats: str | None = None
    actions: list[tuple[int, str]] = field(default_factory=list, repr=False)
    #: With ``keep_notes``: ``(move, notes as JSON)`` each time the marks or Pac-Man's search
    #: changed (move N: just before observers see move N), for ``--record``.
    notes: list[tuple[int, dict[str, Any]]] = field(default_factory=list, repr=False)
    final_state: GameState | None = field(default=None, repr=False, compare=False)

    def _repr_html_(self) -> str:
        """In a notebook: how the game ended, in one line (``pacman.show`` shows the game)."""
        from html import escape

        how = (
            "won"
            if self.win
            else "lost"
            if self.lose
            else "crashed on"
            if self.crashed
            else "stopped on"
        )
        return (
            f"<p>{escape(self.pacman)} {how} {escape(self.layout)}: score {self.score:g} in "
            f"{self.moves} moves ({self.pacman_moves} by Pac-Man)</p>"
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON-lines record of the game (without its move list or final state).

        Built field by field: ``dataclasses.asdict`` would deep-copy the final state and
        every move only for them to be dropped, which made ``--json`` batches 4 times slower.
        """
        record = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _UNSAVED}
        record["ghosts"] = list(self.ghosts)
        return record


#: What a game's JSON line leaves out: the move list (``--record`` keeps it) and the state.
_UNSAVED = frozenset({"actions", "notes", "final_state"})


class _Overtime(BaseException):
    """Interrupts a move that overruns its limit; a BaseException so ``except Exception`` in agents cannot swallow it."""


@contextmanager
def _interrupt_after(seconds: float | None) -> Iterator[None]:
    """Raise _Overtime in the running move once ``seconds`` pass (main thread on POSIX only).

    Elsewhere the overrun is still detected when the move returns. A move that
    must be stopped whatever it does needs a separate process: the autograder's sandbox.
    """
    if (
        seconds is None
        or not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def overtime(signum: int, frame: object) -> None:
        raise _Overtime

    previous = signal.signal(signal.SIGALRM, overtime)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


#: This package's folder: frames in it are the engine's, never the place to show a user.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def where(error: BaseException) -> str:
    """`` at file.py:LINE`` of the innermost frame outside this package: the agent's own code.

    Generated code (``<string>``, such as the aliases of ``pacman.compat``) is skipped too.
    """
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith("<")
        and not os.path.abspath(frame.filename).startswith(_PACKAGE_DIR)
    ]
    if not frames:
        return ""
    frame = frames[-1]
    return f" at {os.path.basename(frame.filename)}:{frame.lineno}"


def describe(error: BaseException) -> str:
    """An agent's exception in one line: what it says and where in the agent's code.

    The project's own errors (an illegal action asked of a state...) are whole
    sentences naming the input, so their internal class names are left out.
    """
    if isinstance(error, PacmanError):
        text = str(error)
    else:
        text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    # The agent's own words may hold newlines and terminal escapes: shown escaped, on one line.
    return untrusted.line(text) + where(error)


class Game:
    """One game between a Pac-Man agent and ghost agents."""

    def __init__(
        self,
        state: GameState,
        agents: Sequence[object],
        *,
        observers: Iterable[object] = (),
        catch_exceptions: bool = False,
        move_timeout: float | None = None,
        game_timeout: float | None = None,
        max_moves: int | None = None,
        seed: int | None = None,
        secret: str = "",
        keep_notes: bool = False,
    ) -> None:
        if len(agents) < state.get_num_agents():
            raise AgentError(
                f"the layout {state.layout.name} has {state.get_num_agents()} agents "
                f"but only {len(agents)} were given"
            )
        for name, seconds in (("move_timeout", move_timeout), ("game_timeout", game_timeout)):
            # (A timer cannot hold NaN or infinity: they would reach it as an agent's crash. 0 is
            # a limit every move overruns.)
            if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
                raise PacmanError(
                    f"{name} must be a finite number of seconds, 0 or more, not {seconds!r}"
                )
        if max_moves is not None and max_moves < 1:
            raise PacmanError(f"max_moves must be at least 1 (None: no limit), not {max_moves!r}")
        self.initial_state = state
        self.agents = list(agents[: state.get_num_agents()])
        self.observers = list(observers)
        self.catch_exceptions = catch_exceptions
        self.move_timeout = move_timeout
        self.game_timeout = game_timeout
        self.max_moves = max_moves
        #: With a seed, the game hands each agent its own stream as it starts
        #: (:mod:`pacman.seeding`); the ghosts' depend on ``secret`` too.
        self.seed = seed
        self.secret = secret
        #: Keep the agents' marks and Pac-Man's search results in the result (``--record``).
        self.keep_notes = keep_notes

    def _name(self, index: int) -> str:
        who = "Pac-Man" if index == 0 else f"ghost {index}"
        return f"{who} ({display_name(self.agents[index])})"

    def _time_left(self, used: float) -> float | None:
        """How long the next move may take, a little over the limit so the check below names it."""
        limits = [
            self.move_timeout,
            None if self.game_timeout is None else self.game_timeout - used,
        ]
        known = [limit for limit in limits if limit is not None]
        return max(min(known), 0.0) + 0.05 if known else None

    def _overtime(self, index: int, move: int, elapsed: float, used: list[float]) -> str | None:
        """Why agent ``index`` is out of time after a move of ``elapsed`` seconds, or None."""
        used[index] += elapsed
        if self.move_timeout is not None and elapsed > self.move_timeout:
            return f"{self._name(index)} timed out on move {move}: {elapsed:.2f} s > {self.move_timeout:g} s"
        if self.game_timeout is not None and used[index] > self.game_timeout:
            return f"{self._name(index)} ran out of time on move {move}: {used[index]:.2f} s in total > {self.game_timeout:g} s"
        return None

    def _notify(self, method: str, *args: Any) -> None:
        for observer in self.observers:
            callback = getattr(observer, method, None)
            if callback is not None:
                callback(*args)

    def run(self) -> GameResult:
        """Play the game to its end (or its move limit, or a crash) and say how it ended."""
        return self.play().outcome()

    def play(self) -> GameEnd:
        """:meth:`run`, but a stop an observer asks for on the final board is handed back
        with the finished game instead of raised (the game counts, then the run stops)."""
        progress = _Progress(self.initial_state, len(self.agents))
        streams = None
        if self.seed is not None:
            streams = seed_game(self.agents, GameSeeds(self.seed, self.secret))

        def own_stream(index: int, method: Callable[..., Any]) -> Callable[..., Any]:
            return method if streams is None else streams.wrap(index, method)

        self._notify("initialize", progress.state)
        progress.crash = self._register(own_stream, progress)
        if progress.crash is None:
            self._play_moves(own_stream, progress)
        if progress.crash is None:
            progress.crash = self._final(own_stream, progress.state)
        return self._finish(progress)

    def _register(self, own_stream: Callable[..., Any], progress: _Progress) -> str | None:
        """Each agent's ``registerInitialState``; the crash it caused, if one did."""
        for index, agent in enumerate(self.agents):
            register = hook(agent, "register_initial_state", "registerInitialState")
            if register is None:
                continue
            tic = time.perf_counter()
            try:
                own_stream(index, register)(progress.state.copy())
            except Exception as error:
                return f"{self._name(index)} crashed in registerInitialState: {describe(error)}"
            progress.used[index] += time.perf_counter() - tic
        return None

    def _play_moves(self, own_stream: Callable[..., Any], progress: _Progress) -> None:
        """The turn loop: agents move in order until the game ends, one crashes, or Pac-Man
        has made ``max_moves``. Kept in one function: it runs a few hundred thousand times a
        batch, so what it needs is looked up once, into locals."""
        agents = self.agents
        state, used, actions = progress.state, progress.used, progress.actions
        choosers = [own_stream(i, action_method(agent)) for i, agent in enumerate(agents)]
        watchers = [
            update for observer in self.observers if (update := getattr(observer, "update", None))
        ]
        timed = self.move_timeout is not None or self.game_timeout is not None
        # Marks and search results go only to observers that show them, and only when changed.
        annotating = self.keep_notes or any(hasattr(o, "annotate") for o in self.observers)
        notes = None
        pacman_moves, index, crash = 0, 0, None
        while not state.is_terminal():
            if index == 0 and self.max_moves is not None and pacman_moves >= self.max_moves:
                progress.truncated = True
                break
            tic = time.perf_counter()
            try:
                if timed:
                    with _interrupt_after(self._time_left(used[index])):
                        action = choosers[index](state.copy())
                else:
                    action = choosers[index](state.copy())
            except _Overtime:
                action = None
            except Exception as error:
                crash = f"{self._name(index)} crashed on move {len(actions) + 1}: {describe(error)}"
                break
            if timed:
                crash = self._overtime(index, len(actions) + 1, time.perf_counter() - tic, used)
                if crash is not None:
                    break
            previous = state
            try:
                state = state.generate_successor(index, action)
            except IllegalActionError as error:
                move = len(actions) + 1
                crash = f"{self._name(index)} played an illegal move on move {move}: {error}"
                break
            actions.append((index, action))
            if index == 0:
                pacman_moves += 1
            if annotating:
                changed = collect_notes(agents, notes, searched=previous)
                if changed is not None:
                    notes = changed
                    if self.keep_notes:
                        progress.kept.append((len(actions), notes.to_json()))
                    self._notify("annotate", notes)
            for update in watchers:
                update(state, index, action)
            index = (index + 1) % len(agents)
        progress.state, progress.crash, progress.pacman_moves = state, crash, pacman_moves

    def _final(self, own_stream: Callable[..., Any], state: GameState) -> str | None:
        """Each agent's ``final``; the crash it caused, if one did."""
        for index, agent in enumerate(self.agents):
            final = hook(agent, "final", "final")
            if final is not None:
                try:
                    own_stream(index, final)(state.copy())
                except Exception as error:
                    return f"{self._name(index)} crashed in final: {describe(error)}"
        return None

    def _finish(self, progress: _Progress) -> GameEnd:
        """The result, shown to the observers; a crash raised unless ``catch_exceptions``."""
        state, crash, agents = progress.state, progress.crash, self.agents
        result = GameResult(
            layout=state.layout.name,
            pacman=display_name(agents[0]),
            ghosts=[display_name(agent) for agent in agents[1:]],
            score=state.get_score(),
            win=state.is_win() and crash is None,
            lose=state.is_lose(),
            moves=len(progress.actions),
            pacman_moves=progress.pacman_moves,
            crashed=crash is not None,
            crash=crash,
            truncated=progress.truncated,
            seconds=time.perf_counter() - progress.started,
            seed=self.seed,
            actions=progress.actions,
            notes=progress.kept,
            final_state=state,
        )
        try:
            self._notify("finish", state, result)
        except (KeyboardInterrupt, QuitRequested) as stop:
            # The game is over: a stop while its final board is up keeps it.
            return GameEnd(result, stop)
        if crash is not None and not self.catch_exceptions:
            raise AgentCrashed(crash)
        return GameEnd(result)


@dataclass
class GameEnd:
    """A finished game, and the stop (Ctrl-C, a closed window) an observer raised as it
    showed the final board: the game counts, then the run stops."""

    result: GameResult
    stop: KeyboardInterrupt | QuitRequested | None = None

    def outcome(self) -> GameResult:
        """The result, or the stop raised."""
        if self.stop is not None:
            raise self.stop
        return self.result


@dataclass
class _Progress:
    """Where one run of a game has got to."""

    state: GameState
    agents: int
    used: list[float] = field(init=False)  # each agent's seconds so far
    actions: list[tuple[int, str]] = field(default_factory=list)
    crash: str | None = None
    truncated: bool = False
    pacman_moves: int = 0
    kept: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # notes, by move
    started: float = field(default_factory=time.perf_counter)

    def __post_init__(self) -> None:
        self.used = [0.0] * self.agents


def run_game(
    layout: Layout | str | os.PathLike[str],
    pacman: object,
    ghosts: Sequence[object] = (),
    *,
    observers: Iterable[object] = (),
    num_ghosts: int | None = None,
    catch_exceptions: bool = False,
    move_timeout: float | None = None,
    game_timeout: float | None = None,
    max_moves: int | None = None,
    seed: int | None = None,
    secret: str = "",
    keep_notes: bool = False,
) -> GameResult:
    """Play one game on a layout (a ``Layout``, a name or a path) and return how it ended.

    The limits are :class:`Game`'s. ``num_ghosts`` caps the ghosts that play (default: one
    per ghost given). With ``seed`` (and ``secret``), each agent draws from its own stream,
    as in every game of a batch (:mod:`pacman.seeding`): the same seed and agents give the
    same game. Batches and graded games play through :func:`pacman.runner.play`.
    """
    from pacman.layout import Layout, load_layout

    if not isinstance(layout, Layout):
        layout = load_layout(layout)
    state = GameState.initial(layout, len(ghosts) if num_ghosts is None else num_ghosts)
    game = Game(
        state,
        [pacman, *ghosts],
        observers=observers,
        catch_exceptions=catch_exceptions,
        move_timeout=move_timeout,
        game_timeout=game_timeout,
        max_moves=max_moves,
        seed=seed,
        secret=secret,
        keep_notes=keep_notes,
    )
    return game.run()
