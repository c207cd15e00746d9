"""A game's randomness: one stream per agent, the ghosts' kept secret.

A game's seed decides everything random in it, but the streams it decides are the
game's, not the agents': each agent of a game draws from a stream of its own, derived
from the seed by a keyed hash. Pac-Man's stream is derived from the seed alone (what an
agent draws is its own business); each ghost's is derived from the seed *and a secret*
that no agent's process is given. So an agent that copies ``random.getstate()``, or
seeds a generator with a public test seed (or with any seed it cares to try), learns
nothing of what the ghosts will do; and the same seed and secret still give the same
game wherever it is played: in-process, in a pool, on Dask, with agents in sandboxed
workers.

"An agent's stream" is where it draws from: the project's agents and ghosts are handed
a ``random.Random`` (their ``rng``); agents written for CS188 draw from Python's
``random`` module, which is seeded with their stream just before the game. Where more
than one such agent plays in one process (a course's own ghosts beside a student's
agent), each gets the module's state in turn (:class:`ModuleStreams`), so every agent
draws exactly what it would draw alone in a process of its own, as sandboxed agents do.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pacman.errors import UsageError

#: Modules whose agents are the project's own: they take their stream as ``rng``.
PROJECT_PACKAGES = ("pacman", "agents")

#: What CS188's autograder seeds ``random`` with before it imports the student's files: a
#: student's worker does the same, and seeds it so again before each tree test, which is
#: what CS188 gives a tree test run alone (``-t``). So a grade repeats whatever the code draws.
CS188_SEED = 0


def new_secret() -> str:
    """A fresh secret: 128 random bits from the kernel, as hex."""
    return os.urandom(16).hex()


#: The environment variable a secret may come in instead of ``--game-secret``.
SECRET_VARIABLE = "PACMAN_GAME_SECRET"


def read_secret(text: str, flag: str = "--game-secret") -> str:
    """``--game-secret TEXT``, ``@FILE`` for a secret kept in a file, or ``@-`` to read it
    from standard input.

    A command line can be read by other users of the machine (``ps``), and by student code
    where nothing keeps it out of ``/proc``; a file readable by the grader alone cannot.
    """
    if not text.startswith("@"):
        hide_from_command_line(text)
        return text
    path = text[1:]
    try:
        if path == "-":
            import sys

            path, secret = "standard input", sys.stdin.read().strip()
        else:
            with open(path, encoding="utf-8") as handle:
                secret = handle.read().strip()
    except OSError as error:
        raise UsageError(f"{flag} {text}: cannot read {path} ({error.strerror})") from None
    except UnicodeDecodeError:
        raise UsageError(f"{flag} {text}: {path} is not text") from None
    if not secret:
        raise UsageError(f"{flag} {text}: {path} is empty")
    return secret


def hide_from_command_line(secret: str) -> None:
    """Overwrite ``secret`` with ``*`` in the arguments the kernel shows for this process
    (``/proc/PID/cmdline``, ``ps``): any user of the machine may read them, student code in a
    worker that no namespace or Landlock keeps out of ``/proc`` too. Workers forked later
    inherit the masked copy. Best effort: where the kernel does not say where the arguments
    are, they stay as they were (``@FILE`` keeps a secret out of them in any case)."""
    import ctypes

    if not sys.platform.startswith("linux") or not secret:
        return
    try:
        with open("/proc/self/stat", "rb") as handle:
            stat = handle.read()
        fields = stat[stat.rindex(b")") + 2 :].split()
        start, end = int(fields[45]), int(fields[46])  # arg_start and arg_end (Linux 3.5+)
    except (OSError, ValueError, IndexError):
        return
    if not 0 < start < end or end - start > 1 << 20:
        return
    wanted = os.fsencode(secret)
    shown = ctypes.string_at(start, end - start)
    offset = 0
    for argument in shown.split(b"\0"):
        # The secret as an argument of its own, or after "=" (--game-secret=TEXT).
        if argument == wanted or argument.endswith(b"=" + wanted):
            at = offset + len(argument) - len(wanted)
            ctypes.memset(start + at, ord("*"), len(wanted))
        offset += len(argument) + 1


def mixed_secret(secret: str, *parts: bytes) -> str:
    """A secret of its own for one use of ``secret`` (a submission's trees: its files'
    bytes; a test's games without a course secret: the test's fields)."""
    import hashlib

    digest = hashlib.sha256(secret.encode("utf-8", "surrogateescape"))
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def _derive(label: str, seed: int, secret: str) -> int:
    import hashlib  # here: a sandboxed worker imports this module and never derives

    key = hashlib.sha256(secret.encode("utf-8", "surrogateescape")).digest()
    data = f"pacman-game/{label}/{seed}".encode()
    return int.from_bytes(hashlib.blake2b(data, key=key, digest_size=16).digest(), "big")


@dataclass(frozen=True)
class GameSeeds:
    """The streams of one game: ``seed`` (public, recorded) and ``secret`` (never sent to
    an agent's process; ``""`` where no agent needs keeping out, as in-process play)."""

    seed: int
    secret: str = ""

    def for_agent(self, index: int) -> int:
        """The seed of agent ``index``'s own stream (Pac-Man is 0)."""
        if index == 0:
            return _derive("pacman", self.seed, "")
        return _derive(f"ghost{index}", self.seed, self.secret)


def is_project_agent(agent: object) -> bool:
    """Whether ``agent``'s class is the project's own (it draws from its ``rng``)."""
    module = type(agent).__module__ or ""
    return module.split(".", 1)[0] in PROJECT_PACKAGES


def seed_agent(agent: object, seed: int) -> None:
    """Hand ``agent`` its stream: its ``rng`` where it has one, and Python's ``random``."""
    if hasattr(agent, "rng"):
        agent.rng = random.Random(seed)
    seed_modules(seed)


def seed_modules(seed: int) -> None:
    """Seed the generators a student's code draws from without being handed one: Python's
    ``random``, and NumPy's global one where the process has loaded ``numpy.random``
    (NumPy takes 32 bits of the seed)."""
    random.seed(seed)
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed(seed % (1 << 32))


class ModuleStreams:
    """Python's ``random`` shared by several agents of one process, one state each.

    :meth:`playing` puts agent ``index``'s state in the module for the length of a call
    and keeps what is left of it afterwards.
    """

    def __init__(self, seeds: dict[int, int]) -> None:
        self._states: dict[int, Any] = {}
        for index, seed in seeds.items():
            random.seed(seed)
            self._states[index] = random.getstate()

    def wrap(self, index: int, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function`` (one of agent ``index``'s methods) run with that agent's state."""
        if index not in self._states:
            return function

        def with_own_stream(*args: Any) -> Any:
            with self.playing(index):
                return function(*args)

        return with_own_stream

    @contextmanager
    def playing(self, index: int) -> Iterator[None]:
        state = self._states.get(index)
        if state is None:
            yield
            return
        random.setstate(state)
        try:
            yield
        finally:
            self._states[index] = random.getstate()


def seed_game(agents: Sequence[object], seeds: GameSeeds) -> ModuleStreams | None:
    """Give every agent of a game its own stream; call it after building the agents, just
    before the game starts.

    The project's agents get theirs as ``rng``; an agent playing in another process is
    told its seed through ``use_game_seed`` (its worker calls :func:`seed_agent`); Python's
    ``random`` gets the stream of the one agent that draws from it. Where several do,
    the returned :class:`ModuleStreams` must wrap each of their calls (the game does).
    """
    from_module: dict[int, int] = {}
    for index, agent in enumerate(agents):
        own = seeds.for_agent(index)
        remote = getattr(agent, "use_game_seed", None)
        if remote is not None:
            remote(own)
        else:
            if hasattr(agent, "rng"):
                agent.rng = random.Random(own)
            if not is_project_agent(agent):
                from_module[index] = own
    if len(from_module) > 1:
        return ModuleStreams(from_module)
    # The one agent that draws from the module, else Pac-Man's stream (stray draws repeat).
    random.seed(next(iter(from_module.values()), seeds.for_agent(0)))
    return None
