"""The grader's side of the sandbox: start, talk to, time and kill student workers.

A worker is a fresh Python process (``python -I -B``) in its own session, so
killing its process group removes everything it started. It talks over two
private pipes (:mod:`pacman.sandbox.protocol`); its stdout and stderr go to a
file the grader reads back, capped in size, as the student's output. Limits:

- wall clock: every request has a deadline; a late worker is killed (SIGKILL to
  its process group, or to its PID namespace when there is one);
- memory, CPU seconds, file size, no core dumps: ``setrlimit`` in the worker,
  before any student code is imported;
- file system, network, processes: on Linux, when ``unshare`` and ``setpriv``
  work (root, or a kernel that allows it), the worker gets private mount,
  network and PID namespaces; the test directories are covered with empty
  tmpfs mounts, every other mount is read-only, ``/tmp`` is a private tmpfs, and
  all capabilities are dropped before Python starts. Else ``bwrap`` (Debian
  ``bubblewrap``) when on the PATH does the same. Else only the process
  boundary, the limits and the audit hook (see docs/grading.md) remain.

The grader keeps the solutions; the worker only ever reports what the
student's code did, and every reply is checked before it is used.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pacman.errors import PacmanError
from pacman.sandbox import protocol, untrusted
from pacman.sandbox.cleanup import remove_tree, tree_usage
from pacman.sandbox.lockdown import capability_sets, process_status
from pacman.sandbox.policy import (
    Policy,
    describe_shortfalls,
    make_policy,
    shortfalls,
    this_machine,
)

_BOOT = "import sys; sys.path.insert(0, sys.argv[3]); from pacman.sandbox.inside import main; main(sys.argv[1:3])"
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ISOLATION_MODES = ("auto", "namespaces", "bwrap", "process")


#: The wall-clock backstop for a request is this multiple of its CPU limit, plus
#: BACKSTOP_SLACK seconds: it only catches code that sleeps or blocks, since busy code
#: meets its CPU limit first, whatever else the machine is doing.
BACKSTOP_FACTOR = 5.0
BACKSTOP_SLACK = 5.0


def backstop(cpu_seconds: float) -> float:
    """Wall-clock seconds a request may take when it is allowed ``cpu_seconds`` of CPU."""
    return BACKSTOP_FACTOR * cpu_seconds + BACKSTOP_SLACK


@dataclass(frozen=True)
class Limits:
    """Resource limits for student code. Times are CPU seconds of the student's process."""

    move_seconds: float = 30.0  # one getAction in a tree or recorded-game test
    test_seconds: float | None = None  # everything one test asks (None: the test's own limits)
    submission_seconds: float | None = None  # the whole submission (None: derived from the suite)
    memory_mb: int = 2048
    output_bytes: int = 20_000  # student output kept per test
    fsize_mb: int = 16  # one file written by student code
    disk_mb: int = 64  # everything written in the worker's scratch folder
    reply_bytes: int = 4 * 1024 * 1024  # one reply from the worker


@dataclass
class SandboxConfig:
    """What every worker of one submission gets."""

    student_files: list[str] = field(default_factory=list)  # staged copies; empty: project agents
    code_dir: str | None = None  # the staged folder holding them (on sys.path, cwd)
    deny: list[str] = field(default_factory=list)  # folders the worker must not see
    limits: Limits = field(default_factory=Limits)
    isolation: str = "auto"
    audit: bool = True
    #: Use at most this Landlock ABI (0: none), to try the grader as on an older kernel.
    landlock_abi_cap: int | None = None
    uid: int | None = None  # the submission's own uid (root graders); None: allocate one
    #: Run student code even where the proof finds a protection missing (the caller warns).
    allow_weak: bool = False
    #: ``deny`` and the project's copies are every copy of the answers: lock them by file
    #: permissions, which then hide them where Landlock and namespaces cannot (Policy).
    lock_answers: bool = False


def runtime_paths() -> list[str]:
    """The folders the worker's Python must see: the interpreter, its libraries and the project."""
    paths = (
        PROJECT_ROOT,
        sys.prefix,
        sys.base_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
    )
    found: list[str] = []
    for path in paths:
        real = os.path.realpath(path)
        if real not in found:
            found.append(real)
    return found


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(os.path.join(folder, ""))


def make_worker_policy(config: SandboxConfig, scratch: str) -> Policy:
    """The policy (:mod:`.policy`) every mechanism of one worker renders."""
    return make_policy(
        this_machine(),
        student=bool(config.student_files),
        code_dir=os.path.realpath(config.code_dir) if config.code_dir else None,
        deny=[os.path.realpath(p) for p in config.deny],
        scratch=scratch,
        lock_answers=config.lock_answers,
    )


def lock_copies(policy: Policy) -> None:
    """File permissions rendering the policy: every copy of the answers readable by its
    owner alone (a root grader's own files; its workers are other users, without
    capabilities). Folders a worker needs to start stay as they are (:func:`mount_hidden`).
    Call it only where permissions are what hides the answers (:func:`locks_needed`)."""
    for path in mount_hidden(policy):
        with contextlib.suppress(OSError):
            mode = os.lstat(path).st_mode
            if not stat.S_ISLNK(mode):
                os.chmod(path, stat.S_IMODE(mode) & 0o700)


