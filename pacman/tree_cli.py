"""``pacman tree``: the tree a search agent expands from one state, as HTML and as text.

The state is a layout's start (``-l``), the position before Pac-Man's move N of
a recorded game (``--replay FILE --move N``), or a CS188 ``GraphGameTreeTest``
file (``--test FILE``, whose ``alg`` and ``depth`` are the defaults for ``-p``
and ``-a``). ``--html FILE`` writes one self-contained page; the text goes to
the terminal unless only ``--html`` was asked for (``--text`` prints it too).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pacman import untrusted
from pacman.commandline import CommandParser
from pacman.errors import AgentCrashed, PacmanError, UsageError

__all__ = ["TreeOptions", "main", "parse_options", "start_state"]


@dataclass(frozen=True, kw_only=True)
class TreeOptions:
    """What one ``pacman tree`` run asks for: its flags, parsed and checked once
    (:func:`parse_options`). Each field's comment names its flag."""

    pacman: str | None  #: -p/--pacman; None: AlphaBetaAgent, or the test's alg
    agent_args: str | None  #: -a/--agentArgs, as given; None: depth 2, or the test's
    layout: str  #: -l/--layout: whose start is searched
    num_ghosts: int  #: -k/--numghosts: at most this many ghosts
    replay: str | None  #: --replay FILE: a game record to search from
    move: int | None  #: --move N: before Pac-Man's move N of --replay (None: the start)
    test_file: str | None  #: --test FILE: a GraphGameTreeTest whose tree is searched
    algorithm: str | None  #: --algorithm; None: from the agent
    html: str | None  #: --html FILE
    text: bool  #: --text: the text too, with --html
    text_ply: int | None  #: --text-ply N


def build_parser(prog: str = "pacman tree") -> argparse.ArgumentParser:
    parser = CommandParser(
        prog=prog,
        description="Draw the game tree a search agent expands from one state.",
        epilog="Examples: pacman tree -p AlphaBetaAgent -a depth=2 -l minimaxClassic --html t.html; "
        "pacman tree --test test_cases/q3/1-prune-at-min.test; "
        "pacman tree --replay game.json --move 12 -p ExpectimaxAgent -a depth=2 --text-ply 2",
    )
    add = parser.add_argument
    add("-p", "--pacman", help="the search agent (default AlphaBetaAgent, or the test's alg)")
    add(
        "-a",
        "--agentArgs",
        metavar="K=V,...",
        help="agent arguments (default depth=2, or the test's depth, for agents that take one)",
    )
    add(
        "-l",
        "--layout",
        default="minimaxClassic",
        help="layout whose start is searched (default minimaxClassic)",
    )
    add("-k", "--numghosts", type=int, default=4, metavar="K", help="at most K ghosts (default 4)")
    add("--replay", metavar="FILE", help="a game record (--record): search from one of its moves")
    add(
        "--move",
        type=int,
        metavar="N",
        help="with --replay: the position before Pac-Man's move N (default 1, the start)",
    )
    add("--test", metavar="FILE", help="a CS188 GraphGameTreeTest file: search its tree")
    add(
        "--algorithm",
        choices=("minimax", "alphabeta", "expectimax", "expectiminimax", "mcts", "other"),
        help="how to read the search (default: from the agent)",
    )
    add("--html", metavar="FILE", help="write the tree as one self-contained HTML page")
    add("--text", action="store_true", help="print the tree as text (the default without --html)")
    add(
        "--text-ply",
        type=int,
        metavar="N",
        help="in the text, sum up each subtree below ply N in one line",
    )
    return parser


def _record_state(path: str, move: int) -> tuple[Any, str]:
    from pacman.layout import parse_layout
    from pacman.records import load_record
    from pacman.state import GameState

    record = load_record(path)
    if move < 1:
        raise UsageError(f"--move {move}: must be at least 1")
    layout = parse_layout("\n".join(record["layout_rows"]), name=record["layout"])
    state = GameState.initial(layout, record["num_ghosts"])
    played = 0
    for number, (agent, action) in enumerate(record["actions"], start=1):
        if agent == 0:
            played += 1
            if played == move:
                return state, f"before Pac-Man's move {move} of {Path(path).name}"
        try:
            state = state.generate_successor(agent, action)
        except PacmanError as error:
            raise PacmanError(f"--replay {path}: move {number} does not replay: {error}") from None
    raise UsageError(f"--move {move}: {path} has only {played} Pac-Man moves")


def start_state(options: TreeOptions) -> tuple[Any, str, dict[str, str]]:
    """The state to search, words for where it comes from, and the test's fields (if any)."""
    if options.test_file and options.replay:
        raise UsageError("--test and --replay each give a state: use one")
    if options.move is not None and not options.replay:
        raise UsageError(
            f"--move {options.move}: only with --replay FILE (a recorded game's position "
            "before Pac-Man's move N)"
        )
    if options.test_file:
        state, fields = tree_test_start(options.test_file)
        return state, f"on {Path(options.test_file).name}", fields
    if options.replay:
        state, where = _record_state(options.replay, 1 if options.move is None else options.move)
        return state, where, {}
    from pacman.layout import load_layout
    from pacman.state import GameState

    layout = load_layout(options.layout)
    for warning in layout.warnings:
        print(f"pacman tree: warning: {warning}", file=sys.stderr)
    return (
        GameState.initial(layout, min(options.num_ghosts, layout.num_ghosts)),
        f"from {layout.name}'s start",
        {},
    )


