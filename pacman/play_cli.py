"""What the ``pacman`` command does once its flags are read: play games, or replay one.

:mod:`pacman.cli` parses and checks the flags; here they become a game spec, a display, the
recorders (GIF, PNG frames, HTML, JSON records and lines), a run of games and CS188's closing
lines. A user's mistake is raised as a ``PacmanError``, which the command prints as one line.
"""

from __future__ import annotations

import json
import random
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pacman.errors import (
    AgentCrashed,
    AgentExited,
    DisplayUnavailable,
    PacmanError,
    UsageError,
)

if TYPE_CHECKING:
    from pacman.layout import Layout
    from pacman.runner import GameSpec, ResolvedAgent

#: ``-r``/``--record`` without a file: each game to ``recorded-game-N.json``.
AUTO_RECORD = "<auto>"
#: The per-move and per-game limit of -c without --timeout (CS188's 30 s).
DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True, kw_only=True)
class PlayOptions:
    """What one ``pacman`` run asks for: its flags, parsed and checked once by
    :mod:`pacman.cli`. Each field's comment names its flag; the defaults are the parser's."""

    # What is played.
    layout: str  #: -l/--layout: a name, a .lay file or random:WxH[,...]
    pacman: str  #: -p/--pacman
    agent_args: str | None  #: -a/--agentArgs, as given (``depth=2,evalFn=better``)
    ghosts: str  #: -g/--ghosts
    num_ghosts: int  #: -k/--numghosts: at most this many ghosts
    games: int  #: -n/--numGames, the training games among them
    training_games: int  #: -x/--numTraining: the first games, played unseen and uncounted
    catch_exceptions: bool  #: -c/--catchExceptions
    timeout: float | None  #: --timeout, in seconds
    max_moves: int | None  #: --max-moves
    isolation: str  #: --isolation: "none" or "sandbox"
    fix_random_seed: bool  #: -f/--fixRandomSeed
    seed: int | None  #: --seed
    game_secret: str | None  #: --game-secret (TEXT or @FILE)
    # Where the games are played.
    jobs: int  #: --jobs
    scheduler: str | None  #: --scheduler
    # How they are shown.
    text: bool  #: -t/--textGraphics
    quiet: bool  #: -q/--quietTextGraphics: no display
    zoom: float  #: -z/--zoom
    frame_time: float  #: --frameTime, in seconds
    theme: str  #: --theme
    values: bool  #: --values: the search overlay
    web_port: int | None  #: --web [PORT] (0: a free port); None: no browser view
    no_browser: bool  #: --no-browser
    # What they leave behind, or what is replayed instead.
    replay: str | None  #: --replay FILE
    record: str | None  #: -r/--record [FILE] (:data:`AUTO_RECORD` without FILE)
    json_lines: str | None  #: --json FILE
    stats: bool  #: --stats
    save_layout: str | None  #: --save-layout FILE
    gif: str | None  #: --gif FILE
    frames: str | None  #: --frames DIR
    html: str | None  #: --html FILE


def _numbered(path: str, index: int, count: int) -> str:
    """``game.gif`` for a single game; ``game-1.gif``, ``game-2.gif``... for several (as CS188 counts)."""
    if count == 1:
        return path
    file = Path(path)
    return str(file.with_name(f"{file.stem}-{index + 1}{file.suffix}"))


def _make_display(options: PlayOptions, wants_keyboard: bool, agent_name: str | None) -> Any:
    """The window, text (``-t``, or where no window opens and nobody needs the keyboard) or none."""
    if options.web_port is not None:
        return _web_display(options.web_port, options, agent_name)
    if options.quiet:
        return None
    from pacman.view.text import TextDisplay

    if options.text:
        return TextDisplay(frame_time=options.frame_time)
    try:
        from pacman.view.pygame_view import PygameDisplay

        return PygameDisplay(
            zoom=options.zoom,
            frame_time=options.frame_time,
            theme=options.theme,
            agent_name=agent_name,
            values=options.values,
        )
    except (DisplayUnavailable, ImportError) as error:
        if wants_keyboard:
            cause = getattr(error, "reason", error)
            raise _keyboard_cannot_play(options, f"and none can be opened here ({cause})") from None
        print(f"pacman: {error}; showing the game as text instead", file=sys.stderr)
        return TextDisplay(frame_time=options.frame_time)


