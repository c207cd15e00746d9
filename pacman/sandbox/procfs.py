"""What the kernel says of a worker from outside (``/proc``): its CPU time, its threads, the
process unshare's child became, how it ended, and the machine's count of OOM kills.
"""

from __future__ import annotations

import os
import signal

from pacman.sandbox.config import Limits


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


def describe_exit(code: int | None, limits: Limits) -> str:
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


def cpu_seconds(pid: int) -> float | None:
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


def leaf_process(pid: int) -> int:
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


def thread_count(pid: int) -> int:
    """How many threads process ``pid`` runs (0 where /proc cannot tell)."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def _pids_folders() -> list[str]:
    """The pids cgroup folders of this process and its ancestors (v1 or v2), nearest first."""
    try:
        with open("/proc/self/cgroup") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    for line in lines:
        _, names, path = line.split(":", 2)
        if "pids" in names.split(","):
            base = "/sys/fs/cgroup/pids"
            break
        if names == "" and os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            base = "/sys/fs/cgroup"
            break
    else:
        return []
    parts = [part for part in path.strip("/").split("/") if part]
    return [os.path.join(base, *parts[:depth]) for depth in range(len(parts), -1, -1)]


def pids_room() -> int | None:
    """How many more processes and threads the pids cgroups above this process allow (the
    smallest room of any level), or None where none limits them (or none can be read)."""
    room = None
    for folder in _pids_folders():
        try:
            with open(os.path.join(folder, "pids.max")) as handle:
                most = handle.read().strip()
            with open(os.path.join(folder, "pids.current")) as handle:
                current = int(handle.read())
        except (OSError, ValueError):
            continue
        if most != "max":
            left = int(most) - current
            room = left if room is None else min(room, left)
    return room
