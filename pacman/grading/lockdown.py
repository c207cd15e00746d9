"""Kernel walls a student worker puts up around itself before any student code runs.

The worker is trusted until it imports the submission; just before, it calls
:func:`lock_down`, which uses only what an unprivileged Linux process may use
(plus a uid switch when it is root):

- **Landlock** (Linux 5.13+): the file system becomes an allow-list. Reading is
  allowed in the interpreter's folders, the project's public game code, the
  layouts and the student's own staged copy, minus everything the grader hides
  (solutions, the reference agents, the grader's own code, other submissions);
  writing only in the worker's scratch folder and ``/dev/null``. On newer
  kernels TCP is cut off (ABI 4) and signals and abstract sockets may not reach
  outside the sandbox (ABI 6).
- **seccomp**: no new processes (threads only), no ``exec``, no sockets, no
  ptrace or cross-process memory access, no mounts or namespaces, no kernel
  keyrings, BPF, io_uring or handle-based opens, and the parent-death signal
  cannot be cleared.
- **a separate uid** when the worker starts as root: the student's code cannot
  signal the grader or other submissions, nor write files root owns. When
  Landlock holds the reads, the worker keeps ``CAP_DAC_READ_SEARCH`` so an
  interpreter under a private home (``/root``) stays readable; Landlock, not
  file modes, then decides what may be read.
- **a parent-death signal**: the worker dies with its grader.

Each step is reported in :class:`Protections`, which the grader records in
every result. Nothing here depends on Python's audit hook.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import stat
import struct
import sys
from dataclasses import asdict, dataclass
from typing import Any

from pacman.lifetime import PR_SET_PDEATHSIG, check, die_with_parent, libc, prctl

# -- Landlock ------------------------------------------------------------------------------------

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

#: System folders any Python needs (shared libraries, the loader's cache); nothing secret.
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/localtime")
#: Device files a program may open (reading /dev/urandom, writing /dev/null).
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


def _syscall(number: int, *args: Any) -> int:
    library = libc()
    library.syscall.restype = ctypes.c_long
    return int(check(library.syscall(ctypes.c_long(number), *args)))


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers (0: none)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        return _syscall(
            _SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), _LANDLOCK_CREATE_RULESET_VERSION
        )
    except OSError:
        return 0


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


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
        holding = [(len(p), ok) for p, ok in marks if _inside(path, p)]
        return max(holding)[1] if holding else True

    def visit(path: str) -> None:
        real = os.path.realpath(path)
        if not os.path.exists(real):
            return
        here = readable(real)
        below = [ok for p, ok in marks if _inside(p, real) and p != real]
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


def _landlock(
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
    ruleset = _syscall(_SYS_LANDLOCK_CREATE_RULESET, buffer, ctypes.c_size_t(len(attr)), 0)
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
                _syscall(_SYS_LANDLOCK_ADD_RULE, ruleset, _RULE_PATH_BENEATH, rule, 0)
            finally:
                os.close(fd)
        _syscall(_SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0)
    finally:
        os.close(ruleset)
    return {"landlock_net": bool(handled_net), "landlock_scopes": bool(scoped)}


# -- seccomp -------------------------------------------------------------------------------------

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_PR_SET_KEEPCAPS = 8
_PR_CAPBSET_DROP = 24
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_SECCOMP_RET_KILL_PROCESS = 0x80000000
_CLONE_THREAD = 0x00010000

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
    },
)  # fmt: skip


def _bpf(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06


def seccomp_program(arch: tuple[int, dict[str, int]]) -> bytes:
    """The filter: kill a foreign architecture, refuse the listed calls, allow the rest."""
    audit_arch, numbers = arch
    eperm = _SECCOMP_RET_ERRNO | errno.EPERM
    plain = [n for name, n in numbers.items() if name not in ("clone", "clone3", "prctl")]
    out = [
        _bpf(_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        _bpf(_JEQ_K, 1, 0, audit_arch),
        _bpf(_RET_K, 0, 0, _SECCOMP_RET_KILL_PROCESS),
        _bpf(_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if audit_arch == _X86_64[0]:
        # x32 system calls carry bit 30: none of them is needed.
        out += [_bpf(_JGE_K, 0, 1, 0x40000000), _bpf(_RET_K, 0, 0, eperm)]
    for number in plain:
        out += [_bpf(_JEQ_K, 0, 1, number), _bpf(_RET_K, 0, 0, eperm)]
    # clone3 passes its flags in memory the filter cannot read: ENOSYS makes glibc use clone.
    out += [
        _bpf(_JEQ_K, 0, 1, numbers["clone3"]),
        _bpf(_RET_K, 0, 0, _SECCOMP_RET_ERRNO | errno.ENOSYS),
    ]
    # clone: threads only (CLONE_THREAD in the low word of the first argument).
    out += [
        _bpf(_JEQ_K, 0, 4, numbers["clone"]),
        _bpf(_LD_W_ABS, 0, 0, 16),
        _bpf(_JSET_K, 1, 0, _CLONE_THREAD),
        _bpf(_RET_K, 0, 0, eperm),
        _bpf(_RET_K, 0, 0, _SECCOMP_RET_ALLOW),
    ]
    # prctl: everything but clearing or changing the parent-death signal.
    out += [
        _bpf(_JEQ_K, 0, 4, numbers["prctl"]),
        _bpf(_LD_W_ABS, 0, 0, 16),
        _bpf(_JEQ_K, 0, 1, PR_SET_PDEATHSIG),
        _bpf(_RET_K, 0, 0, eperm),
        _bpf(_RET_K, 0, 0, _SECCOMP_RET_ALLOW),
    ]
    out.append(_bpf(_RET_K, 0, 0, _SECCOMP_RET_ALLOW))
    return b"".join(out)


def _seccomp_arch() -> tuple[int, dict[str, int]] | None:
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


def _seccomp(arch: tuple[int, dict[str, int]]) -> None:
    program = seccomp_program(arch)
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog))


# -- users and capabilities ----------------------------------------------------------------------

_CAP_DAC_READ_SEARCH = 2
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_SYS_CAPSET = {"x86_64": 126, "amd64": 126, "aarch64": 91, "arm64": 91}


def _set_capabilities(bits: int) -> None:
    """Make ``bits`` (capabilities below 32) the effective and permitted set, nothing else."""
    number = _SYS_CAPSET.get(os.uname().machine.lower())
    if number is None:
        raise OSError(errno.ENOSYS, "capset: unknown architecture")
    header = struct.pack("=Ii", _LINUX_CAPABILITY_VERSION_3, 0)
    data = struct.pack("=IIIIII", bits, bits, 0, 0, 0, 0)  # effective, permitted, inheritable x2
    _syscall(
        number,
        ctypes.create_string_buffer(header, len(header)),
        ctypes.create_string_buffer(data, len(data)),
    )


def _drop_bounding_set(keep: int = -1) -> None:
    for cap in range(64):
        if cap != keep:
            with contextlib.suppress(OSError):
                prctl(_PR_CAPBSET_DROP, cap)


def _switch_user(uid: int, keep_read_search: bool) -> None:
    # The bounding set loses every capability for good (CAP_DAC_READ_SEARCH may stay).
    _drop_bounding_set(_CAP_DAC_READ_SEARCH if keep_read_search else -1)
    if keep_read_search:
        prctl(_PR_SET_KEEPCAPS, 1)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if keep_read_search:
        _set_capabilities(1 << _CAP_DAC_READ_SEARCH)
        prctl(_PR_SET_KEEPCAPS, 0)


# -- all together --------------------------------------------------------------------------------


@dataclass
class Protections:
    """What a worker put in place before running student code (all reported by the worker)."""

    isolation: str = "process"  # namespaces, bwrap or process: the grader's choice
    uid: int = -1  # the student code's uid
    separate_uid: bool = False  # not the grader's uid
    landlock: int = 0  # ABI version applied (0: none)
    landlock_net: bool = False
    landlock_scopes: bool = False
    seccomp: bool = False
    parent_death_signal: bool = False
    no_new_privs: bool = False
    audit_hook: bool = False  # a tripwire that explains refusals, not a wall

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["answers_hidden"] = answers_hidden(self.isolation, self.landlock)
        return data


def answers_hidden(isolation: str, landlock: int) -> bool:
    """Whether solutions and other submissions are out of student code's reach without the
    audit hook: covered by mounts (``namespaces``, ``bwrap``), or kept out by Landlock."""
    return isolation in ("namespaces", "bwrap") or landlock > 0


def lock_down(
    *,
    landlock: dict[str, list[str]] | None,
    uid: int | None,
    isolation: str,
    read_search: bool = False,
) -> Protections:
    """Put up every wall this kernel allows; return which ones stand.

    ``landlock`` holds the paths to read (``reads`` minus ``hidden``, ``keep`` re-opened)
    and to write (``writes``); None leaves Landlock out. ``read_search`` keeps the right to
    read past file modes after leaving root, for an interpreter other users cannot read.

    Order matters: the uid switch needs root's capabilities (so it comes before seccomp),
    the parent-death signal is cleared by a uid switch (so it comes after), and seccomp
    must come last so that the worker could still call what it forbids.
    """
    done = Protections(isolation=isolation)
    linux = sys.platform.startswith("linux")
    if linux:
        with contextlib.suppress(OSError):
            prctl(_PR_SET_NO_NEW_PRIVS, 1)
            done.no_new_privs = True
    abi = landlock_abi() if done.no_new_privs and landlock is not None else 0
    if abi and landlock is not None:
        rules = allowed_reads(landlock["reads"], landlock["hidden"], landlock["keep"])
        with contextlib.suppress(OSError):
            done.__dict__.update(_landlock(abi, rules, landlock["writes"], DEVICES))
            done.landlock = abi
    arch = _seccomp_arch()
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if uid is not None and root:
        # Reads past file modes where Landlock decides what may be read (or where the
        # interpreter needs it), and only with seccomp forbidding open_by_handle_at, which
        # that capability would otherwise open up.
        keep = (done.landlock > 0 or read_search) and arch is not None
        with contextlib.suppress(OSError):
            _switch_user(uid, keep_read_search=keep)
    if linux and hasattr(os, "geteuid") and os.geteuid() == 0:
        # Still root (no uid given, or the switch failed): at least no capabilities.
        _drop_bounding_set()
        with contextlib.suppress(OSError):
            _set_capabilities(0)
    done.uid = os.geteuid() if hasattr(os, "geteuid") else -1
    done.separate_uid = uid is not None and done.uid == uid and done.uid != 0
    done.parent_death_signal = die_with_parent()
    if arch is not None and done.no_new_privs:
        with contextlib.suppress(OSError):
            _seccomp(arch)
            done.seccomp = True
    return done