def _web_display(port: int, options: PlayOptions, agent_name: str | None) -> Any:
    """The browser view (``--web [PORT]``): its server started, its URL printed, a browser opened."""
    from pacman.view.web import WebDisplay

    display = WebDisplay(
        port,
        frame_time=options.frame_time,
        theme=options.theme,
        agent_name=agent_name,
        values=options.values,
    )
    opened = not options.no_browser and display.open_browser()
    how = "opened in your browser" if opened else "open it in a browser"
    print(
        f"pacman: the game is at {display.url} ({how}; Ctrl-C stops)", file=sys.stderr, flush=True
    )
    return display


def _keyboard_cannot_play(options: PlayOptions, why: str) -> UsageError:
    """The keyboard agent cannot play: ``why``, and a command that shows a game here instead."""
    layout = shlex.quote(options.layout)
    watch = f"pacman -p GreedyAgent -t -l {layout}"
    return UsageError(
        f"playing with the keyboard (-p KeyboardAgent, the default) needs a window, {why}; "
        f"to play in a browser instead: pacman --web -l {layout}; "
        f"to watch an agent play in text instead: {watch}"
    )


def _frame_recorder(options: PlayOptions, index: int, count: int, agent_name: str | None) -> Any:
    """The GIF and PNG frames (``--gif``, ``--frames``) of counted game ``index`` of ``count``."""
    from pacman.view.frames import FrameRecorder

    gif = _numbered(options.gif, index, count) if options.gif else None
    folder = _numbered(options.frames, index, count) if options.frames else None
    return FrameRecorder(
        gif=gif,
        frames_dir=folder,
        zoom=options.zoom,
        frame_time=options.frame_time,
        theme=options.theme,
        agent_name=agent_name,
        values=options.values,
    )


def _html_replay(path: str, options: PlayOptions, agent_name: str | None) -> Any:
    """A game's HTML replay (``--html``), written to ``path``."""
    from pacman.view.html_replay import HtmlReplay

    return HtmlReplay(
        path,
        theme=options.theme,
        agent_name=agent_name,
        frame_time=options.frame_time,
        values=options.values,
    )


def _outcome_line(result: Any) -> str:
    """CS188's line for a game's end, or how a crash or ``--max-moves`` ended it."""
    if result.crashed:
        return f"{result.crash}. Score: {result.score:g}"
    if result.win:
        return f"Pacman emerges victorious! Score: {result.score:g}"
    if result.lose:
        return f"Pacman died! Score: {result.score:g}"
    return f"Game stopped after {result.pacman_moves} Pac-Man moves. Score: {result.score:g}"


def print_summary(results: Sequence[Any], stream: Any = None) -> None:
    """CS188's closing lines."""
    stream = stream or sys.stdout
    scores = [result.score for result in results]
    wins = [result.win for result in results]
    print("Average Score:", sum(scores) / len(scores), file=stream)
    print("Scores:       ", ", ".join(str(score) for score in scores), file=stream)
    print(
        f"Win Rate:      {wins.count(True)}/{len(wins)} ({wins.count(True) / len(wins):.2f})",
        file=stream,
    )
    print("Record:       ", ", ".join("Win" if win else "Loss" for win in wins), file=stream)


