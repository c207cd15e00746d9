"""seccomp: the system calls a student worker may not make, as a classic BPF filter."""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

from pacman.sandbox.syscalls import PR_SET_PDEATHSIG, prctl

_PR_SET_SECCOMP = 22


_SECCOMP_MODE_FILTER = 2


_SECCOMP_RET_ALLOW = 0x7FFF0000


_SECCOMP_RET_ERRNO = 0x00050000


_SECCOMP_RET_KILL_PROCESS = 0x80000000


#: Refused as out of memory (ENOMEM), not as forbidden: memory the limits cannot count.
_OUT_OF_MEMORY = ("memfd_create", "memfd_secret")


_CLONE_THREAD = 0x00010000

#: open's flags that make a new file: O_CREAT, and O_TMPFILE's own bit (the same on both
#: architectures).
_NEW_FILE_FLAGS = 0o100 | 0o20000000

#: (architecture, {call: (number, argument holding open's flags, or None)}): the calls that
#: make a file or folder, refused where nothing else keeps a worker's writes in its scratch
#: folder (process isolation without Landlock).
_CREATING = {
    0xC000003E: {
        "open": (2, 1), "openat": (257, 2), "creat": (85, None), "openat2": (437, None),
        "mkdir": (83, None), "mkdirat": (258, None), "mknod": (133, None),
        "mknodat": (259, None), "link": (86, None), "linkat": (265, None),
        "symlink": (88, None), "symlinkat": (266, None),
    },
    0xC00000B7: {
        "openat": (56, 2), "openat2": (437, None), "mkdirat": (34, None),
        "mknodat": (33, None), "linkat": (37, None), "symlinkat": (36, None),
    },
}  # fmt: skip


# (audit arch, {name: number}) for the architectures the filter knows.
_X86_64 = (
    0xC000003E,
    {
        "fork": 57, "vfork": 58, "clone": 56, "clone3": 435, "execve": 59, "execveat": 322,
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "mount": 165,
        "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272, "setns": 308,
        "socket": 41, "socketpair": 53, "kexec_load": 246, "kexec_file_load": 320,
        "init_module": 175, "finit_module": 313, "delete_module": 176, "reboot": 169,
        "swapon": 167, "swapoff": 168, "bpf": 321, "perf_event_open": 298, "keyctl": 250,
        "add_key": 248, "request_key": 249, "open_by_handle_at": 304,
        "name_to_handle_at": 303, "userfaultfd": 323, "io_uring_setup": 425,
        "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
        "acct": 163, "quotactl": 179, "syslog": 103, "fanotify_init": 300, "prctl": 157,
        "shmget": 29, "semget": 64, "msgget": 68, "chmod": 90, "fchmod": 91, "fchmodat": 268,
        "fchmodat2": 452, "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
        "memfd_create": 319, "memfd_secret": 447, "truncate": 76, "setxattr": 188,
        "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197, "lremovexattr": 198,
        "fremovexattr": 199, "setxattrat": 463, "removexattrat": 466,
    },
)  # fmt: skip


_AARCH64 = (
    0xC00000B7,
    {
        "clone": 220, "clone3": 435, "execve": 221, "execveat": 281, "ptrace": 117,
        "process_vm_readv": 270, "process_vm_writev": 271, "mount": 40, "umount2": 39,
        "pivot_root": 41, "chroot": 51, "unshare": 97, "setns": 268, "socket": 198,
        "socketpair": 199, "kexec_load": 104, "kexec_file_load": 294, "init_module": 105,
        "finit_module": 273, "delete_module": 106, "reboot": 142, "swapon": 224,
        "swapoff": 225, "bpf": 280, "perf_event_open": 241, "keyctl": 219, "add_key": 217,
        "request_key": 218, "open_by_handle_at": 265, "name_to_handle_at": 264,
        "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430,
        "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442, "acct": 89,
        "quotactl": 60, "syslog": 116, "fanotify_init": 262, "prctl": 167,
        "shmget": 194, "semget": 190, "msgget": 186, "fchmod": 52, "fchmodat": 53,
        "fchmodat2": 452, "fchown": 55, "fchownat": 54, "memfd_create": 279, "memfd_secret": 447,
        "truncate": 45, "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14,
        "lremovexattr": 15, "fremovexattr": 16, "setxattrat": 463, "removexattrat": 466,
    },
)  # fmt: skip