def locks_needed(config: SandboxConfig, isolation: str) -> bool:
    """Whether file permissions must hide the answers: asked for, and nothing else can (no
    namespaces, no Landlock), and they can (a root grader whose workers get uids of their own
    and keep no capability that reads past file modes). Elsewhere the machine's files are
    left as they are."""
    if not config.lock_answers or isolation != "process":
        return False
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not submission_ids():
        return False
    from pacman.sandbox.lockdown import landlock_abi

    abi = landlock_abi() if config.landlock_abi_cap is None else config.landlock_abi_cap
    return min(abi, landlock_abi()) == 0 and not _needs_read_search(isolation)


def mount_hidden(policy: Policy) -> list[str]:
    """The answers a mount namespace or bwrap covers before the worker starts.

    A folder holding what the worker needs to start (the interpreter, the project, the
    student's folder: ``--code-directory .`` in a course folder may hold the grader) stays
    visible, read-only; its answers inside are still covered, and the proof's canaries
    show whether anything was left readable.
    """
    needed = runtime_paths() + ([policy.code_dir] if policy.code_dir else [])
    return [path for path in policy.answers if not any(_inside(need, path) for need in needed)]


def landlock_rules(policy: Policy) -> dict[str, list[str]]:
    """The policy as :func:`.lockdown.lock_down` applies it with Landlock."""
    return {
        "reads": list(policy.reads),
        "hidden": [*policy.answers, *policy.grader_code],
        "keep": list(policy.keep),
        "writes": list(policy.writes),
    }


@functools.lru_cache(maxsize=64)
def choose_canaries(answers: tuple[str, ...]) -> tuple[str, ...]:
    """One real file in each of ``answers``: the proof checks that each fails to open.

    A folder's first file in name order stands for it (the mechanisms hide folders whole).
    """
    found = []
    for path in answers:
        if os.path.isfile(path):
            found.append(path)
            continue
        stack, seen = [path], 0
        while stack and seen < 2000:
            folder = stack.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
            except OSError:
                continue
            seen += len(entries)
            files = [e.path for e in entries if e.is_file(follow_symlinks=False)]
            if files:
                found.append(files[-1])
                break
            stack += [e.path for e in entries if e.is_dir(follow_symlinks=False)]
    return tuple(found)


class SandboxError(PacmanError):
    """A worker could not be started at all: the grader itself cannot run."""


class WorkerDied(Exception):
    """The worker process ended or broke the protocol; the message says how."""


class WorkerTimeout(Exception):
    """The worker went over a time limit; the message says which, and the time measured."""


class OverLimit(protocol.Timeout):
    """The worker went over a limit other than time (threads, scratch space): it is stopped,
    and the message names the limit."""


