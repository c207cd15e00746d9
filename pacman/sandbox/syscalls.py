"""The C library's calls the sandbox makes: ``prctl``, raw system calls, and the parent-death
signal that makes a process end with the one that started it."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

PR_SET_PDEATHSIG = 1

_libc: Any = None


def libc() -> Any:
    """The C library, loaded once, with errno kept for :func:`check`."""
    global _libc
    if _libc is None:
        import ctypes  # on first use: a serial run of games never needs it

        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def check(result: int) -> int:
    """``result`` of a libc call, or the OSError its errno names when it is negative."""
    if result < 0:
        import ctypes

        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def syscall(number: int, *args: Any) -> int:
    """The raw system call ``number`` (for those libc has no wrapper for); OSError on failure."""
    import ctypes

    library = libc()
    library.syscall.restype = ctypes.c_long
    return int(check(library.syscall(ctypes.c_long(number), *args)))


def prctl(option: int, *args: Any) -> None:
    """``prctl(option, ...)``; whole-number arguments are passed as C unsigned longs."""
    import ctypes

    values = [ctypes.c_ulong(arg) if isinstance(arg, int) else arg for arg in args]
    values += [ctypes.c_ulong(0)] * (4 - len(values))
    check(libc().prctl(option, *values))


def die_with_parent() -> bool:
    """Have the kernel SIGKILL this process when its parent dies; False where it cannot.

    Call it in the child. If the parent is already gone (it died before the signal was
    armed), the child exits at once.
    """
    if not sys.platform.startswith("linux"):
        return False
    parent = os.getppid()
    try:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        return False
    if os.getppid() != parent:
        os._exit(1)
    return True
