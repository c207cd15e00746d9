"""Landlock (Linux 5.13+): the file system as an allow-list, TCP cut off (ABI 4), signals and
abstract sockets kept inside (ABI 6), from an unprivileged process's own ctypes calls.

The PyPI binding lacks the network and scope ABIs; these are the kernel's numbers and structs.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import stat
import struct
import sys

from pacman.sandbox.policy import inside
from pacman.sandbox.syscalls import syscall

_SYS_LANDLOCK_CREATE_RULESET = 444  # the same number on every architecture


_SYS_LANDLOCK_ADD_RULE = 445


_SYS_LANDLOCK_RESTRICT_SELF = 446


_LANDLOCK_CREATE_RULESET_VERSION = 1


_RULE_PATH_BENEATH = 1


_FS_EXECUTE = 1 << 0


_FS_WRITE_FILE = 1 << 1


_FS_READ_FILE = 1 << 2


_FS_READ_DIR = 1 << 3


_FS_TRUNCATE = 1 << 14


_FS_IOCTL_DEV = 1 << 15


#: Access rights known to each Landlock ABI version (index = version).
_FS_BY_ABI = [0, (1 << 13) - 1, (1 << 14) - 1, (1 << 15) - 1, (1 << 15) - 1, (1 << 16) - 1]


_NET_BIND_TCP = 1 << 0


_NET_CONNECT_TCP = 1 << 1


_SCOPE_ABSTRACT_UNIX = 1 << 0


_SCOPE_SIGNAL = 1 << 1


_READ = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR


#: Rights that make sense on a regular file (Landlock refuses directory rights there).
_FILE_RIGHTS = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers (0: none)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        return syscall(
            _SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), _LANDLOCK_CREATE_RULESET_VERSION
        )
    except OSError:
        return 0


def allowed_reads(roots: list[str], hidden: list[str], keep: list[str]) -> list[tuple[str, int]]:
    """Landlock rules granting reads under ``roots``, except ``hidden``.

    A path is readable when the deepest of ``hidden`` and ``keep`` holding it is a keep
    (``keep`` re-opens a folder inside a hidden one, and ``hidden`` closes one inside a
    kept one). Landlock only adds rights and a right given on a folder reaches everything
    below it, so a folder with something hidden below gets only the right to list it, and
    its entries are taken one by one.
    """
    hidden = [os.path.realpath(p) for p in hidden]
    keep = [os.path.realpath(p) for p in keep]
    marks = [(p, False) for p in hidden] + [(p, True) for p in keep]
    rules: dict[str, int] = {}

    def readable(path: str) -> bool:
        holding = [(len(p), ok) for p, ok in marks if inside(path, p)]
        return max(holding)[1] if holding else True

    def visit(path: str) -> None:
        real = os.path.realpath(path)
        if not os.path.exists(real):
            return
        here = readable(real)
        below = [ok for p, ok in marks if inside(p, real) and p != real]
        if here and all(below):
            rules[real] = rules.get(real, 0) | _READ
            return
        if not here and not any(below):
            return
        if not os.path.isdir(real) or os.path.islink(path):
            return
        if here:
            rules[real] = rules.get(real, 0) | _FS_READ_DIR
        with contextlib.suppress(OSError):
            for entry in os.scandir(real):
                visit(entry.path)

    for root in roots:
        visit(root)
    return list(rules.items())


def restrict_self(
    abi: int, reads: list[tuple[str, int]], writes: list[str], devices: tuple[str, ...]
) -> dict[str, bool]:
    handled_fs = _FS_BY_ABI[min(abi, len(_FS_BY_ABI) - 1)]
    handled_net = (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0
    scoped = (_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL) if abi >= 6 else 0
    if abi >= 6:
        attr = struct.pack("=QQQ", handled_fs, handled_net, scoped)
    elif abi >= 4:
        attr = struct.pack("=QQ", handled_fs, handled_net)
    else:
        attr = struct.pack("=Q", handled_fs)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    ruleset = syscall(_SYS_LANDLOCK_CREATE_RULESET, buffer, ctypes.c_size_t(len(attr)), 0)
    try:
        everything = handled_fs
        rules = [(path, access) for path, access in reads]
        rules += [(path, everything) for path in writes]
        rules += [(path, _FS_READ_FILE | _FS_WRITE_FILE) for path in devices]
        for path, access in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    access &= _FILE_RIGHTS
                access &= handled_fs
                if not access:
                    continue
                rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd), 12)
                syscall(_SYS_LANDLOCK_ADD_RULE, ruleset, _RULE_PATH_BENEATH, rule, 0)
            finally:
                os.close(fd)
        syscall(_SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0)
    finally:
        os.close(ruleset)
    return {"landlock_net": bool(handled_net), "landlock_scopes": bool(scoped)}
