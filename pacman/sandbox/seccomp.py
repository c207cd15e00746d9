"""seccomp: the system calls a student worker may make, as a classic BPF allow list."""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

from pacman.sandbox.syscalls import prctl, syscall

_PR_SET_SECCOMP = 22


_SECCOMP_MODE_FILTER = 2


_SECCOMP_RET_ALLOW = 0x7FFF0000


_SECCOMP_RET_ERRNO = 0x00050000


_SECCOMP_RET_KILL_PROCESS = 0x80000000

#: The allow list: every call a student worker may make, and nothing else. How it was found:
#: ``strace -f -ff`` over the grader, in process isolation and in namespaces, grading CS188's
#: suite (``../shared/berkeley/test_cases``) and the project's own (``test_cases``) with
#: every honest fixture of ``tests/fixtures/grading`` in one ``--submissions`` batch, and a
#: submission that imports the standard library's common modules and NumPy, sleeps, starts
#: threads and a thread pool, reads the clocks and ``os.urandom``; the calls each worker made
#: after installing its filter (and its threads made) are the list, plus the few CPython
#: makes on paths those runs did not take (a crash's report, a signal, a wait). Each group
#: says what it is for. The calls with a condition on their arguments are in
#: :data:`_ARGUMENT_RULES`; every other call is refused with EPERM, and one newer than
#: :data:`_NEWEST_KNOWN` with ENOSYS.
ALLOWED = (
    # The pipe to the grader, printed output, and files already open.
    "read", "write", "readv", "writev", "pread64", "pwrite64", "lseek", "close", "dup",
    "dup2", "dup3", "fcntl", "fstat", "fsync", "fdatasync", "ftruncate",
    # Finding and reading files (Landlock, the mount namespace and file modes decide which).
    "open", "openat", "newfstatat", "stat", "lstat", "statx", "getdents64", "readlink",
    "readlinkat", "access", "faccessat", "faccessat2", "getcwd", "chdir", "fchdir",
    # The scratch folder: folders made, files and folders removed.
    "mkdir", "mkdirat", "unlink", "unlinkat", "rmdir",
    # Memory (RLIMIT_AS bounds it); a C library with shadow stacks on maps one per thread.
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "map_shadow_stack",
    # Threads, within the cap the grader counts and RLIMIT_NPROC holds.
    "clone", "futex", "set_robust_list", "rseq", "gettid", "sched_yield",
    "sched_getaffinity", "exit", "exit_group",
    # Signals within the worker (a crash's report re-raises its signal); kill reaches only
    # what the uid wall and the PID namespace leave, and the proof checks that the grader is
    # out of its reach.
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "restart_syscall",
    "kill", "tgkill",
    # Time: the clocks (where the vDSO cannot answer, and CPU clocks always), sleeping.
    "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep",
    "getrusage", "times",
    # Waiting on its own descriptors.
    "select", "pselect6", "poll", "ppoll",
    # Who and where it is; the proof's attempt to become root again (the kernel refuses it).
    "getpid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid",
    "getgroups", "setresuid", "uname", "getrandom", "prlimit64",
    # With a condition on their arguments (_ARGUMENT_RULES).
    "ioctl", "prctl",
)  # fmt: skip

#: Allowed only with one of these values in the low word of an argument: (argument, values).
_ARGUMENT_RULES = {
    # A terminal's settings and size asked (isatty, get_terminal_size), bytes waiting,
    # close-on-exec; never a character pushed into a terminal (TIOCSTI) or a device driven.
    "ioctl": (1, (0x5401, 0x5413, 0x541B, 0x5450, 0x5451)),
    # A thread's name set and read: never the parent-death signal cleared, nor a new filter.
    "prctl": (0, (15, 16)),
}

#: Calls refused with an errno of their own rather than EPERM.
_OWN_ERRNO = {
    # Its flags are in memory the filter cannot read: ENOSYS makes glibc use clone instead.
    "clone3": errno.ENOSYS,
    # Memory held in anonymous files is outside RLIMIT_AS and the worker's own footprint (a
    # worker that filled one would make the kernel's OOM killer look elsewhere): refused as
    # out of memory, not as forbidden.
    "memfd_create": errno.ENOMEM,
    "memfd_secret": errno.ENOMEM,
}

#: The newest call the list was checked against (file_setattr, Linux 6.17, still the newest
#: in 6.18). One a later kernel adds gets ENOSYS, as on a kernel without it: a C library that
#: tries a new call first falls back to the older one it replaces.
_NEWEST_KNOWN = 469

#: The calls that make a file or folder, refused where nothing else keeps a worker's writes
#: in its scratch folder (process isolation without Landlock), and the argument holding
#: open's flags (opening with O_CREAT or O_TMPFILE is refused, other opens allowed).
_CREATING = {"open": 1, "openat": 2, "mkdir": None, "mkdirat": None}

