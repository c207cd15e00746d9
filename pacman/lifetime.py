"""Processes that end with the process that started them (Linux's parent-death signal)."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> bool:
    """Have the kernel SIGKILL this process when its parent dies; False where it cannot.

    Call it in the child. If the parent is already gone (it died before the signal was
    armed), the child exits at once.
    """
    if not sys.platform.startswith("linux"):
        return False
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), 0, 0, 0) != 0:
        return False
    if os.getppid() != parent:
        os._exit(1)
    return True
