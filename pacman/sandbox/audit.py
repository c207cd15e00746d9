"""The audit hook: a tripwire in the worker, not a wall. It turns the common mistakes and the
plain attacks (reading the suite, spawning a process) into clear messages; the kernel's
walls (:mod:`pacman.sandbox.walls`) are what hold when student code switches it off.
"""

from __future__ import annotations

import os
import sys
from typing import Any

# Audit events a submission never needs. The hook cannot be removed once added; it is a
# speed bump that makes the common attacks fail with a clear message (the process and
# namespace limits set up by the parent are the real walls).
_DENIED_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.kill",
        "os.killpg",
        "signal.pthread_kill",
        "os.link",
        "os.symlink",
        "os.truncate",
        "os.chmod",
        "os.chown",
        "os.utime",
        "shutil.rmtree",
        "shutil.copyfile",
        "shutil.move",
        "socket.connect",
        "socket.bind",
        "socket.sendto",
        "socket.sendmsg",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "pty.spawn",
        "webbrowser.open",
        "urllib.Request",
        "sys._current_frames",
    }
)


#: Allowed inside the scratch folder only (tempfile, for one, removes what it makes there).
_SCRATCH_EVENTS = frozenset({"os.remove", "os.rmdir", "os.rename"})


_DENIED_IMPORTS = frozenset({"_posixsubprocess", "cffi", "_xxsubinterpreters"})


_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class SandboxViolation(PermissionError):
    """Raised by the audit hook for an operation the sandbox forbids."""


class HiddenModule(ModuleNotFoundError):
    """Raised by the audit hook for a module student code may not import."""


def install_tripwire(
    denied_paths: list[str],
    writable: list[str],
    hidden_modules: tuple[str, ...] = (),
    kept: tuple[str, ...] = (),
) -> None:
    """``kept``: folders readable inside a denied one (the student's staged copy, which a
    TMPDIR inside the code directory puts there), as the policy's ``keep`` are."""
    denied = tuple(os.path.join(os.path.realpath(p), "") for p in denied_paths)
    kept_below = tuple(os.path.join(os.path.realpath(p), "") for p in kept)
    denied_exact = tuple(os.path.realpath(p) for p in denied_paths)
    allowed_writes = (*tuple(os.path.join(os.path.realpath(p), "") for p in writable), "/dev/null")
    parent_proc = f"/proc/{os.getppid()}/"

    def resolve(path: Any) -> str | None:
        if isinstance(path, int):
            return None
        try:
            text = os.fsdecode(os.fspath(path))
        except TypeError:
            return None
        return os.path.realpath(text)

    def hidden(real: str) -> bool:
        if real.startswith(kept_below):
            return False
        return (
            real.startswith(denied)
            or real in denied_exact
            or real.startswith(parent_proc)
            or (real.startswith("/proc/") and real.endswith(("/mem", "/environ", "/cmdline")))
        )

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            real = resolve(args[0])
            if real is None:
                return
            if hidden(real):
                raise SandboxViolation(f"grader sandbox: reading {args[0]!r} is not allowed")
            mode, flags = args[1], args[2] if len(args) > 2 else 0
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(
                isinstance(flags, int) and flags & _WRITE_FLAGS
            )
            if writing and not (real.startswith(allowed_writes) or real == "/dev/null"):
                raise SandboxViolation(f"grader sandbox: writing {args[0]!r} is not allowed")
        elif event in _SCRATCH_EVENTS:
            paths = [resolve(a) for a in args[:2] if isinstance(a, (str, bytes, os.PathLike))]
            if not paths or not all(p and p.startswith(allowed_writes) for p in paths):
                raise SandboxViolation(f"grader sandbox: {event} outside the scratch folder")
        elif event in ("os.listdir", "os.scandir"):
            real = resolve(args[0]) if args and args[0] is not None else None
            if real is not None and hidden(real):
                raise SandboxViolation(f"grader sandbox: listing {args[0]!r} is not allowed")
        elif event == "import":
            name = args[0]
            if any(name == m or name.startswith(m + ".") for m in hidden_modules):
                raise HiddenModule(f"grader sandbox: {name} is not available to submissions")
            if name in _DENIED_IMPORTS:
                raise SandboxViolation(f"grader sandbox: importing {args[0]} is not allowed")
        elif event in _DENIED_EVENTS or event.startswith("ctypes."):
            raise SandboxViolation(f"grader sandbox: {event} is not allowed")

    sys.addaudithook(hook)
