"""The ``pacman`` command: CS188's ``pacman.py`` flags, plus batch options.

Here argv becomes checked options; :mod:`pacman.play_cli` plays (or replays) what they ask for.

``pacman autograde ...`` runs the autograder with ``autograder.py``'s flags.
A user's mistake prints one line and exits 2; an agent crash without ``-c``
prints one line and exits 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pacman import untrusted
from pacman.commandline import (
    MAX_FRAME_TIME,
    MAX_TIMEOUT,
    MAX_ZOOM,
    CommandParser,
    check_amount,
)
from pacman.errors import (
    AgentCrashed,
    PacmanError,
    UsageError,
    machine_problem,
)
from pacman.execution import Interrupted, check_jobs, check_scheduler
from pacman.play_cli import AUTO_RECORD, PlayOptions, play_games, replay_game

#: CS188's long flags: an abbreviation that fits one of these and a newer flag means the CS188 one.
CS188_FLAGS = (
    "--numGames",
    "--layout",
    "--pacman",
    "--textGraphics",
    "--quietTextGraphics",
    "--ghosts",
    "--numghosts",
    "--zoom",
    "--fixRandomSeed",
    "--recordActions",
    "--replay",
    "--agentArgs",
    "--numTraining",
    "--frameTime",
    "--catchExceptions",
    "--timeout",
)


def build_parser() -> argparse.ArgumentParser:
    """The ``pacman`` command's parser: CS188's flags first, in ``pacman.py``'s order, then ours."""
    parser = CommandParser(
        prog="pacman",
        description="Play Pac-Man: watch agents, play with the keyboard, or run batches of games.",
        epilog="Examples: pacman -p ExpectimaxAgent -a depth=2,evalFn=better -l smallClassic; "
        "pacman -p AlphaBetaAgent -a depth=3 -q -n 100 --jobs 2 --json out.jsonl; "
        "pacman autograde -q q2; pacman tree -p AlphaBetaAgent -a depth=2 --html tree.html",
    )
    # Each group in the order --help lists it (argparse lists flags in the order they are added).
    _add_cs188_flags(parser)
    _add_seed_flags(parser)
    _add_batch_flags(parser)
    _add_picture_flags(parser)
    _add_isolation_flag(parser)
    parser.add_argument("--version", action="version", version="pacman-multiagent 0.1.0")
    return parser


def _add_cs188_flags(parser: argparse.ArgumentParser) -> None:
    """CS188's ``pacman.py`` flags: its names, letters and defaults, which course handouts use."""
    add = parser.add_argument
    add("-n", "--numGames", type=int, default=1, metavar="N", help="games to play (default 1)")
    add(
        "-l",
        "--layout",
        default="mediumClassic",
        help="layout name, .lay file or random:WxH[,seed=S,...] (default mediumClassic)",
    )
    add("--save-layout", metavar="FILE", help="write the layout played (a random: one) to FILE")
    add(
        "-p",
        "--pacman",
        default="KeyboardAgent",
        help="Pac-Man agent: a name, module.Class or file.py:Class (default KeyboardAgent)",
    )
    add("-t", "--textGraphics", action="store_true", help="draw the game as text")
    add("-q", "--quietTextGraphics", action="store_true", help="no display at all")
    add("-g", "--ghosts", default="RandomGhost", help="ghost agent (default RandomGhost)")
    add("-k", "--numghosts", type=int, default=4, metavar="K", help="at most K ghosts (default 4)")
    add("-z", "--zoom", type=float, default=1.0, help="window zoom (default 1.0)")
    add("-f", "--fixRandomSeed", action="store_true", help="same as --seed 0")
    add(
        "-r",
        "--recordActions",
        "--record",
        dest="record",
        nargs="?",
        const=AUTO_RECORD,
        metavar="FILE",
        help="write each game to a JSON record (FILE, or recorded-game-N.json)",
    )
    add("--replay", metavar="FILE", help="replay a recorded game")
    add(
        "-a",
        "--agentArgs",
        metavar="K=V,...",
        help="Pac-Man agent arguments, e.g. depth=3,evalFn=better",
    )
    add(
        "-x",
        "--numTraining",
        type=int,
        default=0,
        metavar="N",
        help="first N games are training: no display, not counted",
    )
    add(
        "--frameTime",
        type=float,
        default=0.1,
        metavar="SECONDS",
        help="time per frame of the display (default 0.1)",
    )
    add(
        "-c",
        "--catchExceptions",
        action="store_true",
        help="an agent crash or timeout ends its game, not the run",
    )
    add(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="per-move and per-game time limit per agent (default: 30 with -c, else none); "
        "over it, the run ends with exit 1, or with -c that game",
    )


