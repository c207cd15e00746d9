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
  keyrings, BPF, io_uring or handle-based opens, no System V shared memory,
  semaphores or message queues (they would outlive the worker), no change of a
  file's mode or owner (Landlock does not cover them, and a worker sharing an
  unprivileged grader's uid could otherwise lock the grader out of its own
  folders), no anonymous memory files (``memfd_create`` fails as out of memory:
  what they hold escapes the memory limit), and the parent-death signal cannot be
  cleared.
- **a separate uid and no capabilities** when the worker starts as root: the
  student's code cannot signal the grader or other submissions, nor write files
  root owns, nor become root again. Every capability set is emptied (the
  bounding set too, where the grader holds CAP_SETPCAP). In process mode, where
  the interpreter lies under a home other users cannot enter (``/root``), the
  worker keeps only ``CAP_DAC_READ_SEARCH`` (when the grader holds it) so the
  interpreter stays readable; the proof accepts that only where Landlock, not
  file modes, decides what may be read.
- **a parent-death signal**: the worker dies with its grader.

What stands is then checked from the inside by :func:`prove`, whose report is the
``protections`` the grader records in every result. Nothing here depends on
Python's audit hook.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import stat
import struct
import sys
from dataclasses import dataclass
from typing import Any

from pacman.sandbox.lifetime import PR_SET_PDEATHSIG, check, die_with_parent, libc, prctl
from pacman.sandbox.policy import DEVICES

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
#: Refused as out of memory (ENOMEM), not as forbidden: memory the limits cannot count.
_OUT_OF_MEMORY = ("memfd_create", "memfd_secret")
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
        "shmget": 29, "semget": 64, "msgget": 68, "chmod": 90, "fchmod": 91, "fchmodat": 268,
        "fchmodat2": 452, "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
        "memfd_create": 319, "memfd_secret": 447,
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
    },
)  # fmt: skip


def _bpf(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06


def seccomp_program(arch: tuple[int, dict[str, int]]) -> bytes:
    """The filter: kill a foreign architecture, refuse the listed calls, allow the rest."""
    audit_arch, numbers = arch
    eperm = _SECCOMP_RET_ERRNO | errno.EPERM
    enomem = _SECCOMP_RET_ERRNO | errno.ENOMEM
    special = ("clone", "clone3", "prctl", *_OUT_OF_MEMORY)
    plain = [n for name, n in numbers.items() if name not in special]
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
    # Memory held in anonymous files is outside RLIMIT_AS and the worker's own footprint (a
    # worker that filled one would make the kernel's OOM killer look elsewhere): there is none.
    for name in _OUT_OF_MEMORY:
        out += [_bpf(_JEQ_K, 0, 1, numbers[name]), _bpf(_RET_K, 0, 0, enomem)]
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
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
#: The capability sets of /proc/PID/status, as the kernel names them.
CAPABILITY_SETS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")


def process_status(pid: int | str = "self", fd: int | None = None) -> dict[str, str]:
    """The fields of ``/proc/PID/status`` (empty where it cannot be read).

    ``fd``, a descriptor of that file opened earlier, is read afresh instead: the kernel
    writes the file at each read, and Landlock may since have closed ``/proc``.
    """
    try:
        if fd is not None:
            text = os.pread(fd, 1 << 16, 0).decode("utf-8", "replace")
        else:
            with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as handle:
                text = handle.read()
    except OSError:
        return {}
    return {
        name: value.strip() for name, _, value in (ln.partition(":") for ln in text.splitlines())
    }


def capability_sets(status: dict[str, str]) -> dict[str, int]:
    """Each capability set of a process (from :func:`process_status`) as a bit mask."""
    found = {}
    for name in CAPABILITY_SETS:
        with contextlib.suppress(KeyError, ValueError):
            found[name] = int(status[name], 16)
    return found


def _set_capabilities(bits: int) -> None:
    """Make ``bits`` (capabilities below 32) the effective and permitted set; none inheritable."""
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
    # Needs CAP_SETPCAP: a container without it keeps its bounding set, which no_new_privs
    # and an empty permitted set make harmless (nothing can be gained through exec).
    for cap in range(64):
        if cap != keep:
            with contextlib.suppress(OSError):
                prctl(_PR_CAPBSET_DROP, cap)


def _drop_capabilities(keep_read_search: bool) -> None:
    """Leave only CAP_DAC_READ_SEARCH (when asked and held) in any set, else nothing."""
    keep = _CAP_DAC_READ_SEARCH if keep_read_search else -1
    _drop_bounding_set(keep)
    with contextlib.suppress(OSError):
        prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL)
    try:
        _set_capabilities(1 << _CAP_DAC_READ_SEARCH if keep_read_search else 0)
    except OSError:
        # Asking for a capability not held fails: then hold none at all. A failure here
        # too is left for the proof to find (it refuses to grade).
        with contextlib.suppress(OSError):
            _set_capabilities(0)