#: How a title shows the ghost model made from a tree test's probabilities.
PROBABILITIES = "(the test's probabilities)"


def expected_agent_args(fields: dict[str, str], start: Any) -> dict[str, Any]:
    """The arguments of the search a tree test expects (``start`` is its start state): the
    configuration the grader builds (:func:`agents.search_config.config_from_test`)."""
    from agents.search_config import config_from_test

    alg, depth = fields.get("alg", "AlphaBetaAgent"), fields.get("depth", "2").strip()
    return config_from_test(alg, depth, start.tree).agent_args()


#: The most successor calls a tree is drawn with: past it a page runs to tens of megabytes and
#: the search to minutes (originalClassic at depth 4 is 16,405 calls, a page of 2.9 MB).
MOST_CALLS = 100_000
#: A long search says how far it has got each this many calls.
PROGRESS_EVERY = 10_000


def _watch_size(title: str) -> tuple[int, Any]:
    """``observe``'s ``report``: a line each :data:`PROGRESS_EVERY` calls, a refusal at
    :data:`MOST_CALLS`."""

    def report(count: int) -> None:
        if count >= MOST_CALLS:
            raise UsageError(
                f"{title}: the search passed {MOST_CALLS:,} successor calls, more than a page can "
                "show; use a smaller depth (-a depth=N), fewer ghosts (-k) or a smaller layout"
            )
        line = f"pacman tree: searching, {count:,} successor calls so far (stops at {MOST_CALLS:,})"
        print(line, file=sys.stderr, flush=True)

    return PROGRESS_EVERY, report


def _describe(state: Any) -> str:
    return str(state)


def run(options: TreeOptions) -> int:
    """Search from the state ``options`` give, and show the tree; returns the exit code."""
    from pacman.loading import build_agent, parse_agent_args
    from pacman.outputs import prepare_output_file, write_atomically
    from pacman.runner import agent_class
    from pacman.view.searchtree import observe
    from pacman.view.tree_text import to_text

    if options.html:
        prepare_output_file("--html", options.html)
    state, where, fields = start_state(options)
    name = options.pacman or fields.get("alg", "AlphaBetaAgent").strip()
    from pacman.loading import accepts

    args: dict[str, Any] = parse_agent_args(options.agent_args)
    cls = agent_class(name, "agent")
    if not options.agent_args:
        # The search the test expects (its depth, layers and probabilities), else depth 2:
        # the arguments of it that the agent takes.
        wanted = expected_agent_args(fields, state) if fields else {"depth": 2}
        args = {key: value for key, value in wanted.items() if accepts(cls, key)}
    agent = build_agent(cls, "agent", **args)
    # As -a takes them: layers with colons, a ghost model made from a test as words.
    shown = ",".join(
        f"{k}={str(v).replace(',', ':') if isinstance(v, str | int) else PROBABILITIES}"
        for k, v in args.items()
    )
    title = f"{cls.__name__} {shown} {where}".replace("  ", " ")
    tree = observe(
        agent, state, algorithm=options.algorithm, title=title, report=_watch_size(title)
    )
    if tree.note:
        print(f"pacman tree: warning: {tree.note}", file=sys.stderr)
    if options.html:
        from pacman.view.html_tree import tree_page

        write_atomically(options.html, tree_page(tree, _describe))
        print(f"pacman tree: {len(tree)} nodes written to {options.html}", file=sys.stderr)
    if options.text or not options.html:
        sys.stdout.write(to_text(tree, options.text_ply, _name_only))
    return 0


def _name_only(state: Any) -> str:
    # A game state's text is a whole board: too much for one line of a tree.
    text = str(state)
    return "" if "\n" in text else text


def parse_options(argv: Sequence[str], prog: str = "pacman tree") -> TreeOptions:
    """The run's options, read from ``argv`` and checked once (a ``UsageError`` names a flag)."""
    parsed = build_parser(prog).parse_args(list(argv))
    options = TreeOptions(
        pacman=parsed.pacman,
        agent_args=parsed.agentArgs,
        layout=parsed.layout,
        num_ghosts=parsed.numghosts,
        replay=parsed.replay,
        move=parsed.move,
        test_file=parsed.test,
        algorithm=parsed.algorithm,
        html=parsed.html,
        text=parsed.text,
        text_ply=parsed.text_ply,
    )
    if options.num_ghosts < 0:
        raise UsageError(f"-k/--numghosts {options.num_ghosts}: must be at least 0")
    if options.text_ply is not None and options.text_ply < 0:
        raise UsageError(f"--text-ply {options.text_ply}: must be at least 0")
    return options


def main(argv: Sequence[str] | None = None, prog: str = "pacman tree") -> int:
    """``pacman tree ARGS``; returns the exit code."""
    try:
        return run(parse_options(sys.argv[1:] if argv is None else argv, prog))
    except AgentCrashed as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 1
    except PacmanError as error:
        print(f"{prog}: {untrusted.line(error)}", file=sys.stderr)  # one line, whatever it names
        return 2


def tree_test_start(path: str) -> tuple[Any, dict[str, str]]:
    """A CS188 ``GraphGameTreeTest`` file's start state and its fields."""
    from pacman.gametree import GameTree
    from pacman.testfile import read_test_file

    fields = read_test_file(path)
    kind = fields.get("class", "").strip()
    if kind != "GraphGameTreeTest":
        raise PacmanError(
            f"{path}: a tree needs a GraphGameTreeTest file; this one is {kind or 'of no class'}"
        )
    return GameTree.from_fields(fields).start, dict(fields)
