"""Frames between the grader and a student worker: a 4-byte length, then UTF-8 JSON.

Both directions use dedicated pipes, never stdout, so whatever student code
prints cannot be mistaken for a reply. The parent reads with a deadline and a
size cap, and treats every reply as untrusted data to validate.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from collections.abc import Callable
from typing import Any

#: The largest frame either side accepts by default (a log of ~100k expansions fits).
MAX_FRAME = 4 * 1024 * 1024

#: Called while waiting on a pipe, every ``poll`` seconds; it may raise to give up.
Watch = Callable[[], None]

_HEADER = struct.Struct(">I")


class ProtocolError(Exception):
    """The other side closed the pipe, sent garbage, or did not answer in time."""


class PipeClosed(ProtocolError):
    """End of file: the other process exited or closed its end."""


class Timeout(ProtocolError):
    """No complete frame before the deadline."""


def encode(message: Any) -> bytes:
    body = json.dumps(message, separators=(",", ":"), allow_nan=True).encode("utf-8")
    if len(body) > MAX_FRAME:
        raise ProtocolError(f"message of {len(body)} bytes is larger than {MAX_FRAME}")
    return _HEADER.pack(len(body)) + body


def _wait_left(
    deadline: float | None, watch: Watch | None, poll: float, what: str, waited: bool
) -> float | None:
    """Seconds to wait for the pipe now; raises Timeout past the deadline.

    ``watch`` runs once the pipe has kept us waiting (``waited``): a quick answer costs
    no look at the other side.
    """
    if watch is not None and waited:
        watch()
    if deadline is None:
        return poll if watch is not None else None
    left = deadline - time.monotonic()
    if left <= 0:
        raise Timeout(what)
    return min(left, poll) if watch is not None else left


def write_frame(
    fd: int,
    message: Any,
    deadline: float | None = None,
    watch: Watch | None = None,
    poll: float = 0.05,
) -> None:
    """Send one message; with a deadline, give up (Timeout) if the reader stalls."""
    data = memoryview(encode(message))
    waited = False
    while data:
        if deadline is not None or watch is not None:
            left = _wait_left(deadline, watch, poll, "the other side stopped reading", waited)
            _, ready, _ = select.select([], [fd], [], left)
            if not ready:
                waited = True
                continue
        try:
            written = os.write(fd, data[: 1 << 16])
        except BrokenPipeError:
            raise PipeClosed("the other side closed the pipe") from None
        data = data[written:]


def _read_exact(
    fd: int, size: int, deadline: float | None, watch: Watch | None, poll: float
) -> bytes:
    chunks: list[bytes] = []
    missing = size
    waited = False
    while missing:
        if deadline is not None or watch is not None:
            left = _wait_left(deadline, watch, poll, "no reply before the deadline", waited)
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                waited = True
                continue
        chunk = os.read(fd, min(missing, 1 << 20))
        if not chunk:
            raise PipeClosed("the other side closed the pipe")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


def read_frame(
    fd: int,
    deadline: float | None = None,
    watch: Watch | None = None,
    poll: float = 0.05,
    max_size: int = MAX_FRAME,
) -> Any:
    """Receive one message (any JSON value); raise ProtocolError on anything malformed.

    A frame announced larger than ``max_size`` is refused before it is read.
    """
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size, deadline, watch, poll))
    if size > max_size:
        raise ProtocolError(f"a reply of {size} bytes announced; the limit is {max_size}")
    body = _read_exact(fd, size, deadline, watch, poll)
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ProtocolError(f"malformed frame: {type(error).__name__}") from None


# -- game states on the wire ------------------------------------------------------------------


def state_fields(state: Any) -> list[Any]:
    """What a worker needs to rebuild ``state`` on its own copy of the layout: agents, food,
    capsules, score, outcome (the state's pickle arguments, the shared maze left out)."""
    _, (_maze, agents, food, capsules, score, outcome) = state.__reduce__()
    return [
        [[list(pos), facing, scared] for pos, facing, scared in agents],
        food,
        capsules,
        score,
        outcome,
    ]


def state_from_fields(start: Any, fields: list[Any]) -> Any:
    """The state :func:`state_fields` described, on the maze of ``start`` (a state of the
    same game). JSON made the tuples lists: they are tuples again, so states compare equal."""
    make, (maze, *_) = start.__reduce__()
    agents, food, capsules, score, outcome = fields
    agents = tuple((tuple(pos), facing, scared) for pos, facing, scared in agents)
    capsules = tuple(tuple(capsule) for capsule in capsules)
    return make(maze, agents, food, capsules, score, outcome)