_CLONE_THREAD = 0x00010000

#: open's flags that make a new file: O_CREAT, and O_TMPFILE's own bit (the same on both
#: architectures).
_NEW_FILE_FLAGS = 0o100 | 0o20000000

# (audit arch, {name: number}): the calls above and those :func:`refuses_beyond_the_list`
# makes, on each architecture the filter knows.
# AArch64 has none of x86-64's older calls (open, stat, mkdir, rename...): glibc uses the
# *at forms there.
_X86_64 = (
    0xC000003E,
    {
        "read": 0, "write": 1, "readv": 19, "writev": 20, "pread64": 17, "pwrite64": 18,
        "lseek": 8, "close": 3, "dup": 32, "dup2": 33, "dup3": 292, "fcntl": 72, "fstat": 5,
        "fsync": 74, "fdatasync": 75, "ftruncate": 77, "open": 2, "openat": 257,
        "newfstatat": 262, "stat": 4, "lstat": 6, "statx": 332, "getdents64": 217,
        "readlink": 89, "readlinkat": 267, "access": 21, "faccessat": 269, "faccessat2": 439,
        "getcwd": 79, "chdir": 80, "fchdir": 81, "mkdir": 83, "mkdirat": 258, "unlink": 87,
        "unlinkat": 263, "rmdir": 84, "brk": 12, "mmap": 9, "munmap": 11, "mremap": 25,
        "mprotect": 10, "madvise": 28, "map_shadow_stack": 453, "clone": 56, "futex": 202,
        "set_robust_list": 273, "rseq": 334, "gettid": 186, "sched_yield": 24, "sched_getaffinity": 204, "exit": 60,
        "exit_group": 231, "rt_sigaction": 13, "rt_sigprocmask": 14, "rt_sigreturn": 15,
        "sigaltstack": 131, "restart_syscall": 219, "kill": 62, "tgkill": 234,
        "clock_gettime": 228, "clock_getres": 229, "gettimeofday": 96, "time": 201,
        "nanosleep": 35, "clock_nanosleep": 230, "getrusage": 98, "times": 100, "select": 23,
        "pselect6": 270, "poll": 7, "ppoll": 271, "getpid": 39, "getppid": 110, "getuid": 102,
        "geteuid": 107, "getgid": 104, "getegid": 108, "getresuid": 118, "getresgid": 120,
        "getgroups": 115, "setresuid": 117, "uname": 63, "getrandom": 318, "prlimit64": 302,
        "ioctl": 16, "prctl": 157, "clone3": 435, "memfd_create": 319, "memfd_secret": 447,
        "mq_open": 240, "mq_unlink": 241, "rename": 82, "renameat": 264, "renameat2": 316,
        "getpgid": 121,
    },
)  # fmt: skip


_AARCH64 = (
    0xC00000B7,
    {
        "read": 63, "write": 64, "readv": 65, "writev": 66, "pread64": 67, "pwrite64": 68,
        "lseek": 62, "close": 57, "dup": 23, "dup3": 24, "fcntl": 25, "fstat": 80,
        "fsync": 82, "fdatasync": 83, "ftruncate": 46, "openat": 56, "newfstatat": 79,
        "statx": 291, "getdents64": 61, "readlinkat": 78, "faccessat": 48, "faccessat2": 439,
        "getcwd": 17, "chdir": 49, "fchdir": 50, "mkdirat": 34, "unlinkat": 35, "brk": 214,
        "mmap": 222, "munmap": 215, "mremap": 216, "mprotect": 226, "madvise": 233,
        "map_shadow_stack": 453,
        "clone": 220, "futex": 98, "set_robust_list": 99, "rseq": 293, "gettid": 178,
        "sched_yield": 124, "sched_getaffinity": 123, "exit": 93, "exit_group": 94,
        "rt_sigaction": 134, "rt_sigprocmask": 135, "rt_sigreturn": 139, "sigaltstack": 132,
        "restart_syscall": 128, "kill": 129, "tgkill": 131, "clock_gettime": 113,
        "clock_getres": 114, "gettimeofday": 169, "nanosleep": 101, "clock_nanosleep": 115,
        "getrusage": 165, "times": 153, "pselect6": 72, "ppoll": 73, "getpid": 172,
        "getppid": 173, "getuid": 174, "geteuid": 175, "getgid": 176, "getegid": 177,
        "getresuid": 148, "getresgid": 150, "getgroups": 158, "setresuid": 147, "uname": 160,
        "getrandom": 278, "prlimit64": 261, "ioctl": 29, "prctl": 167, "clone3": 435,
        "memfd_create": 279, "memfd_secret": 447, "mq_open": 180, "mq_unlink": 181,
        "renameat": 38, "renameat2": 276, "getpgid": 155,
    },
)  # fmt: skip


