"""What the ``pacman`` command does once its flags are read: play games, or replay one.

:mod:`pacman.cli` parses and checks the flags; here they become a game spec, a display, the
recorders (GIF, PNG frames, HTML, JSON records and lines), a run of games and CS188's closing
lines. A user's mistake is raised as a ``PacmanError``, which the command prints as one line.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pacman.errors import (
    AgentCrashed,
    AgentExited,
    DisplayUnavailable,
    PacmanError,
    UsageError,
)

#: ``-r``/``--record`` without a file: each game to ``recorded-game-N.json``.
AUTO_RECORD = "<auto>"
#: The per-move and per-game limit of -c without --timeout (CS188's 30 s).
DEFAULT_TIMEOUT = 30.0


def _numbered(path: str, index: int, count: int) -> str:
    """``game.gif`` for a single game; ``game-1.gif``, ``game-2.gif``... for several (as CS188 counts)."""
    if count == 1:
        return path
    file = Path(path)
    return str(file.with_name(f"{file.stem}-{index + 1}{file.suffix}"))


def _make_display(options: argparse.Namespace, wants_keyboard: bool, agent_name: str | None) -> Any:
    if options.quietTextGraphics:
        return None
    from pacman.view.text import TextDisplay

    if options.textGraphics:
        return TextDisplay(frame_time=options.frameTime)
    try:
        from pacman.view.pygame_view import PygameDisplay

        return PygameDisplay(
            zoom=options.zoom,
            frame_time=options.frameTime,
            theme=options.theme,
            agent_name=agent_name,
            values=options.values,
        )
    except (DisplayUnavailable, ImportError) as error:
        if wants_keyboard:
            cause = getattr(error, "reason", error)
            raise _keyboard_cannot_play(options, f"and none can be opened here ({cause})") from None
        print(f"pacman: {error}; showing the game as text instead", file=sys.stderr)
        return TextDisplay(frame_time=options.frameTime)


def _keyboard_cannot_play(options: argparse.Namespace, why: str) -> UsageError:
    """The keyboard agent cannot play: ``why``, and a command that shows a game here instead."""
    watch = f"pacman -p GreedyAgent -t -l {shlex.quote(options.layout)}"
    return UsageError(
        f"playing with the keyboard (-p KeyboardAgent, the default) needs a window, {why}; "
        f"to watch an agent play in text instead: {watch}"
    )


def _frame_recorder(
    options: argparse.Namespace, index: int, count: int, agent_name: str | None
) -> Any:
    from pacman.view.frames import FrameRecorder

    gif = _numbered(options.gif, index, count) if options.gif else None
    folder = _numbered(options.frames, index, count) if options.frames else None
    return FrameRecorder(
        gif=gif,
        frames_dir=folder,
        zoom=options.zoom,
        frame_time=options.frameTime,
        theme=options.theme,
        agent_name=agent_name,
        values=options.values,
    )


def _html_replay(
    options: argparse.Namespace, index: int, count: int, agent_name: str | None
) -> Any:
    from pacman.view.html_replay import HtmlReplay

    return HtmlReplay(
        _numbered(options.html, index, count),
        theme=options.theme,
        agent_name=agent_name,
        frame_time=options.frameTime,
        values=options.values,
    )


def _outcome_line(result: Any) -> str:
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


def replay_game(options: argparse.Namespace) -> int:
    """``pacman --replay FILE``: show a recorded game again; returns the exit code."""
    from pacman.runner import load_record, replay

    try:
        record = load_record(options.replay)
    except UnicodeDecodeError as error:  # load_record reads the file as text and lets this through
        raise PacmanError(
            f"--replay {options.replay}: not a game record (byte "
            f"0x{error.object[error.start]:02x} at offset {error.start} is not UTF-8 text)"
        ) from None
    name = record.get("pacman")
    display = _make_display(options, wants_keyboard=False, agent_name=name)
    observers = [display] if display is not None else []
    if options.gif or options.frames:
        observers.append(_frame_recorder(options, 0, 1, name))
    if options.html:
        observers.append(_html_replay(options, 0, 1, name))
    try:
        result = replay(record, observers)
    except PacmanError as error:
        raise PacmanError(f"--replay {options.replay}: {error}") from None
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


def _check_outputs(options: argparse.Namespace) -> None:
    """Every output path is checked (and its folders made) before the first game."""
    from pacman.outputs import prepare_output_file, prepare_output_folder

    if options.json:
        prepare_output_file("--json", options.json)
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


def play_games(options: argparse.Namespace) -> int:
    """Play the games ``options`` ask for and report them as CS188 does; returns the exit code."""
    from pacman.execution import InOrder, Interrupted, interruption_handled, signals_deferred
    from pacman.layout import load_layout, playable
    from pacman.loading import accepts, parse_agent_args
    from pacman.mazegen import save_layout
    from pacman.outputs import StreamedLines, write_atomically
    from pacman.runner import (
        GameSpec,
        agent_class,
        batch,
        game_record,
        json_line,
        stream_games,
    )
    from pacman.seeding import read_secret

    layout = playable(load_layout(options.layout))
    save_layout(layout, options.save_layout)  # --save-layout FILE, if given
    for warning in layout.warnings:
        print(f"pacman: warning: {warning}", file=sys.stderr)
    if options.isolation == "sandbox":
        from pacman.runner import sandbox_class  # the agents' files are not imported

        pacman_class = sandbox_class(options.pacman, "agent")
        sandbox_class(options.ghosts, "ghost")
    else:
        pacman_class = agent_class(options.pacman, "agent")
        agent_class(options.ghosts, "ghost")
    agent_args = parse_agent_args(options.agentArgs)
    if (
        options.numTraining
        and "numTraining" not in agent_args
        and accepts(pacman_class, "numTraining")
    ):
        # As CS188 does, for learning agents; others would fail on an argument they never use.
        agent_args["numTraining"] = str(options.numTraining)
    wants_keyboard = pacman_class.__name__ == "KeyboardAgent"
    parallel = options.jobs > 1 or options.scheduler is not None
    if wants_keyboard and (options.textGraphics or options.quietTextGraphics or parallel):
        from pacman.view.pygame_view import missing_display

        flag = (
            "-t"
            if options.textGraphics
            else "-q"
            if options.quietTextGraphics
            else "--jobs"
            if options.jobs > 1
            else "--scheduler"
        )
        problem = missing_display()
        raise _keyboard_cannot_play(
            options,
            f"and none can be opened here ({problem})"
            if problem
            else f"which {flag} does not open: leave out {flag} to play yourself",
        )
    if options.seed is not None:
        seed = options.seed
    elif options.fixRandomSeed:
        seed = 0
    else:
        seed = random.SystemRandom().randrange(2**31)

    display = None
    if parallel:
        if options.gif or options.frames or options.html:
            raise UsageError(
                "--gif/--frames/--html record games one at a time: leave out --jobs/--scheduler"
            )
        _check_outputs(options)
        if not options.quietTextGraphics:
            print("pacman: --jobs/--scheduler play without a display", file=sys.stderr)
    else:
        _check_outputs(options)
        display = _make_display(options, wants_keyboard, pacman_class.__name__)

    count = options.numGames
    training = options.numTraining
    spec = GameSpec(
        layout=layout.name,  # a random: spec without seed= names its board here
        pacman=options.pacman,
        pacman_args=agent_args,
        ghost=options.ghosts,
        num_ghosts=options.numghosts,
        seed=seed,
        catch_exceptions=options.catchExceptions,
        # CS188 times agents only with -c; an explicit --timeout is a limit either way.
        timeout=options.timeout or (DEFAULT_TIMEOUT if options.catchExceptions else None),
        max_moves=options.max_moves,
        keep_notes=bool(options.record),
        isolation=options.isolation,
        secret=None if options.game_secret is None else read_secret(options.game_secret),
    )

    recorders: list[Any] = []

    def observers_for(index: int) -> list[Any]:
        if index < training:
            return []
        watching = [display] if display is not None else []
        if options.gif or options.frames:
            recorders.append(
                _frame_recorder(options, index - training, count - training, pacman_class.__name__)
            )
            watching.append(recorders[-1])
        if options.html:
            recorders.append(
                _html_replay(options, index - training, count - training, pacman_class.__name__)
            )
            watching.append(recorders[-1])
        return watching

    from pacman.game import QuitRequested

    results: dict[int, Any] = {}
    code = 0
    lines = StreamedLines(options.json) if options.json else None
    extra = {"pacman_args": agent_args, "ghost": options.ghosts}
    progress = display is None and count >= 10 and sys.stderr.isatty()

    def show(result: Any) -> None:
        if not progress:
            print(_outcome_line(result), flush=True)
        if options.stats and result.stats:
            print(result.stats)

    # Per-game lines in game order (CS188's), though games may finish in any order.
    in_order: InOrder[Any] = InOrder(training)
    with interruption_handled():
        try:
            for index, result in stream_games(
                batch(spec, count),
                jobs=options.jobs,
                scheduler=options.scheduler,
                observers_for=observers_for,
                progress=progress,
            ):
                if index < training:
                    continue
                with signals_deferred():
                    results[index] = result
                    if lines is not None:
                        lines.add(index, json_line(index, result, extra))
                    if options.record:
                        name = (
                            f"recorded-game-{index}.json"
                            if options.record == AUTO_RECORD
                            else _numbered(options.record, index - training, count - training)
                        )
                        layout_ghosts = min(options.numghosts, layout.num_ghosts)
                        write_atomically(
                            name, json.dumps(game_record(result, layout, layout_ghosts))
                        )
                for ready in in_order.add(index, result):
                    show(ready)
        except QuitRequested as quit:
            print(f"pacman: {quit}; stopping", file=sys.stderr)
        except Interrupted as stop:
            where = f"; results in {options.json}" if options.json else ""
            print(
                f"pacman: interrupted: {len(results)} of {count - training} games{where}",
                file=sys.stderr,
            )
            code = stop.exit_code
        except AgentCrashed as crash:
            hint = "" if isinstance(crash, AgentExited) else " (use -c to record crashes and go on)"
            finished = f"{len(results)} finished game{'' if len(results) == 1 else 's'}"
            kept = f"; {finished} kept in {options.json}" if lines else ""
            print(f"pacman: {crash}{hint}{kept}", file=sys.stderr)
            code = 1
        finally:
            for ready in in_order.rest():
                show(ready)
            for recorder in recorders:
                recorder.close()  # a run stopped half way still leaves whole files
            if lines is not None:
                lines.finish()
    if results and code != 1:
        print_summary([results[index] for index in sorted(results)])
    return code
