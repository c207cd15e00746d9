"""The policy rendered by mechanisms the grader sets up before a worker starts: the root of
its own a mount namespace builds (or bwrap's), the Landlock rules it applies from inside,
the canaries its proof tries, and file permissions where nothing else can hide the answers.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import stat
import threading

from pacman.sandbox.cleanup import at_every_end
from pacman.sandbox.config import SandboxConfig
from pacman.sandbox.ids import submission_ids
from pacman.sandbox.isolation import needs_read_search, runtime_paths
from pacman.sandbox.policy import Policy, inside, make_policy, this_machine


def make_worker_policy(config: SandboxConfig, scratch: str, locked: bool = False) -> Policy:
    """The policy (:mod:`.policy`) every mechanism of one worker renders; ``locked``: file
    permissions hide the answers (:func:`locks_needed`), and they never touch the
    submission's own folder (the worker reads only its staged copy)."""
    deny = [os.path.realpath(p) for p in config.deny]
    if locked and config.submission_folder:
        deny = [p for p in deny if p != os.path.realpath(config.submission_folder)]
    return make_policy(
        this_machine(),
        student=bool(config.student_files),
        code_dir=os.path.realpath(config.code_dir) if config.code_dir else None,
        deny=deny,
        scratch=scratch,
        lock_answers=config.lock_answers,
    )


#: Each path whose mode :func:`lock_copies` changed in this process, and its mode before:
#: :func:`restore_locks` puts them back when grading ends.
_locked_modes: dict[str, int] = {}
_locked_modes_guard = threading.Lock()


def lock_copies(policy: Policy) -> list[str]:
    """File permissions rendering the policy: every copy of the answers readable by its
    owner alone (a root grader's own files; its workers are other users, without
    capabilities). Folders a worker needs to start stay as they are (:func:`mount_hidden`).
    Call it only where permissions are what hides the answers (:func:`locks_needed`), and
    :func:`restore_locks` when grading ends. Returns each lock that could not be applied,
    as ``PATH (why)``."""
    failed = []
    for path in mount_hidden(policy):
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        except OSError as error:
            failed.append(f"{path} ({error.strerror})")
            continue
        wanted = stat.S_IMODE(mode) & 0o700
        if stat.S_ISLNK(mode) or wanted == stat.S_IMODE(mode):
            continue
        with _locked_modes_guard:
            _locked_modes.setdefault(path, stat.S_IMODE(mode))
        try:
            os.chmod(path, wanted)
        except OSError as error:
            failed.append(f"{path} ({error.strerror})")
    return failed


def restore_locks() -> None:
    """Put back every mode :func:`lock_copies` changed in this process (call it once no
    worker is left)."""
    with _locked_modes_guard:
        for path, mode in _locked_modes.items():
            with contextlib.suppress(OSError):
                os.chmod(path, mode)
        _locked_modes.clear()


def _forget_locks_in_child() -> None:
    """A forked process (a --jobs pool worker) did not change its parent's modes: the
    parent puts them back, when it has no worker left."""
    global _locked_modes_guard
    _locked_modes_guard = threading.Lock()
    _locked_modes.clear()


# Backstops for a grader that ends without restoring (an uncaught error, a pool process).
at_every_end(restore_locks, _forget_locks_in_child)


def locks_needed(config: SandboxConfig, isolation: str) -> bool:
    """Whether file permissions must hide the answers: asked for, and nothing else can (no
    namespaces, no Landlock), and they can (a root grader whose workers get uids of their own
    and keep no capability that reads past file modes). Elsewhere the machine's files are
    left as they are."""
    if not config.lock_answers or isolation != "process":
        return False
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not submission_ids():
        return False
    from pacman.sandbox.landlock import landlock_abi

    abi = landlock_abi() if config.landlock_abi_cap is None else config.landlock_abi_cap
    return min(abi, landlock_abi()) == 0 and not needs_read_search(isolation)


def mount_hidden(policy: Policy) -> list[str]:
    """The answers a mount namespace or bwrap covers before the worker starts.

    A folder holding what the worker needs to start (the interpreter, the project, the
    student's folder: ``--code-directory .`` in a course folder may hold the grader) stays
    visible, read-only; its answers inside are still covered, and the proof's canaries
    show whether anything was left readable.
    """
    needed = runtime_paths() + ([policy.code_dir] if policy.code_dir else [])
    return [path for path in policy.answers if not any(inside(need, path) for need in needed)]


def landlock_rules(policy: Policy) -> dict[str, list[str]]:
    """The policy as :func:`.walls.lock_down` applies it with Landlock."""
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
        if os.path.lexists(path) and not any(inside(path, other) for other in shown):
            shown.append(path)
    covered = [
        path
        for path in mount_hidden(policy)
        if os.path.exists(path) and any(inside(path, top) for top in shown)
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
        if inside(path, point) and len(point) >= depth:
            depth, chosen = len(point), options
    return [flag for flag in chosen if flag in _LOCKED_FLAGS]


def _read_only(target: str, flags: list[str]) -> str:
    """The remount making the bind mount ``target`` read-only (and nosuid, nodev), repeating
    ``flags`` (what the kernel may have locked on it)."""
    options = ",".join(["remount", "bind", "ro", "nosuid", "nodev", *flags])
    return f"mount -o {options} {_shell_quote(target)}"


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def namespace_script(
    config: SandboxConfig, policy: Policy, inner: list[str], scratch: str, root: str, uid: int
) -> str:
    """Shell run as root inside fresh namespaces: build the worker's own root, then exec.

    The root is an empty tmpfs on ``root`` holding read-only binds of what the policy lets
    the worker read (answers inside them covered), a fresh /proc and /dev, and a scratch
    tmpfs of the quota's size owned by ``uid``; Python then starts chrooted into it. The
    worker itself then leaves root and locks itself down (:mod:`.walls`).
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


def bwrap_command(
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