def _switch_user(uid: int, keep_read_search: bool, held: int) -> None:
    """Become ``uid`` (from root), keeping CAP_DAC_READ_SEARCH only when asked and in
    ``held`` (the permitted set)."""
    keep_read_search = keep_read_search and bool(held & (1 << _CAP_DAC_READ_SEARCH))
    _drop_bounding_set(_CAP_DAC_READ_SEARCH if keep_read_search else -1)
    # Without KEEPCAPS the kernel empties the permitted set as the uid changes; with it,
    # root's whole permitted set would survive the switch (it is trimmed right after).
    prctl(_PR_SET_KEEPCAPS, 1 if keep_read_search else 0)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    _drop_capabilities(keep_read_search)
    with contextlib.suppress(OSError):
        prctl(_PR_SET_KEEPCAPS, 0)


# -- all together --------------------------------------------------------------------------------


@dataclass
class Walls:
    """What :func:`lock_down` put up, in the worker's own words (the proof checks it)."""

    landlock: int = 0  # ABI version applied (0: none)
    landlock_net: bool = False
    landlock_scopes: bool = False
    seccomp: bool = False
    parent_death_signal: bool = False
    no_new_privs: bool = False


def lock_down(
    *,
    landlock: dict[str, list[str]] | None,
    uid: int | None,
    read_search: bool = False,
    landlock_abi_cap: int | None = None,
) -> Walls:
    """Put up every wall this kernel allows; return which ones stand.

    ``landlock`` holds the paths to read (``reads`` minus ``hidden``, ``keep`` re-opened)
    and to write (``writes``); None leaves Landlock out, and ``landlock_abi_cap`` uses at
    most that ABI version (the grader's tests play older kernels with it). ``read_search``
    keeps the right to read past file modes after leaving root, for an interpreter other
    users cannot read.

    Order matters: the uid switch needs root's capabilities (so it comes before seccomp),
    the parent-death signal is cleared by a uid switch (so it comes after), and seccomp
    must come last so that the worker could still call what it forbids. Failures are
    not reported here: :func:`prove` finds what did not hold.
    """
    done = Walls()
    linux = sys.platform.startswith("linux")
    # Read while /proc is still open to this process (Landlock closes it).
    held = capability_sets(process_status()).get("CapPrm", 0)
    if linux:
        with contextlib.suppress(OSError):
            prctl(_PR_SET_NO_NEW_PRIVS, 1)
            done.no_new_privs = True
    abi = landlock_abi() if done.no_new_privs and landlock is not None else 0
    if landlock_abi_cap is not None:
        abi = min(abi, landlock_abi_cap)
    if abi and landlock is not None:
        rules = allowed_reads(landlock["reads"], landlock["hidden"], landlock["keep"])
        with contextlib.suppress(OSError):
            done.__dict__.update(_landlock(abi, rules, landlock["writes"], DEVICES))
            done.landlock = abi
    arch = _seccomp_arch()
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if uid is not None and root:
        # Reads past file modes only where the interpreter needs it (a private home, in
        # process mode), and only with seccomp forbidding open_by_handle_at, which that
        # capability would otherwise open up. The proof accepts it only under Landlock.
        keep = read_search and arch is not None
        with contextlib.suppress(OSError):
            _switch_user(uid, keep_read_search=keep, held=held)
    if linux and root and os.geteuid() == 0:
        # Still root (no uid given, or the switch failed): at least no capabilities.
        _drop_capabilities(keep_read_search=False)
    done.parent_death_signal = die_with_parent()
    if arch is not None and done.no_new_privs:
        with contextlib.suppress(OSError):
            _seccomp(arch)
            done.seccomp = True
    return done


