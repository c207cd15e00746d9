"""Many games: per-game seeds, parallel workers, progress, records.

Game ``i`` of a batch is seeded with ``seed + i`` and draws every random
number from its own generator, so its outcome does not depend on which
worker plays it: ``--jobs 4`` gives exactly the results of a serial run.
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from pacman.agent import display_name
from pacman.errors import AgentExited
from pacman.execution import InOrder, TaskRun, progress_bar
from pacman.game import Game, GameEnd, GameResult, where
from pacman.layout import Layout, load_layout, parse_layout, playable
from pacman.loading import USER_MODULE_PREFIX, build_agent, find_class
from pacman.seeding import new_secret
from pacman.state import GameState


@dataclass(frozen=True)
class ResolvedAgent:
    """A ``-p``/``-g`` name resolved: the class played in this process, or (under
    ``--isolation sandbox``) the untrusted file's ``(file name, source, class name)``,
    played from a worker and never imported here."""

    name: str  #: the name it plays as (:func:`pacman.agent.display_name`)
    cls: type | None = None
    untrusted: tuple[str, str, str] | None = None


@dataclass(frozen=True)
class GameSpec:
    """Everything needed to play one game, picklable for worker processes.

    ``layout_text`` and ``agent_files`` (file name as given -> source) let the game
    travel to a machine that has neither the layout file nor the agent's file; see
    :func:`portable`.
    """

    layout: str
    pacman: str = "RandomAgent"
    pacman_args: dict[str, str] = field(default_factory=dict)
    ghost: str = "RandomGhost"
    num_ghosts: int = 4
    #: The game's seed (:mod:`pacman.seeding`); None: the game hands its agents no streams
    #: (a recorded graded game, whose agents draw as CS188's did; a replay of such a game).
    seed: int | None = 0
    catch_exceptions: bool = False
    timeout: float | None = None
    max_moves: int | None = None
    layout_text: str | None = None
    agent_files: tuple[tuple[str, str], ...] = ()
    #: Keep agents' marks and Pac-Man's search results for the game's record (``--record``).
    keep_notes: bool = False
    #: "sandbox": agents that are not the project's play from the grader's sandboxed
    #: workers (pacman.sandbox.games); "none": in this process.
    isolation: str = "none"
    #: The secret the ghosts' streams are derived with (:mod:`pacman.seeding`). None: ""
    #: in-process; a fresh one per run (:func:`stream_games`) where agents are sandboxed,
    #: so they cannot work the ghosts' moves out from a seed.
    secret: str | None = None
    #: ``layout`` as the caller already loaded it (the command, once per run); None: loaded
    #: here by name or from ``layout_text``. Workers get its text (:func:`portable`).
    loaded_layout: Layout | None = field(default=None, repr=False)
    #: ``(pacman, ghost)`` as the caller resolved them (the command, once per run); None:
    #: resolved here by name. Workers resolve the names again (:func:`portable`).
    resolved_agents: tuple[ResolvedAgent, ResolvedAgent] | None = field(default=None, repr=False)


def _layout(spec: GameSpec) -> Layout:
    if spec.loaded_layout is not None:
        return playable(spec.loaded_layout)
    if spec.layout_text is not None:
        return playable(_parsed_layout(spec.layout_text, spec.layout))
    return playable(_loaded_layout(spec.layout))


@lru_cache(maxsize=64)
def _loaded_layout(name: str) -> Layout:
    return load_layout(name)


@lru_cache(maxsize=64)
def _parsed_layout(text: str, name: str) -> Layout:
    return parse_layout(text, name=name)


def agent_class(name: str, role: str, agent_files: tuple[tuple[str, str], ...] = ()) -> type:
    """The class a ``-p``/``-g`` name stands for (see :func:`pacman.loading.find_class`).

    Files in ``agent_files`` are read from there, not from disk. A file that calls
    ``sys.exit`` while it is imported raises :class:`AgentExited`, naming it.
    """
    file_name, _, class_name = name.rpartition(":")
    source = dict(agent_files).get(file_name) if file_name else None
    if source is not None:
        return _class_from_source(file_name, source, class_name, role)
    # Keyed on the working directory too: a plain name may mean a class of ./*gents.py.
    return _class_in(name, role, os.getcwd())


@lru_cache(maxsize=64)
def _class_in(name: str, role: str, folder: str) -> type:
    with _agent_code(f"the {role} {name}"):
        return find_class(name, role)


@lru_cache(maxsize=64)
def _class_from_source(file_name: str, source: str, class_name: str, role: str) -> type:
    """A class of an agent file sent with the game: imported from a private copy, once per worker."""
    with tempfile.TemporaryDirectory(prefix="pacman-agent-") as folder:
        copy = Path(folder) / Path(file_name).name
        copy.write_text(source, encoding="utf-8")
        with _agent_code(f"the {role} {file_name}:{class_name}"):
            return find_class(f"{copy}:{class_name}", role)


def resolve_agent(
    name: str, role: str, isolation: str, agent_files: tuple[tuple[str, str], ...] = ()
) -> ResolvedAgent:
    """Agent ``name`` resolved once: under ``--isolation sandbox`` an untrusted file is read,
    not imported; anything else is the class :func:`agent_class` finds."""
    if isolation == "sandbox":
        from pacman.sandbox.games import untrusted_agent

        found = untrusted_agent(name, role, agent_files)
        if found is not None:
            return ResolvedAgent(found[2], untrusted=found)
    cls = agent_class(name, role, agent_files)
    return ResolvedAgent(cls.__name__, cls=cls)


def _resolved(spec: GameSpec, role: str) -> ResolvedAgent:
    if spec.resolved_agents is not None:
        return spec.resolved_agents[0 if role == "agent" else 1]
    name = spec.pacman if role == "agent" else spec.ghost
    return resolve_agent(name, role, spec.isolation, spec.agent_files)


def portable(spec: GameSpec) -> GameSpec:
    """The spec with its layout's text and its agents' files inside, for workers elsewhere.

    A plain agent name found in the working directory's ``*gents.py`` (as CS188
    finds them) travels as that file too; names of installed modules travel as names.
    """
    if spec.isolation == "sandbox":
        return _sandboxed_portable(spec)  # the same, without importing the agents' files
    layout, layout_text, pacman, ghost, files = _carried(
        spec.loaded_layout or spec.layout, spec.pacman, spec.ghost, spec.agent_files
    )
    return replace(
        spec,
        loaded_layout=None,
        resolved_agents=None,  # the agents' classes go as names and files
        layout=layout,
        layout_text=layout_text,
        pacman=pacman,
        ghost=ghost,
        agent_files=files,
    )


def _sandboxed_portable(spec: GameSpec) -> GameSpec:
    """:func:`portable` for a sandboxed game: the layout's text and the untrusted agents'
    files travel with the spec, found without importing them."""
    from pacman.sandbox.games import untrusted_agent

    layout = spec.loaded_layout
    if layout is None and spec.layout_text is None:
        layout = _loaded_layout(spec.layout)
    files = dict(spec.agent_files)
    names = []
    for number, (role, name) in enumerate((("agent", spec.pacman), ("ghost", spec.ghost))):
        if spec.resolved_agents is not None:
            found = spec.resolved_agents[number].untrusted
        else:
            found = untrusted_agent(name, role, spec.agent_files)
        if found is not None:
            file_name, source, class_name = found
            files.setdefault(file_name, source)
            name = f"{file_name}:{class_name}"
        names.append(name)
    return replace(
        spec,
        loaded_layout=None,
        resolved_agents=None,
        layout=layout.name if layout is not None else spec.layout,
        layout_text="\n".join(layout.rows) if layout is not None else spec.layout_text,
        pacman=names[0],
        ghost=names[1],
        agent_files=tuple(sorted(files.items())),
    )


@lru_cache(maxsize=16)
def _carried(
    layout: str | Layout, pacman: str, ghost: str, agent_files: tuple[tuple[str, str], ...]
) -> tuple[str, str, str, str, tuple[tuple[str, str], ...]]:
    # Once per batch, not per game: a batch's games differ only in their seeds.
    if not isinstance(layout, Layout):
        layout = _loaded_layout(layout)
    files = dict(agent_files)
    names = []
    for role, name in (("agent", pacman), ("ghost", ghost)):
        cls = agent_class(name, role, agent_files)
        path = getattr(sys.modules.get(cls.__module__), "__file__", None)
        if cls.__module__.startswith(USER_MODULE_PREFIX) and path:
            file_name = name.rpartition(":")[0] or os.path.basename(path)
            if file_name not in files:
                files[file_name] = Path(path).read_text(encoding="utf-8")
            name = f"{file_name}:{cls.__name__}"
        names.append(name)
    pacman_name, ghost_name = names
    return (
        layout.name,
        "\n".join(layout.rows),
        pacman_name,
        ghost_name,
        tuple(sorted(files.items())),
    )


@contextmanager
def _agent_code(who: str, agents: Sequence[object] = ()) -> Iterator[None]:
    """Agent code that calls ``sys.exit`` crashes its game, named, instead of ending the program.

    ``who`` names the code when it is not one of ``agents`` (an import, a constructor).
    """
    try:
        yield
    except SystemExit as stop:
        for frame, _ in traceback.walk_tb(stop.__traceback__):
            owner = frame.f_locals.get("self")
            if any(owner is agent for agent in agents):
                index = next(i for i, agent in enumerate(agents) if agent is owner)
                kind = "Pac-Man" if index == 0 else f"ghost {index}"
                who = f"{kind} ({display_name(owner)})"
                break
        raise AgentExited(f"{who} called sys.exit({stop.code!r}){where(stop)}") from None


def build_agents(
    spec: GameSpec,
    layout: Layout,
    pacman: object | None = None,
    ghosts: Sequence[object] | None = None,
) -> list[object]:
    """The Pac-Man agent and one ghost per ghost of the game, each built unless given."""
    if pacman is None:
        pacman = _build("agent", spec, **spec.pacman_args)
    wanted = spec.num_ghosts if ghosts is None else len(ghosts)
    count = min(wanted, layout.num_ghosts)
    fits = getattr(pacman, "check_game", None)
    if fits is not None:
        fits(1 + count)  # arguments that do not fit this game (layers=...) fail here, not in it
    if ghosts is not None:
        # All of them, as given: the game plays the first ``count`` (its state has no more).
        return [pacman, *ghosts]
    return [pacman, *(_build("ghost", spec, index) for index in range(1, count + 1))]


def _build(role: str, spec: GameSpec, *args: Any, **kwargs: Any) -> object:
    resolved = _resolved(spec, role)
    if resolved.untrusted is not None:
        from pacman.sandbox.games import sandboxed_agent

        return sandboxed_agent(resolved.untrusted, role, args, kwargs, spec.timeout)
    cls = resolved.cls
    assert cls is not None, "an agent resolved in-process has its class"
    with _agent_code(f"the {role} {cls.__name__}"):
        return build_agent(cls, role, *args, **kwargs)


def play(
    spec: GameSpec,
    observers: Sequence[object] = (),
    pacman: object | None = None,
    ghosts: Sequence[object] | None = None,
) -> GameResult:
    """Play the game ``spec`` describes, the one way a game is played: its agents built by
    name, then played by :class:`pacman.game.Game` within the spec's limits. ``pacman``
    reuses an existing agent (CS188 keeps one across games); ``ghosts`` are played as
    given (a graded game's, a replay's)."""
    return play_to_end(spec, observers, pacman, ghosts).outcome()


def play_to_end(
    spec: GameSpec,
    observers: Sequence[object] = (),
    pacman: object | None = None,
    ghosts: Sequence[object] | None = None,
) -> GameEnd:
    """:func:`play`, a stop on the final board handed back with the game it ended."""
    (spec,) = with_secret([spec])
    layout = _layout(spec)
    agents = build_agents(spec, layout, pacman, ghosts)
    stats = getattr(agents[0], "stats", None)
    if stats is not None and hasattr(stats, "reset"):
        stats.reset()  # per game, also for the one agent a serial run keeps across games
    # The game seeds its agents as it starts, after they are built (once per run serially,
    # once per game in parallel): game i plays alike in every mode and alone.
    with _agent_code(f"the agent {display_name(agents[0])}", agents):
        end = Game(
            GameState.initial(layout, len(agents) - 1),
            agents,
            observers=observers,
            catch_exceptions=spec.catch_exceptions,
            move_timeout=spec.timeout,
            game_timeout=spec.timeout,
            max_moves=spec.max_moves,
            seed=spec.seed,
            secret=spec.secret or "",
            keep_notes=spec.keep_notes,
        ).play()
    if stats is not None and hasattr(stats, "summary"):
        end.result.stats = stats.summary()
    return end


def _play_without_state(spec: GameSpec) -> GameResult:
    """Worker entry point: the final state stays in the worker (it is not needed back)."""
    result = play(spec)
    result.final_state = None
    return result


def with_secret(specs: Sequence[GameSpec]) -> list[GameSpec]:
    """The specs with their secret chosen: one fresh secret for the run's sandboxed games
    that name none, ``""`` for in-process ones (see :class:`GameSpec`)."""
    fresh: str | None = None
    chosen = []
    for spec in specs:
        if spec.secret is None:
            if spec.isolation == "sandbox":
                fresh = fresh or new_secret()
                spec = replace(spec, secret=fresh)
            else:
                spec = replace(spec, secret="")
        chosen.append(spec)
    return chosen


def stream_games(
    specs: Sequence[GameSpec],
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    executor: Executor | None = None,
    observers: Sequence[Sequence[object]] = (),
    progress: bool = False,
) -> Iterator[tuple[int, GameResult]]:
    """Play the games, yielding ``(index, result)`` as each game finishes.

    Serially (``jobs == 1``, no scheduler, no executor) one Pac-Man agent serves
    every game, as in CS188, and ``observers[i]`` (if given, one sequence per game)
    watch game ``i``. Otherwise each game builds
    its own agents on a worker: ``jobs`` local processes, the Dask ``scheduler``
    (``"local"`` for a LocalCluster of ``jobs`` workers), or ``executor``; games
    go there with their layout and agent files (:func:`portable`). Stopping the
    iteration early (an exception, an interruption) kills the local workers.
    """
    if observers and len(observers) != len(specs):
        raise ValueError(f"observers for {len(observers)} games, but {len(specs)} games")
    specs = with_secret(specs)
    bar = progress_bar(len(specs), "game", progress)
    scope = ExitStack()
    if any(spec.isolation == "sandbox" for spec in specs):
        from pacman.sandbox.games import sandboxed_run  # (imported only where it is used)

        scope.enter_context(sandboxed_run())
    try:
        if executor is None and scheduler is None and jobs <= 1:
            pacman = None
            for index, spec in enumerate(specs):
                if pacman is None:
                    pacman = _build("agent", spec, **spec.pacman_args)
                end = play_to_end(spec, observers[index] if observers else (), pacman)
                bar.update()
                yield index, end.result
                end.outcome()  # stopped on its final board: the game counted, the run stops
            return
        sent = [portable(spec) for spec in specs]
        with TaskRun(
            _play_without_state, sent, jobs=jobs, scheduler=scheduler, executor=executor
        ) as run:
            for index, result in run:
                bar.update()
                yield index, result
    finally:
        bar.close()
        scope.close()


def run_games(
    specs: Sequence[GameSpec],
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    executor: Executor | None = None,
    observers: Sequence[Sequence[object]] = (),
    progress: bool = False,
) -> Iterator[GameResult]:
    """Play the games (as :func:`stream_games`), yielding results in game order."""
    order: InOrder[GameResult] = InOrder()
    for index, result in stream_games(
        specs,
        jobs=jobs,
        scheduler=scheduler,
        executor=executor,
        observers=observers,
        progress=progress,
    ):
        yield from order.add(index, result)


def batch(spec: GameSpec, count: int) -> list[GameSpec]:
    """``count`` copies of a spec, game ``i`` seeded with ``spec.seed + i`` (all unseeded
    if ``spec`` is)."""
    first = spec.seed
    return [replace(spec, seed=None if first is None else first + index) for index in range(count)]