def replay_game(record_file: str, options: PlayOptions) -> int:
    """``pacman --replay FILE``: show a recorded game again; returns the exit code."""
    from pacman.records import load_record, replay

    try:
        record = load_record(record_file)
    except UnicodeDecodeError as error:  # load_record reads the file as text and lets this through
        raise PacmanError(
            f"--replay {record_file}: not a game record (byte "
            f"0x{error.object[error.start]:02x} at offset {error.start} is not UTF-8 text)"
        ) from None
    name = record.get("pacman")
    display = _make_display(options, wants_keyboard=False, agent_name=name)
    observers = [display] if display is not None else []
    if options.gif or options.frames:
        observers.append(_frame_recorder(options, 0, 1, name))
    if options.html:
        observers.append(_html_replay(options.html, options, name))
    try:
        result = replay(record, observers)
    except PacmanError as error:
        raise PacmanError(f"--replay {record_file}: {error}") from None
    finally:
        for observer in observers:
            close = getattr(observer, "close", None)
            if close is not None:
                close()
    print(_outcome_line(result))
    if result.score != record.get("score", result.score):
        print(
            f"pacman: warning: the record says score {record['score']}, replay gave {result.score}",
            file=sys.stderr,
        )
    return 0


def _check_outputs(options: PlayOptions) -> None:
    """Every output path is checked (and its folders made) before the first game."""
    from pacman.outputs import prepare_output_file, prepare_output_folder

    if options.json_lines:
        prepare_output_file("--json", options.json_lines)
    if options.record and options.record != AUTO_RECORD:
        prepare_output_file("--record", options.record)
    if options.gif:
        if not options.gif.lower().endswith(".gif"):
            raise UsageError(f"--gif {options.gif}: the file name must end in .gif")
        prepare_output_file("--gif", options.gif)
    if options.html:
        prepare_output_file("--html", options.html)
    if options.frames:
        prepare_output_folder("--frames", options.frames)


def play_games(options: PlayOptions) -> int:
    """Play the games ``options`` ask for and report them as CS188 does; returns the exit code."""
    layout = _layout(options)
    agents, agent_args = _agents(options)
    agent_name = agents[0].name
    wants_keyboard = agent_name == "KeyboardAgent"
    parallel = options.jobs > 1 or options.scheduler is not None
    if parallel and options.web_port is not None:
        raise UsageError(
            "--web shows games as they are played, one at a time: leave out --jobs/--scheduler"
        )
    if wants_keyboard and options.web_port is None and (options.text or options.quiet or parallel):
        raise _keyboard_without_window(options)
    seed = _seed(options)
    display = _display(options, parallel, wants_keyboard, agent_name)
    spec = _spec(options, layout, agents, agent_args, seed)
    games = _Games(options, layout, display, agent_name, agent_args)
    code = games.play(spec)
    if games.results and code != 1:
        print_summary([games.results[index] for index in sorted(games.results)])
    return code


def _layout(options: PlayOptions) -> Layout:
    """The layout played, saved with ``--save-layout``; its warnings printed."""
    from pacman.layout import load_layout, playable
    from pacman.mazegen import save_layout

    layout = playable(load_layout(options.layout))
    save_layout(layout, options.save_layout)  # --save-layout FILE, if given
    for warning in layout.warnings:
        print(f"pacman: warning: {warning}", file=sys.stderr)
    return layout


def _agents(
    options: PlayOptions,
) -> tuple[tuple[ResolvedAgent, ResolvedAgent], dict[str, str]]:
    """Pac-Man's agent and the ghosts', each resolved once for the run; Pac-Man's arguments."""
    from pacman.loading import accepts, parse_agent_args
    from pacman.runner import resolve_agent  # under --isolation sandbox, files are not imported

    pacman = resolve_agent(options.pacman, "agent", options.isolation)
    ghost = resolve_agent(options.ghosts, "ghost", options.isolation)
    agent_args = parse_agent_args(options.agent_args)
    if (
        options.training_games
        and "numTraining" not in agent_args
        and pacman.cls is not None
        and accepts(pacman.cls, "numTraining")
    ):
        # As CS188 does, for learning agents; others would fail on an argument they never use.
        agent_args["numTraining"] = str(options.training_games)
    return (pacman, ghost), agent_args