def oom_kills() -> int | None:
    """How many processes the kernel's out-of-memory killer has ended since boot (None
    where the kernel does not say): a worker that dies as this grows was one of them."""
    try:
        with open("/proc/vmstat", "rb") as handle:
            for line in handle:
                if line.startswith(b"oom_kill "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


#: Per-submission uids are taken from here up: far above any real account.
UID_BASE = 2_100_000_000

_probe_lock = threading.Lock()
_probed: dict[str, bool] = {}
_uid_lock = threading.Lock()
_uid_counter = 0


def _mapped(path: str) -> list[range]:
    """The ids a user namespace's map (``/proc/self/uid_map``) holds, as ranges of inner ids;
    everything where the kernel keeps no map (not Linux)."""
    try:
        with open(path, encoding="ascii") as handle:
            rows = [line.split() for line in handle if line.strip()]
        return [range(int(row[0]), int(row[0]) + int(row[2])) for row in rows]
    except (OSError, ValueError, IndexError):
        return [range(0, 2**32 - 1)]


def _submission_ids(uids: list[range], gids: list[range]) -> range:
    """The ids submissions may get from these maps (a submission's gid is its uid): far above
    any real account where the maps allow (UID_BASE up), else the upper part of the largest
    range mapped in both (a rootless container's 65,536 subordinate ids), clear of system
    accounts and of 65534 and 65535 (nobody); empty where the maps hold none (a user
    namespace that maps root alone)."""
    both = [
        range(max(u.start, g.start), min(u.stop, g.stop))
        for u in uids
        for g in gids
        if max(u.start, g.start) < min(u.stop, g.stop)
    ]
    preferred = range(UID_BASE, UID_BASE + 2**24)
    if any(r.start <= preferred.start and preferred.stop <= r.stop for r in both):
        return preferred
    best = range(0)
    for mapped in both:
        low = range(max(mapped.start, 1000), min(mapped.stop, 65534))
        high = range(max(mapped.start, 65536), mapped.stop)
        best = max(best, low, high, key=len)
    return best


@functools.lru_cache(maxsize=1)
def submission_ids() -> range:
    """:func:`_submission_ids` of this process's user namespace."""
    return _submission_ids(_mapped("/proc/self/uid_map"), _mapped("/proc/self/gid_map"))


def allocate_uid() -> int | None:
    """A uid no other submission graded now (by this or another grader process) uses; None
    where this user namespace maps none for submissions (they then share the grader's,
    which only namespaces may make safe: the proof decides)."""
    global _uid_counter
    ids = submission_ids()
    if not ids:
        return None
    block = min(256, len(ids))
    with _uid_lock:
        _uid_counter += 1
        # The pid is unique among live graders on this machine; the counter within one.
        return ids[(os.getpid() % max(1, len(ids) // block)) * block + _uid_counter % block]


def _probe(mode: str) -> bool:
    """Whether ``mode`` works on this machine (checked once, by running ``true`` in it)."""
    with _probe_lock:
        if mode in _probed:
            return _probed[mode]
        ok = False
        try:
            if mode == "namespaces" and sys.platform.startswith("linux"):
                if shutil.which("unshare") and shutil.which("setpriv"):
                    command = [
                        *_unshare_prefix(),
                        "/bin/sh",
                        "-c",
                        "mount -t tmpfs none /tmp && mount -t tmpfs none /dev && exec true",
                    ]
                    ok = subprocess.run(command, capture_output=True, timeout=10).returncode == 0
            elif mode == "bwrap" and shutil.which("bwrap"):
                command = ["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--", "true"]
                ok = subprocess.run(command, capture_output=True, timeout=10).returncode == 0
            elif mode == "nobody" and hasattr(os, "geteuid") and os.geteuid() == 0:
                # Can an unprivileged user run this interpreter and import the worker?
                boot = "import sys; sys.path.insert(0, sys.argv[1]); import pacman.sandbox.inside"
                command = [sys.executable, "-I", "-B", "-c", boot, PROJECT_ROOT]
                ids = submission_ids()  # an id no account uses (none: nobody to try)
                ok = bool(ids) and (
                    subprocess.run(
                        command,
                        capture_output=True,
                        timeout=10,
                        user=ids[0],
                        group=ids[0],
                        extra_groups=[],
                        cwd="/",
                    ).returncode
                    == 0
                )
        except (OSError, subprocess.SubprocessError):
            ok = False
        _probed[mode] = ok
        return ok


def resolve_isolation(requested: str) -> str:
    """The isolation actually used for ``requested`` (auto picks the strongest that works)."""
    if requested == "process":
        return "process"
    if requested in ("auto", "namespaces") and _probe("namespaces"):
        return "namespaces"
    if requested in ("auto", "bwrap") and _probe("bwrap"):
        return "bwrap"
    if requested != "auto":
        # Asked for by name: silently running with less protection would be a surprise.
        raise SandboxError(f"--isolation {requested} does not work on this machine")
    return "process"


def _student_uid(config: SandboxConfig, isolation: str) -> int | None:
    """The uid student code switches to, or None when the grader is not root."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or isolation == "bwrap":
        return None  # not root: already unprivileged; bwrap drops every capability itself
    return config.uid if config.uid is not None else allocate_uid()


def _needs_read_search(isolation: str) -> bool:
    """Whether the student's uid must read past file modes to load the interpreter.

    Namespaces mode makes private homes such as /root traversable; process mode cannot,
    and there a uid of its own still beats staying root (it cannot write what root owns
    or signal the grader), even when it may read what root may.
    """
    return isolation == "process" and not _probe("nobody")


def _unshare_prefix() -> list[str]:
    return [
        "unshare",
        "--mount",
        "--net",
        "--pid",
        "--ipc",
        "--uts",
        "--fork",
        "--kill-child",
        "--mount-proc",
        "--propagation",
        "private",
        "--",
    ]


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _untraversable_top(path: str) -> str | None:
    """The highest folder above ``path`` that other users may not enter (e.g. ``/root``)."""
    current = "/"
    for part in path.strip("/").split("/")[:-1]:
        current = os.path.join(current, part)
        try:
            mode = os.stat(current).st_mode
        except OSError:
            return None
        if not mode & stat.S_IXOTH:
            return current
    return None


def visible_tree(policy: Policy) -> tuple[list[str], list[str]]:
    """The read-only tree a namespace or bwrap worker sees: (folders and files to bring in,
    answers inside them to cover). Nothing else of the machine exists in its view, so a
    copy of the answers the grader does not know of (an old course folder) is out of
    sight as well; the answers it does know of are covered where a folder brought in
    holds them (an installed wheel's suite inside the interpreter's prefix).
    """
    shown: list[str] = []
    for path in sorted(os.path.realpath(p) if not os.path.islink(p) else p for p in policy.reads):
        if path.startswith("/proc/"):
            continue  # the worker's /proc is its own, mounted fresh
        if os.path.lexists(path) and not any(_inside(path, other) for other in shown):
            shown.append(path)
    covered = [
        path
        for path in mount_hidden(policy)
        if os.path.exists(path) and any(_inside(path, top) for top in shown)
    ]
    return shown, covered


#: Per-mount flags a remount in a user namespace must repeat: the kernel locks the access
#: time and noexec flags of the mounts that namespace inherited.
_LOCKED_FLAGS = ("noatime", "relatime", "strictatime", "nodiratime", "noexec")


def _mount_flags() -> list[tuple[str, list[str]]]:
    """Each mount point of this process's view and its per-mount flags (from mountinfo)."""
    found = []
    with contextlib.suppress(OSError), open("/proc/self/mountinfo", encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            point = fields[4].encode().decode("unicode_escape")  # \040 for a space...
            found.append((point, fields[5].split(",")))
    return found


def _locked_flags(path: str, mounts: list[tuple[str, list[str]]]) -> list[str]:
    """The locked flags of the mount ``path`` lies on (the last mounted of the deepest)."""
    chosen: list[str] = []
    depth = -1
    for point, options in mounts:
        if _inside(path, point) and len(point) >= depth:
            depth, chosen = len(point), options
    return [flag for flag in chosen if flag in _LOCKED_FLAGS]


def _read_only(target: str, flags: list[str]) -> str:
    """The remount making the bind mount ``target`` read-only (and nosuid, nodev), repeating
    ``flags`` (what the kernel may have locked on it)."""
    options = ",".join(["remount", "bind", "ro", "nosuid", "nodev", *flags])
    return f"mount -o {options} {_shell_quote(target)}"


def _namespace_script(
    config: SandboxConfig, policy: Policy, inner: list[str], scratch: str, root: str, uid: int
) -> str:
    """Shell run as root inside fresh namespaces: build the worker's own root, then exec.

    The root is an empty tmpfs on ``root`` holding read-only binds of what the policy lets
    the worker read (answers inside them covered), a fresh /proc and /dev, and a scratch
    tmpfs of the quota's size owned by ``uid``; Python then starts chrooted into it. The
    worker itself then leaves root and locks itself down (:mod:`.lockdown`).
    """
    chroot = shutil.which("chroot") or "/usr/sbin/chroot"
    q = _shell_quote
    mounts = _mount_flags()
    lines = ["set -e", f"mount -t tmpfs -o size=1m,mode=0755 none {q(root)}"]
    shown, covered = visible_tree(policy)
    for path in shown:
        target = q(root + path)
        lines.append(f"mkdir -p {q(os.path.dirname(root + path))}")
        if os.path.islink(path):
            lines.append(f"ln -s {q(os.readlink(path))} {target}")
            continue
        lines.append(f"mkdir -p {target}" if os.path.isdir(path) else f": > {target}")
        lines.append(f"mount --no-canonicalize --bind {q(path)} {target}")
        lines.append(_read_only(root + path, _locked_flags(path, mounts)))
    # A file nobody but root may open, laid over hidden files (/dev/null would open).
    cover = f"{root}/dev/.hidden"
    lines.append(f"mkdir -p {q(root)}/proc {q(root)}/dev")
    lines.append(f"mount -t proc -o nosuid,nodev,noexec proc {q(root)}/proc")
    for knob in ("sys", "sysrq-trigger"):
        target_path = f"{root}/proc/{knob}"
        target = q(target_path)
        # (A kernel without the knob has nothing to cover: `&&` lets the script go on.)
        lines.append(f"mount --bind {target} {target} && " + _read_only(target_path, ["noexec"]))
    lines.append(f"mount -t tmpfs -o size=64k,mode=0755,nosuid,noexec none {q(root)}/dev")
    # The policy's devices, bound from the machine's /dev (mknod needs a capability that a
    # user namespace's root lacks; a bound node works in both).
    for device in policy.devices:
        lines.append(f": > {q(root + device)} && mount --bind {q(device)} {q(root + device)}")
    lines.append(f"ln -s /proc/self/fd {q(root)}/dev/fd")
    lines.append(f": > {q(cover)} && chmod 000 {q(cover)}")
    lines.append(f"mkdir {q(root)}/dev/shm")
    lines.append(_read_only(f"{root}/dev", ["noexec"]))
    lines.append(f"mount -t tmpfs -o size=16m,nosuid,nodev,noexec none {q(root)}/dev/shm")
    for path in covered:
        target = q(root + path)
        if os.path.isdir(path):
            lines.append(f"mount -t tmpfs -o size=4k,mode=0755,ro none {target}")
        else:
            lines.append(f"mount --bind {q(cover)} {target}")
    # The scratch folder: the only place to write, capped in bytes and in files by tmpfs.
    limits = config.limits
    lines.append(f"mkdir -p {q(root + scratch)}")
    lines.append(
        f"mount -t tmpfs -o size={limits.disk_mb}m,nr_inodes={policy.max_scratch_entries},"
        f"mode=0700,uid={uid},gid={uid},nosuid,nodev none {q(root + scratch)}"
    )
    lines.append(_read_only(root, []))
    lines.append(f"exec {q(chroot)} {q(root)} " + " ".join(q(part) for part in inner))
    return "\n".join(lines)


def _bwrap_command(
    config: SandboxConfig, policy: Policy, inner: list[str], scratch: str
) -> list[str]:
    command = ["bwrap"]
    shown, covered = visible_tree(policy)
    for path in shown:
        if os.path.islink(path):
            command += ["--symlink", os.readlink(path), path]
        else:
            command += ["--ro-bind", path, path]
    command += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm"]
    command += ["--size", str(config.limits.disk_mb * 1024 * 1024), "--tmpfs", scratch]
    for path in covered:
        if os.path.isdir(path):
            command += ["--tmpfs", path]
        else:
            # A file with no permissions: /dev/null would open (and prove nothing hidden).
            command += ["--perms", "0000", "--ro-bind-data", "0", path]
    if config.code_dir:
        command += ["--chdir", config.code_dir]
    command += ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--"]
    return command + inner


def seconds(value: float) -> str:
    """A duration for a report: ``0.2 s``, ``3.4 s``, ``42 s``."""
    if value < 10:
        return f"{max(value, 0.0):.1f} s"
    return f"{value:.0f} s"


def _describe_exit(code: int | None, limits: Limits) -> str:
    if code is None:
        return "stopped answering"
    if code < 0:
        number = -code
        if number == signal.SIGKILL:
            return f"was killed (SIGKILL: most likely over the {limits.memory_mb} MB memory limit)"
        if number == getattr(signal, "SIGXCPU", -1):
            return "used up the CPU time of its whole submission"
        if number == getattr(signal, "SIGXFSZ", -1):
            return f"wrote a file larger than {limits.fsize_mb} MB"
        if number == signal.SIGSEGV:
            return "crashed (segmentation fault; deep recursion or memory exhaustion?)"
        if number == getattr(signal, "SIGSYS", -1):
            return "made a system call from another architecture (killed by the sandbox)"
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"was killed by {name}"
    if code == 137:
        return f"was killed (most likely over the {limits.memory_mb} MB memory limit)"
    return f"exited with status {code} (os._exit or a fatal error)"


def _cpu_seconds(pid: int) -> float | None:
    """CPU time used so far by process ``pid``, every thread it ran counted, from /proc.

    ``/proc/PID/stat`` counts the whole thread group, live and ended threads alike
    (``schedstat`` would count the main thread only, and a helper thread would go free).
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _leaf_process(pid: int) -> int:
    """The innermost process under ``pid`` (unshare's child, which became the worker)."""
    for _ in range(8):
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as handle:
                children = handle.read().split()
        except OSError:
            return pid
        if not children:
            return pid
        pid = int(children[0])
    return pid


def _threads(pid: int) -> int:
    """How many threads process ``pid`` runs (0 where /proc cannot tell)."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


class Worker:
    """One student worker process and its pipes."""

    #: Seconds between looks at a busy worker's CPU time and disk use.
    POLL = 0.05

    def __init__(self, config: SandboxConfig, isolation: str | None = None) -> None:
        self.config = config
        self.isolation = isolation or resolve_isolation(config.isolation)
        self.process: subprocess.Popen[bytes] | None = None
        self.dead: str | None = None
        self.pid = -1  # the worker's own process, as the grader sees it
        self.protections: dict[str, Any] = {}
        self.last_cpu = 0.0  # CPU seconds the last request used
        self._cpu_mark: float | None = None  # the worker's CPU time when it last answered
        self._disk_looked_at = 0.0  # when the scratch folder was last measured
        self._oom_mark = oom_kills()  # the kernel's count of OOM kills when it was last alive
        self._busy = False  # a request is under way (the idle watcher stands aside)
        self._closed = threading.Event()
        self._next_id = 0
        self._output = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the worker)
        # The only folder student code may write to (and its TMPDIR).
        self.scratch = tempfile.mkdtemp(prefix="pacman-scratch-")
        self.root: str | None = None  # namespaces mode: where the worker's root is mounted
        self.policy = make_worker_policy(config, self.scratch)
        #: File permissions hide the answers from this worker (locked before it starts).
        self.locked = locks_needed(config, self.isolation)
        if self.locked:
            lock_copies(self.policy)
        self.uid = _student_uid(config, self.isolation)
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    def _start(self) -> None:
        config = self.config
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        inner = [
            sys.executable,
            "-I",
            "-B",
            "-c",
            _BOOT,
            str(to_child_r),
            str(from_child_w),
            PROJECT_ROOT,
        ]
        if self.isolation == "namespaces":
            command = [
                # unshare must die with the grader; it takes the worker with it (--kill-child).
                "setpriv",
                "--pdeathsig",
                "KILL",
                "--",
                *_unshare_prefix(),
                "/bin/sh",
                "-c",
                _namespace_script(
                    config, self.policy, inner, self.scratch, self._root(), self.uid or 0
                ),
            ]
        elif self.isolation == "bwrap":
            command = _bwrap_command(config, self.policy, inner, self.scratch)
        else:
            command = inner
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "PYTHONHASHSEED": "0",
            "HOME": self.scratch,
            "TMPDIR": self.scratch,
            # One thread per numeric library: workers run side by side, and each BLAS thread
            # reserves address space that counts against the memory limit.
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
        if self.uid is not None:
            os.chown(self.scratch, self.uid, self.uid)
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=self._output,
                stderr=self._output,
                pass_fds=(to_child_r, from_child_w),
                start_new_session=True,
                cwd=config.code_dir or tempfile.gettempdir(),
                env=env,
            )
        except OSError as error:
            raise SandboxError(f"could not start a student worker: {error}") from None
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self._wfd = to_child_w
        self._rfd = from_child_r
        limits = config.limits
        policy = self.policy
        setup = {
            "memory_mb": limits.memory_mb,
            "cpu_seconds": _life_cpu_seconds(limits),
            "fsize_mb": limits.fsize_mb,
            "deny": list(policy.answers),
            "writable": list(policy.writes),
            "student": list(config.student_files),
            "path": [config.code_dir] if config.code_dir else [],
            "chdir": config.code_dir,
            "audit": config.audit,
            "hidden_modules": list(policy.hidden_modules),
            "landlock": landlock_rules(policy) if config.landlock_abi_cap != 0 else None,
            "landlock_abi_cap": config.landlock_abi_cap,
            "uid": self.uid,
            "read_search": self.uid is not None and _needs_read_search(self.isolation),
            "isolation": self.isolation,
            "answers_locked": self.locked,
            "proof": {
                "grader_pid": os.getpid(),
                "grader_uid": os.geteuid() if hasattr(os, "geteuid") else -1,
                "canaries": list(choose_canaries(policy.answers)),
            },
        }
        deadline = time.monotonic() + 30
        try:
            protocol.write_frame(self._wfd, setup, deadline)
            ready = protocol.read_frame(self._rfd, deadline)
        except protocol.ProtocolError as error:
            # No student code has run yet: this is the grader's (or the machine's) problem.
            self.kill()
            self._output.seek(0)
            said = untrusted.text(self._output.read(2000).decode("utf-8", "surrogateescape"))
            said = said.strip().splitlines()
            detail = f": {said[-1]}" if said else ""
            raise SandboxError(
                f"could not start a student worker ({self.isolation} isolation, {error}){detail}"
            ) from None
        if not (isinstance(ready, dict) and "ready" in ready):
            self.kill()
            raise SandboxError("a student worker sent a malformed greeting")
        self.pid = _leaf_process(self.process.pid)
        self.protections = self._checked_protections(ready.get("protections") or {})
        if self.protections.get("honest_code_runs") is not True:
            # Grading here would blame every student for the grader's own installation.
            self.kill()
            problem = self.protections.get("honest_code_problem") or "it did not say why"
            raise SandboxError(
                f"refusing to grade here: honest code cannot run in a student worker: "
                f"{problem}; install the grader where every user can read it (not in a "
                "private home folder), or run it as the user who owns that folder"
            )
        missing = shortfalls(self.protections)
        if missing and not config.allow_weak:
            # Refused before the student's code is imported: nothing of it has run.
            self.kill()
            raise SandboxError(
                f"refusing to grade here: {describe_shortfalls(missing)} "
                f"({describe_setting(self.protections)})"
            )
        threading.Thread(target=self._watch_idle, name="pacman-footprint", daemon=True).start()

    def _watch_idle(self) -> None:
        """Between requests, threads the student left running may go on writing files or
        starting threads: look twice a second, and stop a worker over its caps."""
        quota = self.config.limits.disk_mb * 1024 * 1024
        while not self._closed.wait(0.5):
            if self._busy or not self.alive:
                continue
            try:
                self._check_footprint(quota, time.monotonic())
            except protocol.Timeout:
                self.kill()
                return

    def _root(self) -> str:
        """An empty folder on which the worker's namespace mounts its own root."""
        if self.root is None:
            self.root = tempfile.mkdtemp(prefix="pacman-root-")
        return self.root

    def _checked_protections(self, said: dict[str, Any]) -> dict[str, Any]:
        """The worker's proof (:func:`.lockdown.prove`), with the kernel's view put over it.

        The greeting comes before any student code runs, so it is the grader's code
        speaking; what /proc shows of the worker from outside is checked all the same.
        """
        found = dict(said)
        status = process_status(self.pid)
        if "Uid" in status:
            uids = [int(u) for u in status["Uid"].split()]
            found["uid"] = uids[0]
            grader = os.geteuid()
            if any(u in (0, grader) for u in uids):
                found["separate_uid"] = False
                scoped = grader != 0 and found.get("landlock_scopes") is True and 0 not in uids
                # Root's own uid in a user namespace that maps no other (see lockdown.prove).
                contained = (
                    self.isolation == "namespaces"
                    and found.get("pid_namespace") is True
                    and all(u == grader for u in uids)
                )
                if not (scoped or contained):
                    found["own_uid"] = False
                if grader == 0 and not submission_ids():
                    found["uids_mapped"] = False
        sets = capability_sets(status)
        if sets:
            allowed = (1 << 2) if found.get("landlock") else 0  # CAP_DAC_READ_SEARCH
            if any(bits & ~allowed for name, bits in sets.items() if name != "CapBnd"):
                found["no_capabilities"] = False
        if status.get("Seccomp") != "2":
            found["seccomp"] = False
        if status.get("NoNewPrivs") != "1":
            found["no_new_privs"] = False
        found["isolation"] = self.isolation
        return found

    # -- life and death ------------------------------------------------------------------------

    def kill(self) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        if self.pid > 0 and self.pid != process.pid:
            # Namespaces mode: the worker is unshare's child (it dies with unshare anyway).
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
        for fd in (self._wfd, self._rfd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wfd = self._rfd = -1
        self.process = None

    def close(self) -> None:
        self._closed.set()
        self.kill()
        with contextlib.suppress(OSError):
            self._output.close()
        remove_tree(self.scratch)
        if self.root is not None:
            remove_tree(self.root)

    def _fail(self, why: str) -> None:
        process = self.process
        code = None
        if process is not None:
            try:
                code = process.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                code = None
        if code is not None and why == "closed its pipe":
            why = _describe_exit(code, self.config.limits)
            kills = oom_kills()
            if code != 0 and kills is not None and kills > (self._oom_mark or kills):
                # unshare reports a child killed by a signal as status 1: the kernel's count
                # of OOM kills tells what ended it.
                why = (
                    "ran out of memory: the kernel's out-of-memory killer ended it (the machine "
                    f"or container ran short of memory; each process may use "
                    f"{self.config.limits.memory_mb} MB)"
                )
        # The idle watcher may have stopped it already, and said why.
        self.dead = self.dead or why
        self.kill()

    @property
    def alive(self) -> bool:
        return self.dead is None and self.process is not None

    def cpu_seconds(self) -> float | None:
        """CPU time the worker has used in all (None where /proc cannot tell)."""
        return _cpu_seconds(self.pid) if self.pid > 0 else None

    # -- requests ------------------------------------------------------------------------------

    def call(
        self,
        op: str,
        cpu_limit: float,
        what: str = "it",
        limit_name: str = "the CPU limit",
        **fields: Any,
    ) -> dict[str, Any]:
        """Send one request; return the reply dict, or raise WorkerTimeout / WorkerDied.

        ``cpu_limit`` is charged in CPU seconds of the worker, so a busy machine does not
        cut a request short; a wall-clock backstop (:func:`backstop`) catches code that
        sleeps or blocks. ``what`` names the request in messages (``getAction``), and
        ``limit_name`` the limit ``cpu_limit`` comes from.
        """
        if not self.alive:
            raise WorkerDied(self.dead or "is not running")
        self._busy = True
        try:
            return self._call(op, cpu_limit, what, limit_name, fields)
        finally:
            self._busy = False

    def _call(
        self, op: str, cpu_limit: float, what: str, limit_name: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        self._next_id += 1
        request = {"op": op, "id": self._next_id, **fields}
        cpu_limit = max(0.0, cpu_limit)
        started = time.monotonic()
        # The worker is idle between requests: where the last one ended, this one starts.
        cpu_start = self._cpu_mark if self._cpu_mark is not None else self.cpu_seconds()
        # Where /proc cannot tell the CPU time (not Linux), the limit is wall-clock time.
        wall_limit = backstop(cpu_limit) if cpu_start is not None else cpu_limit
        deadline = started + wall_limit
        quota = self.config.limits.disk_mb * 1024 * 1024

        def watch() -> None:
            now = time.monotonic()
            if cpu_start is not None:
                used = (self.cpu_seconds() or cpu_start) - cpu_start
                if used > cpu_limit:
                    self.last_cpu = used
                    self.dead = (
                        f"{what} used more than {seconds(cpu_limit)} of CPU time "
                        f"({limit_name}; {seconds(used)} measured)"
                    )
                    raise protocol.Timeout(self.dead)
            self._check_footprint(quota, now)

        try:
            protocol.write_frame(self._wfd, request, deadline, watch, self.POLL)
            while True:
                reply = protocol.read_frame(
                    self._rfd, deadline, watch, self.POLL, self.config.limits.reply_bytes
                )
                # Replies to other requests (forged or stale) are ignored.
                if isinstance(reply, dict) and reply.get("id") == self._next_id:
                    break
            reply = untrusted.data(reply)  # every string of it is the student's from here on
        except OverLimit:
            self.kill()
            raise WorkerDied(self.dead or "") from None
        except protocol.Timeout:
            if self.dead is None:
                used = (self.cpu_seconds() or 0.0) - (cpu_start or 0.0)
                self.dead = (
                    f"{what} did not answer within {seconds(wall_limit)} of wall-clock time "
                    f"(the backstop for {limit_name} of {seconds(cpu_limit)} of CPU; it used "
                    f"{seconds(used)} of CPU, so it was mostly sleeping or blocked)"
                )
            self.kill()
            raise WorkerTimeout(self.dead) from None
        except protocol.PipeClosed:
            self._fail("closed its pipe")
            raise WorkerDied(self.dead or "") from None
        except protocol.ProtocolError as error:
            self._fail(f"broke the protocol ({error})")
            raise WorkerDied(self.dead or "") from None
        try:
            # What the request left behind counts too (importing is where files get made).
            if op == "load":
                self._disk_looked_at = 0.0
            self._check_footprint(quota, time.monotonic())
        except protocol.Timeout:
            self.kill()
            raise WorkerDied(self.dead or "") from None
        self._oom_mark = oom_kills()  # it was alive here: a kill from now on may be its
        if cpu_start is not None:
            self._cpu_mark = self.cpu_seconds()
            self.last_cpu = max(0.0, (self._cpu_mark or cpu_start) - cpu_start)
        else:
            self.last_cpu = time.monotonic() - started
        return reply

    def _check_footprint(self, quota: int, now: float) -> None:
        """Stop a worker over its thread cap or its scratch quota (bytes and entries).

        Counted here, from outside, so the caps hold for an unprivileged grader too, whose
        workers share its uid (``RLIMIT_NPROC`` counts per uid). The scratch folder is
        walked at most twice a second.
        """
        policy = self.policy
        if _threads(self.pid) > policy.max_threads:
            self.dead = (
                f"was stopped: it started more than {policy.max_threads} threads "
                "(the cap on threads a submission may run)"
            )
            raise OverLimit(self.dead)
        if self.isolation == "namespaces" or now - self._disk_looked_at < 0.5:
            return  # (a namespace worker's scratch folder is a tmpfs of the quota's size)
        self._disk_looked_at = now
        used, entries = tree_usage(self.scratch, max_entries=policy.max_scratch_entries)
        if used > quota or entries > policy.max_scratch_entries:
            self.dead = (
                f"was stopped: it wrote more than {self.config.limits.disk_mb} MB or "
                f"{policy.max_scratch_entries} files and folders (the scratch folder's quota)"
            )
            raise OverLimit(self.dead)

    def mark_output(self) -> None:
        """Start collecting the student's output for a new test.

        The file is emptied, so a long-lived worker's output never grows past one test's
        (the file-size limit applies to it too). The worker shares the file's offset, so
        rewinding it makes the next write land at the start.
        """
        fd = self._output.fileno()
        try:
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
        except (OSError, ValueError):
            pass

    def output(self) -> str:
        """What the student's code printed since :meth:`mark_output`, cut to the limit."""
        limit = self.config.limits.output_bytes
        try:
            fd = self._output.fileno()
            size = os.fstat(fd).st_size
            data = os.pread(fd, min(size, limit + 1), 0)  # pread: the shared offset stays put
        except (OSError, ValueError):
            return ""
        # Bytes that are not UTF-8 are shown as \\xNN, not replaced: the student sees what ran.
        text = untrusted.text(data[:limit].decode("utf-8", "surrogateescape"))
        if len(data) > limit:
            text += f"\n[... {size - limit} more bytes cut]"
        return text


def describe_setting(protections: dict[str, Any]) -> str:
    """``process isolation, uid 0, Landlock v2`` for one line of a refusal or a warning."""
    parts = [f"{protections.get('isolation') or 'no'} isolation"]
    if protections.get("uid") is not None:
        parts.append(f"uid {protections['uid']}")
    if protections.get("uids_mapped") is False:
        parts.append("no uid of their own: this user namespace maps none for student code")
    held = protections.get("capabilities_held") or {}
    if held:
        parts.append("capabilities " + ", ".join(f"{k} {v}" for k, v in sorted(held.items())))
    abi = protections.get("landlock") or 0
    parts.append(f"Landlock v{abi}" if abi else "no Landlock")
    return ", ".join(parts)


def probe_protections(config: SandboxConfig) -> tuple[dict[str, Any], Worker]:
    """Start one worker as ``config`` would (its student files are not imported yet) and
    return what it proved, with the worker, which the caller closes or puts to use."""
    worker = Worker(dataclasses.replace(config, allow_weak=True))
    return worker.protections, worker


def _life_cpu_seconds(limits: Limits) -> int:
    """RLIMIT_CPU for a worker's whole life: a backstop far above any request's limit."""
    if limits.submission_seconds is not None:
        return int(limits.submission_seconds) + 60
    return 6 * 3600


class WorkerPool:
    """Reusable workers for one submission: one per thread, replaced when one dies."""

    def __init__(self, config: SandboxConfig) -> None:
        if config.uid is None:
            # One uid for all of a submission's workers, and for no other submission.
            config = dataclasses.replace(config, uid=allocate_uid())
        self.config = config
        self._local = threading.local()
        self._all: list[Worker] = []
        self._lock = threading.Lock()
        #: What the first worker had in force (every worker of a pool gets the same).
        self.protections: dict[str, Any] = {}
        self._spare: list[Worker] = []

    @property
    def isolation(self) -> str:
        """The isolation its workers run in."""
        return self.protections.get("isolation") or resolve_isolation(self.config.isolation)

    def adopt(self, worker: Worker) -> None:
        """Take ``worker`` (started with this pool's config, e.g. by :func:`probe_protections`)
        as the first to hand out."""
        with self._lock:
            self._all.append(worker)
            self._spare.append(worker)
            if not self.protections:
                self.protections = worker.protections

    def release(self) -> None:
        """Hand this thread's worker to the next thread that needs one (it stays alive)."""
        worker = getattr(self._local, "worker", None)
        self._local.worker = None
        if worker is not None and worker.alive:
            with self._lock:
                self._spare.append(worker)

    def get(self) -> Worker:
        worker = getattr(self._local, "worker", None)
        if worker is None or not worker.alive:
            if worker is not None:
                worker.close()
            with self._lock:
                spare = self._spare.pop() if self._spare else None
            if spare is not None and spare.alive:
                self._local.worker = spare
                return spare
            worker = self._start()
            self._local.worker = worker
            with self._lock:
                self._all.append(worker)
                if not self.protections:
                    self.protections = worker.protections
        return worker

    def _start(self) -> Worker:
        while True:
            # The mode is fixed before the attempt: another thread may downgrade it meanwhile.
            mode = resolve_isolation(self.config.isolation)
            try:
                return Worker(self.config, mode)
            except SandboxError as error:
                if self.config.isolation != "auto" or mode == "process":
                    raise
                # The probe passed but a real worker could not start: fall back, loudly.
                with _probe_lock:
                    _probed[mode] = False
                print(f"autograder: warning: {error}; trying weaker isolation", file=sys.stderr)

    def close(self) -> None:
        with self._lock:
            for worker in self._all:
                worker.close()
            self._all.clear()
