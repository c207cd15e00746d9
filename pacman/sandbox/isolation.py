"""Which isolation works on this machine (namespaces, bwrap, a process alone), and what the
worker needs to see to start: the interpreter, its libraries and the project.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import threading

from pacman.sandbox.config import SandboxConfig, SandboxError
from pacman.sandbox.ids import allocate_uid, submission_ids

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


_probe_lock = threading.Lock()


_probed: dict[str, bool] = {}


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


def probe(mode: str) -> bool:
    """Whether ``mode`` works on this machine (checked once, by running ``true`` in it)."""
    with _probe_lock:
        if mode in _probed:
            return _probed[mode]
        ok = False
        try:
            if mode == "namespaces" and sys.platform.startswith("linux"):
                if shutil.which("unshare") and shutil.which("setpriv"):
                    command = [
                        *unshare_prefix(),
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
    if requested in ("auto", "namespaces") and probe("namespaces"):
        return "namespaces"
    if requested in ("auto", "bwrap") and probe("bwrap"):
        return "bwrap"
    if requested != "auto":
        # Asked for by name: silently running with less protection would be a surprise.
        raise SandboxError(f"--isolation {requested} does not work on this machine")
    return "process"


def workers_see_other_processes(requested: str, landlock_cap: int | None) -> bool:
    """Whether student workers here may read other processes' /proc (their command lines):
    process isolation shares the grader's PID namespace, and without Landlock (which leaves
    a worker its own /proc/self/status alone) nothing else keeps them out."""
    if not sys.platform.startswith("linux") or resolve_isolation(requested) != "process":
        return False
    from pacman.sandbox.landlock import landlock_abi

    abi = landlock_abi() if landlock_cap is None else min(landlock_cap, landlock_abi())
    return abi == 0


def student_uid(config: SandboxConfig, isolation: str) -> int | None:
    """The uid student code switches to, or None when the grader is not root."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or isolation == "bwrap":
        return None  # not root: already unprivileged; bwrap drops every capability itself
    return config.uid if config.uid is not None else allocate_uid()


def needs_read_search(isolation: str) -> bool:
    """Whether the student's uid must read past file modes to load the interpreter.

    Namespaces mode makes private homes such as /root traversable; process mode cannot,
    and there a uid of its own still beats staying root (it cannot write what root owns
    or signal the grader), even when it may read what root may.
    """
    return isolation == "process" and not probe("nobody")


def unshare_prefix() -> list[str]:
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


def untraversable_top(path: str) -> str | None:
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


def forget_probe(mode: str) -> None:
    """Take back that ``mode`` works (a real worker could not start in it)."""
    with _probe_lock:
        _probed[mode] = False