def _open_fails(path: str, flags: int) -> bool:
    try:
        fd = os.open(path, flags | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return True
    os.close(fd)
    return False


def _signal_fails(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True  # no such process in this view: nothing to signal
    except PermissionError:
        return True
    return False


def prove(
    walls: Walls,
    *,
    isolation: str,
    grader_pid: int,
    grader_uid: int,
    canaries: list[str],
    read_search_allowed: bool,
    status_fd: int | None = None,
    answers_locked: bool = False,
) -> dict[str, Any]:
    """Check from the inside, before any student code runs, what the grader will record.

    Nothing is taken on trust: capabilities, uids, no_new_privs and seccomp are read
    from the kernel (``/proc/self/status``); the answers are hidden only if every canary
    (a real file among them, picked by the grader) fails to open for reading and for
    writing; the grader is out of reach only if signalling it fails. The result is the
    ``protections`` of every grade (see :func:`pacman.sandbox.policy.shortfalls`).
    ``answers_locked``: the grader made every copy of the answers readable by its owner
    alone, so a worker of another uid holding no capability cannot read them either.
    """
    # A process that can become root again is not a separate user, whatever it says.
    became_root = False
    if hasattr(os, "setresuid") and os.geteuid() != 0:
        with contextlib.suppress(OSError):
            os.setresuid(0, 0, 0)
            became_root = True
    status = process_status(fd=status_fd)
    sets = capability_sets(status)
    allowed = (1 << _CAP_DAC_READ_SEARCH) if read_search_allowed and walls.landlock else 0
    held = {name: bits for name, bits in sets.items() if name != "CapBnd" and bits & ~allowed}
    uids = [int(u) for u in status.get("Uid", "-1").split()]
    uid = uids[0] if uids else -1
    separate = bool(uids) and all(u not in (0, grader_uid) for u in uids)
    in_pid_namespace = os.getpid() == 1
    # A worker that shares the grader's uid (an unprivileged grader's, or root's in a user
    # namespace that maps no other) is kept apart by the kernel only where Landlock scopes
    # signals (ABI 6) and holds every read and write, or where namespaces leave it nothing
    # of the grader's in view: its own PID namespace and a read-only root of its own.
    contained = in_pid_namespace and isolation in ("namespaces", "bwrap")
    shared_but_scoped = all(u == grader_uid for u in uids) and (
        (grader_uid != 0 and walls.landlock_scopes) or contained
    )
    unreachable = in_pid_namespace or _signal_fails(grader_pid)
    hidden = all(
        _open_fails(path, os.O_RDONLY) and _open_fails(path, os.O_WRONLY) for path in canaries
    )
    # What keeps the canaries shut: each mechanism that can, by itself, hide every copy.
    hidden_by = [isolation] if isolation in ("namespaces", "bwrap") else []
    if walls.landlock > 0:
        hidden_by.append("landlock")
    if answers_locked and separate and not held and sets != {} and not became_root:
        hidden_by.append("permissions")
    return {
        "isolation": isolation,
        "uid": uid,
        "separate_uid": separate and not became_root,
        "own_uid": (separate or shared_but_scoped) and not became_root,
        "no_capabilities": not held and sets != {} and not became_root,
        "capabilities_held": {name: f"{bits:x}" for name, bits in held.items()},
        "bounding_set_empty": sets.get("CapBnd", -1) & ~allowed == 0,
        "no_new_privs": status.get("NoNewPrivs") == "1",
        "seccomp": status.get("Seccomp") == "2",
        "landlock": walls.landlock,
        "landlock_net": walls.landlock_net,
        "landlock_scopes": walls.landlock_scopes,
        "answers_hidden": hidden and bool(hidden_by),
        "answers_hidden_by": hidden_by,
        "canaries": len(canaries),
        "grader_unreachable": unreachable,
        "pid_namespace": in_pid_namespace,
        "parent_death_signal": walls.parent_death_signal,
        "audit_hook": False,
    }


# -- function: honest code can run -----------------------------------------------------------


def _readable(folder: str) -> None:
    """List ``folder`` and read a file in it, as the code run from it will (raises OSError)."""
    with os.scandir(folder) as entries:
        files = sorted(entry.path for entry in entries if entry.is_file())
    if files:
        with open(files[0], "rb") as handle:
            handle.read(1)


def _closed_folder(path: str) -> str | None:
    """The first folder on the way to ``path`` this process may not enter, if one is."""
    current = "/"
    for part in os.path.abspath(path).strip("/").split("/")[:-1]:
        current = os.path.join(current, part)
        if not os.access(current, os.X_OK):
            return current
    return None


def prove_function() -> str | None:
    """What keeps honest code from running in this worker, as it now stands (locked down,
    under the submission's uid), or None: it reads the standard library, the game's package
    and a layout, and plays a few moves of a real game. A grader installed where its workers
    cannot read (a private home folder) fails here, before any student is blamed for it."""
    import random

    import pacman

    try:
        # Imported before the worker locked itself in (the game's modules always are).
        from pacman.ghosts import RandomGhost
        from pacman.layout import bundled_layout_dir, parse_layout
        from pacman.state import GameState

        layouts = bundled_layout_dir()
        for folder in (os.path.dirname(os.__file__), os.path.dirname(pacman.__file__), layouts):
            _readable(str(folder))
        path = layouts / "testClassic.lay"
        state = GameState.initial(parse_layout(path.read_text(encoding="utf-8"), "testClassic"))
        ghost = RandomGhost(1, rng=random.Random(0))
        for _ in range(10):
            if state.is_terminal():
                break
            state = state.generate_successor(0, state.get_legal_actions(0)[0])
            if not state.is_terminal():
                state = state.generate_successor(1, ghost.get_action(state))
    except OSError as error:
        reason = error.strerror or type(error).__name__
        path = str(error.filename or "a file it needs")
        closed = _closed_folder(path) if error.filename else None
        if closed is not None:
            reason += f": {closed} is closed to other users"
        return f"it cannot read {path} ({reason})"
    except ImportError as error:
        return f"it cannot import {error.name} from {os.path.dirname(pacman.__file__)}"
    except Exception as error:  # the grader's own code failing: say what, not where
        return f"a test game failed ({type(error).__name__}: {error})"
    return None
