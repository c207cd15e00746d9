"""Run a command under a seccomp filter like Docker's default profile before 20.10.18.

    python tests/docker_seccomp.py COMMAND [ARG...]

No namespaces (unshare, setns, clone with a namespace flag), no mounts, no keyrings, no BPF,
and the Landlock calls fail with ENOSYS, as on a host whose Docker does not know them.
Everything else is allowed. Linux on x86-64 only (the tests skip elsewhere).
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

LOAD, JUMP_EQUAL, JUMP_SET, RETURN = 0x20, 0x15, 0x45, 0x06
ALLOW, ERRNO = 0x7FFF0000, 0x00050000
DENIED = {
    "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155,
    "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321, "perf_event_open": 298,
}  # fmt: skip
UNKNOWN = {"landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446}
CLONE, CLONE3 = 56, 435
NAMESPACE_FLAGS = 0x10000000 | 0x00020000 | 0x04000000 | 0x08000000 | 0x20000000 | 0x40000000
NAMESPACE_FLAGS |= 0x02000000  # CLONE_NEWUSER, NEWNS, NEWUTS, NEWIPC, NEWPID, NEWNET, NEWCGROUP


def instruction(code: int, true: int, false: int, value: int) -> bytes:
    return struct.pack("=HBBI", code, true, false, value)


def program() -> bytes:
    out = [instruction(LOAD, 0, 0, 0)]  # the call's number
    for number in DENIED.values():
        out += [instruction(JUMP_EQUAL, 0, 1, number), instruction(RETURN, 0, 0, ERRNO | 1)]
    for number in [*UNKNOWN.values(), CLONE3]:  # clone3: glibc falls back to clone
        out += [
            instruction(JUMP_EQUAL, 0, 1, number),
            instruction(RETURN, 0, 0, ERRNO | errno.ENOSYS),
        ]
    out += [
        instruction(JUMP_EQUAL, 0, 4, CLONE),
        instruction(LOAD, 0, 0, 16),  # clone's flags, low word
        instruction(JUMP_SET, 0, 1, NAMESPACE_FLAGS),
        instruction(RETURN, 0, 0, ERRNO | errno.EPERM),
        instruction(RETURN, 0, 0, ALLOW),
        instruction(RETURN, 0, 0, ALLOW),
    ]
    return b"".join(out)


class Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def main() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    code = program()
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = Fprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    # PR_SET_SECCOMP with a filter: root may, as Docker does, without no_new_privs; others
    # must set PR_SET_NO_NEW_PRIVS first.
    if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) and (
        libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, ctypes.byref(fprog), 0, 0)
    ):
        sys.exit(f"docker_seccomp: {os.strerror(ctypes.get_errno())}")
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