def _keyboard_without_window(options: PlayOptions) -> UsageError:
    """The keyboard agent with -t, -q, --jobs or --scheduler: which flag keeps the window shut,
    or, where none could open anyway, why not."""
    from pacman.view.pygame_view import missing_display

    flag = (
        "-t"
        if options.text
        else "-q"
        if options.quiet
        else "--jobs"
        if options.jobs > 1
        else "--scheduler"
    )
    problem = missing_display()
    return _keyboard_cannot_play(
        options,
        f"and none can be opened here ({problem})"
        if problem
        else f"which {flag} does not open: leave out {flag} to play yourself",
    )


def _seed(options: PlayOptions) -> int:
    """The first game's seed: ``--seed S``, 0 with ``-f``, else a fresh one."""
    if options.seed is not None:
        return options.seed
    if options.fix_random_seed:
        return 0
    return random.SystemRandom().randrange(2**31)


def _display(options: PlayOptions, parallel: bool, wants_keyboard: bool, agent_name: str) -> Any:
    """The display of serial games (``None``: none); the output paths are checked first."""
    if not parallel:
        _check_outputs(options)
        return _make_display(options, wants_keyboard, agent_name)
    if options.gif or options.frames or options.html:
        raise UsageError(
            "--gif/--frames/--html record games one at a time: leave out --jobs/--scheduler"
        )
    _check_outputs(options)
    if not options.quiet:
        print("pacman: --jobs/--scheduler play without a display", file=sys.stderr)
    return None


def _spec(
    options: PlayOptions,
    layout: Layout,
    agents: tuple[ResolvedAgent, ResolvedAgent],
    agent_args: dict[str, str],
    seed: int,
) -> GameSpec:
    """The spec of the first game; game i plays it with seed + i."""
    from pacman.runner import GameSpec
    from pacman.seeding import read_secret

    return GameSpec(
        layout=layout.name,  # a random: spec without seed= names its board here
        pacman=options.pacman,
        pacman_args=agent_args,
        ghost=options.ghosts,
        num_ghosts=options.num_ghosts,
        seed=seed,
        catch_exceptions=options.catch_exceptions,
        # CS188 times agents only with -c; an explicit --timeout is a limit either way.
        timeout=options.timeout or (DEFAULT_TIMEOUT if options.catch_exceptions else None),
        max_moves=options.max_moves,
        keep_notes=bool(options.record),
        isolation=options.isolation,
        secret=None if options.game_secret is None else read_secret(options.game_secret),
        loaded_layout=layout,
        resolved_agents=agents,
    )