def _add_seed_flags(parser: argparse.ArgumentParser) -> None:
    """What decides a game's randomness: the seed, and the ghosts' secret beside it."""
    add = parser.add_argument
    add("--seed", type=int, metavar="S", help="game i is seeded with S + i (default: random)")
    add(
        "--game-secret",
        metavar="TEXT",
        help="what the ghosts draw with, beside the seed (default: none in-process, a new "
        "one each run with --isolation sandbox; @FILE reads it from FILE)",
    )


def _add_batch_flags(parser: argparse.ArgumentParser) -> None:
    """Many games: where they are played, what each leaves behind (JSON lines, search
    statistics), how long one may run."""
    add = parser.add_argument
    add(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="play games in N worker processes (same results as serial)",
    )
    add(
        "--scheduler",
        metavar="ADDRESS",
        help="play games on a Dask cluster (tcp://host:8786), or 'local' for a LocalCluster "
        "of --jobs workers here; needs the [dask] extra",
    )
    add("--json", metavar="FILE", help="write one JSON line per game, as each game ends")
    add(
        "--max-moves",
        type=int,
        metavar="N",
        help="end a game after N Pac-Man moves (a dithering agent can play thousands: "
        "use it for long batches)",
    )
    add(
        "--stats",
        action="store_true",
        help="print the Pac-Man agent's search statistics after each game",
    )


def _add_picture_flags(parser: argparse.ArgumentParser) -> None:
    """Pictures of each game (GIF, PNG frames, HTML replay) and how the window and they look."""
    add = parser.add_argument
    add("--gif", metavar="FILE", help="save each game as an animated GIF (needs no window)")
    add("--frames", metavar="DIR", help="save each frame as a PNG in DIR (needs no window)")
    add(
        "--theme",
        choices=("classic", "light"),
        default="classic",
        help="colours of the window and frames",
    )
    add(
        "--values",
        action="store_true",
        help="show the search overlay from the start: root values, principal variation, "
        "depth and nodes (the V key toggles it in the window; GIFs and frames only with this)",
    )
    add(
        "--html",
        metavar="FILE",
        help="save each game as one self-contained HTML replay (play, step, scrub, speed)",
    )
    add(
        "--web",
        nargs="?",
        const=0,
        type=int,
        metavar="PORT",
        help="show the games live in a browser instead of a window (keyboard play too): a "
        "server on 127.0.0.1, at PORT or a free port, whose URL and token are printed",
    )
    add(
        "--no-browser",
        action="store_true",
        help="with --web: only print the URL (to open it yourself, or over ssh -L)",
    )


def _add_isolation_flag(parser: argparse.ArgumentParser) -> None:
    """Whether agents from files play from sandboxed workers."""
    parser.add_argument(
        "--isolation",
        choices=("none", "sandbox"),
        default="none",
        help="sandbox: agents from files (not the project's) play from the autograder's "
        "sandboxed workers, where they cannot change the game (default none)",
    )


