"""Many games: per-game seeds, parallel workers, progress, records.

Game ``i`` of a batch is seeded with ``seed + i`` and draws every random
number from its own generator, so its outcome does not depend on which
worker plays it: ``--jobs 4`` gives exactly the results of a serial run.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from pacman.errors import PacmanError
from pacman.game import Game, GameResult
from pacman.layout import Layout, load_layout, parse_layout
from pacman.loading import build_agent, find_class
from pacman.state import GameState

RECORD_FORMAT = "pacman-game-record"
RECORD_VERSION = 1


@dataclass(frozen=True)
class GameSpec:
    """Everything needed to play one game, picklable for worker processes."""

    layout: str
    pacman: str = "RandomAgent"
    pacman_args: dict[str, str] = field(default_factory=dict)
    ghost: str = "RandomGhost"
    num_ghosts: int = 4
    seed: int = 0
    catch_exceptions: bool = False
    timeout: float | None = None
    max_moves: int | None = None


@lru_cache(maxsize=64)
def _layout(name: str) -> Layout:
    return load_layout(name)


def _class(name: str, role: str) -> type:
    # Keyed on the working directory too: a plain name may mean a class of ./*gents.py.
    return _class_in(name, role, os.getcwd())


@lru_cache(maxsize=64)
def _class_in(name: str, role: str, folder: str) -> type:
    return find_class(name, role)


def build_agents(spec: GameSpec, layout: Layout, pacman: object | None = None) -> list[object]:
    """The Pac-Man agent (unless given) and one ghost per ghost of the game."""
    if pacman is None:
        pacman = build_agent(_class(spec.pacman, "agent"), "agent", **spec.pacman_args)
    ghost_class = _class(spec.ghost, "ghost")
    count = min(spec.num_ghosts, layout.num_ghosts)
    return [pacman, *(build_agent(ghost_class, "ghost", index) for index in range(1, count + 1))]


def play(
    spec: GameSpec,
    observers: Sequence[object] = (),
    pacman: object | None = None,
) -> GameResult:
    """Play one game. ``pacman`` reuses an existing agent (CS188 keeps one across games)."""
    layout = _layout(spec.layout)
    agents = build_agents(spec, layout, pacman)
    rng = random.Random(spec.seed)
    for agent in agents:
        if hasattr(agent, "rng"):
            agent.rng = rng
    state = GameState.initial(layout, min(spec.num_ghosts, layout.num_ghosts))
    game = Game(
        state,
        agents,
        observers=observers,
        catch_exceptions=spec.catch_exceptions,
        move_timeout=spec.timeout,
        game_timeout=spec.timeout,
        max_moves=spec.max_moves,
        seed=spec.seed,
    )
    result = game.run()
    stats = getattr(agents[0], "stats", None)
    if stats is not None and hasattr(stats, "summary"):
        result.stats = stats.summary()
    return result


def _play_without_state(spec: GameSpec) -> GameResult:
    """Worker entry point: the final state stays in the worker (it is not needed back)."""
    result = play(spec)
    result.final_state = None
    return result


def run_games(
    specs: Sequence[GameSpec],
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    observers_for: Callable[[int], Sequence[object]] | None = None,
    progress: bool = False,
) -> Iterator[GameResult]:
    """Play the games, yielding results in order.

    Serially (``jobs == 1`` and no executor) one Pac-Man agent serves every
    game, as in CS188, and observers may watch; otherwise each game builds its
    own agents in a worker of ``executor`` (by default a process pool).
    """
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(specs), unit="game", file=sys.stderr, leave=False)
    try:
        if executor is None and jobs <= 1:
            pacman = None
            for index, spec in enumerate(specs):
                if pacman is None:
                    pacman = build_agent(_class(spec.pacman, "agent"), "agent", **spec.pacman_args)
                observers = observers_for(index) if observers_for else ()
                yield play(spec, observers, pacman)
                if bar is not None:
                    bar.update()
            return
        owned = executor is None
        pool = executor or ProcessPoolExecutor(max_workers=jobs)
        try:
            chunk = max(1, len(specs) // (jobs * 8)) if owned else 1
            mapped: Iterable[GameResult] = (
                pool.map(_play_without_state, specs, chunksize=chunk)
                if owned
                else pool.map(_play_without_state, specs)
            )
            for result in mapped:
                yield result
                if bar is not None:
                    bar.update()
        finally:
            if owned:
                pool.shutdown(cancel_futures=True)
    finally:
        if bar is not None:
            bar.close()


def batch(spec: GameSpec, count: int) -> list[GameSpec]:
    """``count`` copies of a spec, game ``i`` seeded with ``spec.seed + i``."""
    return [replace(spec, seed=spec.seed + index) for index in range(count)]


# ------------------------------------------------------------------ files


def write_atomically(path: str | os.PathLike[str], text: str) -> None:
    """Write a whole file or nothing: a temporary file renamed into place."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise PacmanError(f"{path}: cannot write ({error.strerror})") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise PacmanError(f"{path}: cannot write ({error.strerror})") from None


def json_lines(results: Iterable[GameResult], extra: dict[str, Any] | None = None) -> str:
    """One JSON object per game."""
    return "".join(json.dumps({**result.to_json(), **(extra or {})}) + "\n" for result in results)


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
    }


class _Replayer:
    """Plays back the recorded actions of one agent, then ends the replay."""

    def __init__(self, index: int, actions: list[str]) -> None:
        self.index = index
        self.actions = iter(actions)

    def get_action(self, state: Any) -> str:
        action = next(self.actions, None)
        if action is None:
            raise _RecordEnd("the record ends here")
        return action


class _RecordEnd(PacmanError):
    """The recorded actions are used up (the recorded game was cut short)."""


def load_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and check a game record written by ``--record``."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise PacmanError(f"--replay {path}: cannot read ({error.strerror})") from None
    except json.JSONDecodeError as error:
        raise PacmanError(
            f"--replay {path} line {error.lineno} column {error.colno}: not JSON ({error.msg})"
        ) from None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise PacmanError(f'--replay {path}: not a game record (no "format": "{RECORD_FORMAT}")')
    for key in ("layout", "layout_rows", "num_ghosts", "actions"):
        if key not in record:
            raise PacmanError(f"--replay {path}: the record has no {key!r}")
    return record


def replay(record: dict[str, Any], observers: Sequence[object] = ()) -> GameResult:
    """Play a record back move for move; the result's score must equal the recorded one."""
    layout = parse_layout("\n".join(record["layout_rows"]), name=record["layout"])
    state = GameState.initial(layout, record["num_ghosts"])
    count = state.get_num_agents()
    per_agent: list[list[str]] = [[] for _ in range(count)]
    for agent, action in record["actions"]:
        per_agent[agent].append(action)
    agents = [_Replayer(index, per_agent[index]) for index in range(count)]
    game = Game(state, agents, observers=observers, catch_exceptions=True, seed=record.get("seed"))
    result = game.run()
    if result.moves != len(record["actions"]):
        raise PacmanError(
            f"the record does not replay: {result.crash} "
            f"after {result.moves} of {len(record['actions'])} moves"
        )
    # A record cut short (crash, move limit) ends on the exhausted replayer, not on a crash of its own.
    result.crashed = bool(record.get("crash"))
    result.crash = record.get("crash")
    result.truncated = bool(record.get("truncated"))
    result.pacman = record.get("pacman", "replay")
    result.ghosts = list(record.get("ghosts", []))
    return result