class _Games:
    """One run of the command's games: who watches each, what each leaves behind, what is
    printed. Training games (the first ``-x``) are played and left out of all three."""

    def __init__(
        self,
        options: PlayOptions,
        layout: Layout,
        display: Any,
        agent_name: str,
        agent_args: dict[str, str],
    ) -> None:
        from pacman.outputs import StreamedLines

        self.options = options
        self.layout = layout
        self.display = display
        self.agent_name = agent_name
        self.count = options.games
        self.training = options.training_games
        #: Each counted game's result by index, as the games finish.
        self.results: dict[int, Any] = {}
        self.recorders: list[Any] = []
        self.lines = StreamedLines(options.json_lines) if options.json_lines else None
        self.extra = {"pacman_args": agent_args, "ghost": options.ghosts}
        # A bar instead of a line per game, for long runs nobody watches on a terminal.
        self.progress = display is None and self.count >= 10 and sys.stderr.isatty()

    def play(self, spec: GameSpec) -> int:
        """Play the games, each kept as it ends and shown in game order; returns the exit code."""
        from pacman.execution import InOrder, Interrupted, interruption_handled, signals_deferred
        from pacman.game import QuitRequested
        from pacman.runner import batch, stream_games

        code = 0
        # Per-game lines in game order (CS188's), though games may finish in any order.
        in_order: InOrder[Any] = InOrder(self.training)
        with interruption_handled():
            try:
                for index, result in stream_games(
                    batch(spec, self.count),
                    jobs=self.options.jobs,
                    scheduler=self.options.scheduler,
                    observers=self.watchers(),
                    progress=self.progress,
                ):
                    if index < self.training:
                        continue
                    with signals_deferred():
                        self.keep(index, result)
                    for ready in in_order.add(index, result):
                        self.show(ready)
            except QuitRequested as quit:
                print(f"pacman: {quit}; stopping", file=sys.stderr)
            except Interrupted as stop:
                where = f"; results in {self.options.json_lines}" if self.options.json_lines else ""
                print(
                    f"pacman: interrupted: {len(self.results)} of {self.count - self.training} "
                    f"games{where}",
                    file=sys.stderr,
                )
                code = stop.exit_code
            except AgentCrashed as crash:
                self.crashed(crash)
                code = 1
            finally:
                for ready in in_order.rest():
                    self.show(ready)
                self.close()
        return code

    def watchers(self) -> list[list[Any]]:
        """Each game's watchers; none at all where nobody watches (a long batch keeps no list
        of empty lists)."""
        options = self.options
        if self.display is None and not (options.gif or options.frames or options.html):
            return []
        return [self.watching(index) for index in range(self.count)]

    def watching(self, index: int) -> list[Any]:
        """Who watches game ``index``: the display and the game's own recorders (made before
        the run: they open no file until their game starts). Nobody watches training games."""
        if index < self.training:
            return []
        watching = [self.display] if self.display is not None else []
        options, counted = self.options, index - self.training
        if options.gif or options.frames:
            recorder = _frame_recorder(
                options, counted, self.count - self.training, self.agent_name
            )
            self.recorders.append(recorder)
            watching.append(recorder)
        if options.html:
            path = _numbered(options.html, counted, self.count - self.training)
            page = _html_replay(path, options, self.agent_name)
            self.recorders.append(page)
            watching.append(page)
        return watching

    def keep(self, index: int, result: Any) -> None:
        """A finished game's result, JSON line and record (written whole)."""
        from pacman.outputs import write_atomically
        from pacman.records import game_record, json_line

        options = self.options
        self.results[index] = result
        if self.lines is not None:
            self.lines.add(index, json_line(index, result, self.extra))
        if options.record:
            name = (
                f"recorded-game-{index}.json"
                if options.record == AUTO_RECORD
                else _numbered(options.record, index - self.training, self.count - self.training)
            )
            layout_ghosts = min(options.num_ghosts, self.layout.num_ghosts)
            write_atomically(name, json.dumps(game_record(result, self.layout, layout_ghosts)))

    def show(self, result: Any) -> None:
        """A game's closing line (not under a progress bar) and, with --stats, its statistics."""
        if not self.progress:
            print(_outcome_line(result), flush=True)
        if self.options.stats and result.stats:
            print(result.stats)

    def crashed(self, crash: AgentCrashed) -> None:
        """An agent crash that ends the run: one line, with what was kept."""
        hint = "" if isinstance(crash, AgentExited) else " (use -c to record crashes and go on)"
        finished = f"{len(self.results)} finished game{'' if len(self.results) == 1 else 's'}"
        kept = f"; {finished} kept in {self.options.json_lines}" if self.lines else ""
        print(f"pacman: {crash}{hint}{kept}", file=sys.stderr)

    def close(self) -> None:
        """Every file whole, even after a run stopped half way; the browser view told."""
        for recorder in self.recorders:
            recorder.close()
        if self.options.web_port is not None and self.display is not None:
            self.display.close()
        if self.lines is not None:
            self.lines.finish()