def resolve_abbreviations(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """Let an abbreviation shared by a CS188 flag and a newer one mean the CS188 flag (``--frame``)."""
    actions = parser._option_string_actions
    longs = [name for name in actions if name.startswith("--")]
    resolved = []
    for token in argv:
        name, sep, value = token.partition("=")
        if token.startswith("--") and name not in actions:
            matches = [flag for flag in longs if flag.startswith(name)]
            if len({id(actions[flag]) for flag in matches}) > 1:
                matches = [flag for flag in matches if flag in CS188_FLAGS]
            if matches and len({id(actions[flag]) for flag in matches}) == 1:
                token = matches[0] + sep + value
        resolved.append(token)
    return resolved


def parse_options(argv: Sequence[str]) -> PlayOptions:
    """The run's options, read from ``argv`` and checked once (a ``UsageError`` names a flag)."""
    parser = build_parser()
    options = _play_options(parser.parse_args(resolve_abbreviations(parser, argv)))
    _check(options)
    return options


def _play_options(parsed: argparse.Namespace) -> PlayOptions:
    """The parsed flags as the run reads them: typed, named, frozen (not yet checked)."""
    return PlayOptions(
        layout=parsed.layout,
        pacman=parsed.pacman,
        agent_args=parsed.agentArgs,
        ghosts=parsed.ghosts,
        num_ghosts=parsed.numghosts,
        games=parsed.numGames,
        training_games=parsed.numTraining,
        catch_exceptions=parsed.catchExceptions,
        timeout=parsed.timeout,
        max_moves=parsed.max_moves,
        isolation=parsed.isolation,
        fix_random_seed=parsed.fixRandomSeed,
        seed=parsed.seed,
        game_secret=parsed.game_secret,
        jobs=parsed.jobs,
        scheduler=parsed.scheduler,
        text=parsed.textGraphics,
        quiet=parsed.quietTextGraphics,
        zoom=parsed.zoom,
        frame_time=parsed.frameTime,
        theme=parsed.theme,
        values=parsed.values,
        web_port=parsed.web,
        no_browser=parsed.no_browser,
        replay=parsed.replay,
        record=parsed.record,
        json_lines=parsed.json,
        stats=parsed.stats,
        save_layout=parsed.save_layout,
        gif=parsed.gif,
        frames=parsed.frames,
        html=parsed.html,
    )


def _check(options: PlayOptions) -> None:
    """Values argparse takes but no game can use: each a ``UsageError`` naming its flag."""
    limits = [
        ("-n/--numGames", options.games, 1),
        ("-k/--numghosts", options.num_ghosts, 0),
        ("-x/--numTraining", options.training_games, 0),
    ]
    for flag, value, least in limits:
        if value < least:
            raise UsageError(f"{flag} {value}: must be at least {least}")
    check_jobs(options.jobs)
    check_amount("--frameTime", options.frame_time, MAX_FRAME_TIME, zero=True)
    check_amount("-z/--zoom", options.zoom, MAX_ZOOM)
    if options.timeout is not None:
        check_amount("--timeout", options.timeout, MAX_TIMEOUT)
    if options.no_browser and options.web_port is None:
        raise UsageError("--no-browser: only with --web")
    if options.max_moves is not None and options.max_moves < 1:
        raise UsageError(f"--max-moves {options.max_moves}: must be at least 1")
    if options.training_games >= options.games and options.training_games:
        raise UsageError(
            f"-x/--numTraining {options.training_games}: must be less than -n/--numGames {options.games}"
        )
    if (options.jobs > 1 or options.scheduler) and options.training_games:
        raise UsageError(
            "--jobs/--scheduler cannot be used with -x/--numTraining: "
            "training needs one agent across games"
        )
    if options.scheduler is not None:
        check_scheduler(options.scheduler)
    if options.scheduler is not None and options.scheduler != "local" and options.jobs > 1:
        raise UsageError(
            f"--jobs {options.jobs}: a Dask cluster's workers are its own; "
            "leave out --jobs with --scheduler ADDRESS (or use --scheduler local)"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``pacman`` and ``python -m pacman``; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "autograde":
        from pacman.grade_cli import main as autograde

        return autograde(args[1:], prog="pacman autograde")
    if args and args[0] == "tree":
        from pacman.tree_cli import main as tree

        return tree(args[1:], prog="pacman tree")
    try:
        options = parse_options(args)
        if options.replay:
            return replay_game(options.replay, options)
        return play_games(options)
    except PacmanError as error:
        print(f"pacman: {untrusted.line(error)}", file=sys.stderr)  # one line, whatever it names
        return 1 if isinstance(error, AgentCrashed) else 2
    except OSError as error:  # the machine's (a full disk): the finished games are kept
        print(f"pacman: cannot go on: {machine_problem(error)}", file=sys.stderr)
        return 2
    except Interrupted as stop:  # a signal while the last results were being written
        print("pacman: interrupted", file=sys.stderr)
        return stop.exit_code
    except KeyboardInterrupt:
        print("pacman: interrupted", file=sys.stderr)
        return 130