def _bpf(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


_LD_W_ABS, _JEQ_K, _JGT_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x25, 0x35, 0x45, 0x06


def _errno(code: int) -> int:
    return _SECCOMP_RET_ERRNO | code


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


def _allow_one_of(number: int, argument: int, values: tuple[int, ...], action: int) -> list[bytes]:
    """Allow call ``number`` when the low word of its ``argument`` is one of ``values``;
    return ``action`` otherwise. Both ends return, as in :func:`_refuse_if`."""
    count = len(values)
    return [
        _bpf(_JEQ_K, 0, count + 3, number),
        _bpf(_LD_W_ABS, 0, 0, 16 + 8 * argument),
        *(_bpf(_JEQ_K, count - index, 0, value) for index, value in enumerate(values)),
        _bpf(_RET_K, 0, 0, action),
        _bpf(_RET_K, 0, 0, _SECCOMP_RET_ALLOW),
    ]


def seccomp_program(arch: tuple[int, dict[str, int]], no_new_files: bool = False) -> bytes:
    """The filter: kill a foreign architecture; allow the calls of :data:`ALLOWED` (those of
    :data:`_ARGUMENT_RULES` and clone only with the arguments they name); refuse every other
    call, with ENOSYS past :data:`_NEWEST_KNOWN`. ``no_new_files``: refuse making any file or
    folder too (opening with O_CREAT or O_TMPFILE included)."""
    audit_arch, numbers = arch
    eperm = _errno(errno.EPERM)
    conditional = {"clone", *_ARGUMENT_RULES, *(_CREATING if no_new_files else ())}
    plain = [numbers[name] for name in ALLOWED if name in numbers and name not in conditional]
    head = [
        _bpf(_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        _bpf(_JEQ_K, 1, 0, audit_arch),
        _bpf(_RET_K, 0, 0, _SECCOMP_RET_KILL_PROCESS),
        _bpf(_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if audit_arch == _X86_64[0]:
        # x32 system calls carry bit 30: none of them is needed.
        head += [_bpf(_JGE_K, 0, 1, 0x40000000), _bpf(_RET_K, 0, 0, eperm)]
    head += [_bpf(_JGT_K, 0, 1, _NEWEST_KNOWN), _bpf(_RET_K, 0, 0, _errno(errno.ENOSYS))]
    rules = []
    for name, code in _OWN_ERRNO.items():
        rules += _refuse(numbers[name], _errno(code))
    # clone: threads only (CLONE_THREAD in the low word of the first argument).
    rules += _refuse_if(numbers["clone"], 0, _JSET_K, _CLONE_THREAD, False, eperm)
    for name, (argument, values) in _ARGUMENT_RULES.items():
        rules += _allow_one_of(numbers[name], argument, values, eperm)
    if no_new_files:  # mkdir and mkdirat are left out of the list; open(at) is checked
        for name, flags_argument in _CREATING.items():
            if name in numbers and flags_argument is not None:
                rules += _refuse_if(
                    numbers[name], flags_argument, _JSET_K, _NEW_FILE_FLAGS, True, eperm
                )
    tail = [*rules, _bpf(_RET_K, 0, 0, eperm), _bpf(_RET_K, 0, 0, _SECCOMP_RET_ALLOW)]
    # Each listed call jumps to the final ALLOW, past the rest of the list and the tail; the
    # most frequent calls (read, write) come first.
    reach = len(plain) + len(tail) - 2
    if reach > 255:
        raise ValueError("the allow list is too long for BPF's 8-bit jumps")
    listed = [_bpf(_JEQ_K, reach - index, 0, number) for index, number in enumerate(plain)]
    return b"".join(head + listed + tail)


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


def refuses_beyond_the_list(arch: tuple[int, dict[str, int]]) -> bool:
    """Whether the filter in force refuses, with EPERM, what a deny list had missed: POSIX
    message queues, renames, and a call no list names (getpgid). Each is made so that without
    the filter it fails otherwise (no such queue, no such folder) or changes nothing."""
    _, numbers = arch
    queue = b"pacman-proof-no-such-queue"  # no O_CREAT: opening it cannot make it
    nowhere = b"/nonexistent/pacman-proof"
    here = ctypes.c_long(-100)  # AT_FDCWD
    zero = ctypes.c_long(0)
    calls = {
        "mq_open": (queue, zero, zero, ctypes.c_void_p(None)),
        "mq_unlink": (queue,),
        "rename": (nowhere, nowhere),
        "renameat": (here, nowhere, here, nowhere),
        "renameat2": (here, nowhere, here, nowhere, zero),
        "getpgid": (zero,),
    }
    for name, arguments in calls.items():
        if name not in numbers:  # rename: x86-64 only
            continue
        try:
            syscall(numbers[name], *arguments)
        except OSError as error:
            if error.errno != errno.EPERM:
                return False
        else:
            return False
    return True