def _bpf(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06


def _refuse(number: int, action: int) -> list[bytes]:
    """Return ``action`` for call ``number`` (the call's number in the accumulator)."""
    return [_bpf(_JEQ_K, 0, 1, number), _bpf(_RET_K, 0, 0, action)]


def _refuse_if(
    number: int, argument: int, test: int, value: int, when: bool, action: int
) -> list[bytes]:
    """Return ``action`` for call ``number`` when ``test`` (``_JEQ_K`` or ``_JSET_K``) of the
    low word of its ``argument`` against ``value`` comes out ``when``; allow it otherwise.
    Both ends return, so the accumulator's reload costs the rules after it nothing."""
    return [
        _bpf(_JEQ_K, 0, 4, number),
        _bpf(_LD_W_ABS, 0, 0, 16 + 8 * argument),  # seccomp_data.args[argument], low word
        _bpf(test, 0, 1, value) if when else _bpf(test, 1, 0, value),
        _bpf(_RET_K, 0, 0, action),
        _bpf(_RET_K, 0, 0, _SECCOMP_RET_ALLOW),
    ]


def seccomp_program(arch: tuple[int, dict[str, int]], no_new_files: bool = False) -> bytes:
    """The filter: kill a foreign architecture, refuse the listed calls, allow the rest;
    ``no_new_files``: refuse making any file or folder too (and opening with O_CREAT)."""
    audit_arch, numbers = arch
    eperm = _SECCOMP_RET_ERRNO | errno.EPERM
    special = ("clone", "clone3", "prctl", *_OUT_OF_MEMORY)
    out = [
        _bpf(_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        _bpf(_JEQ_K, 1, 0, audit_arch),
        _bpf(_RET_K, 0, 0, _SECCOMP_RET_KILL_PROCESS),
        _bpf(_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if audit_arch == _X86_64[0]:
        # x32 system calls carry bit 30: none of them is needed.
        out += [_bpf(_JGE_K, 0, 1, 0x40000000), _bpf(_RET_K, 0, 0, eperm)]
    for name, number in numbers.items():
        if name not in special:
            out += _refuse(number, eperm)
    # Memory held in anonymous files is outside RLIMIT_AS and the worker's own footprint (a
    # worker that filled one would make the kernel's OOM killer look elsewhere): there is none.
    for name in _OUT_OF_MEMORY:
        out += _refuse(numbers[name], _SECCOMP_RET_ERRNO | errno.ENOMEM)
    # clone3 passes its flags in memory the filter cannot read: ENOSYS makes glibc use clone.
    out += _refuse(numbers["clone3"], _SECCOMP_RET_ERRNO | errno.ENOSYS)
    # clone: threads only (CLONE_THREAD in the low word of the first argument).
    out += _refuse_if(numbers["clone"], 0, _JSET_K, _CLONE_THREAD, False, eperm)
    if no_new_files:
        for number, flags_argument in _CREATING[audit_arch].values():
            if flags_argument is None:
                out += _refuse(number, eperm)
            else:
                out += _refuse_if(number, flags_argument, _JSET_K, _NEW_FILE_FLAGS, True, eperm)
    # prctl: everything but clearing or changing the parent-death signal.
    out += _refuse_if(numbers["prctl"], 0, _JEQ_K, PR_SET_PDEATHSIG, True, eperm)
    out.append(_bpf(_RET_K, 0, 0, _SECCOMP_RET_ALLOW))
    return b"".join(out)


def architecture() -> tuple[int, dict[str, int]] | None:
    if not sys.platform.startswith("linux") or sys.byteorder != "little":
        return None
    machine = os.uname().machine.lower()
    if machine in ("x86_64", "amd64") and struct.calcsize("P") == 8:
        return _X86_64
    if machine in ("aarch64", "arm64"):
        return _AARCH64
    return None


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(arch: tuple[int, dict[str, int]], no_new_files: bool = False) -> None:
    program = seccomp_program(arch, no_new_files)
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog))
