"""Starting a student worker: its command and environment, the setup it is handed, its
greeting, and the judgement of what it proved, before any student code is imported."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from pacman import untrusted
from pacman.sandbox import protocol
from pacman.sandbox.config import (
    BUSY_SIGNS,
    Limits,
    MachineBusy,
    SandboxConfig,
    SandboxError,
)
from pacman.sandbox.isolation import PROJECT_ROOT, needs_read_search, unshare_prefix
from pacman.sandbox.mounts import bwrap_command, choose_canaries, landlock_rules, namespace_script
from pacman.sandbox.policy import Policy, describe_weakness, shortfalls
from pacman.sandbox.worker_proof import WorkerProof

_BOOT = "import sys; sys.path.insert(0, sys.argv[3]); from pacman.sandbox.inside import main; main(sys.argv[1:3])"


def spawn(
    command_for: Callable[[list[str]], list[str]], output: IO[bytes], cwd: str, scratch: str
) -> tuple[subprocess.Popen[bytes], int, int]:
    """Start the worker's Python (``command_for`` puts it in its isolation) in a session of
    its own; return the process and the grader's ends of the two pipes (to it, from it)."""
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    inner = [sys.executable, "-I", "-B", "-c", _BOOT, str(to_child_r), str(from_child_w)]
    try:
        process = subprocess.Popen(
            command_for([*inner, PROJECT_ROOT]),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            pass_fds=(to_child_r, from_child_w),
            start_new_session=True,
            cwd=cwd,
            env=worker_environment(scratch),
        )
    except OSError as error:
        for fd in (to_child_w, from_child_r):  # the grader's ends: no worker will use them
            os.close(fd)
        busy = error.errno == errno.EAGAIN
        raise (MachineBusy if busy else SandboxError)(
            f"could not start a student worker: {error}"
        ) from None
    finally:
        os.close(to_child_r)
        os.close(from_child_w)
    return process, to_child_w, from_child_r


def worker_command(
    config: SandboxConfig,
    policy: Policy,
    isolation: str,
    inner: list[str],
    scratch: str,
    root: Callable[[], str],
    uid: int | None,
) -> list[str]:
    """The command starting the worker's Python ``inner`` in its isolation (``root`` makes
    the folder a namespace worker's root is mounted on)."""
    if isolation == "namespaces":
        script = namespace_script(config, policy, inner, scratch, root(), uid or 0)
        # unshare must die with the grader; it takes the worker with it (--kill-child).
        pdeathsig = ["setpriv", "--pdeathsig", "KILL", "--"]
        return [*pdeathsig, *unshare_prefix(), "/bin/sh", "-c", script]
    if isolation == "bwrap":
        return bwrap_command(config, policy, inner, scratch)
    return inner


def worker_environment(scratch: str) -> dict[str, str]:
    """The worker's whole environment: nothing of the grader's comes along."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "HOME": scratch,
        "TMPDIR": scratch,
        # One thread per numeric library: workers run side by side, and each BLAS thread
        # reserves address space that counts against the memory limit.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def worker_setup(
    config: SandboxConfig,
    policy: Policy,
    isolation: str,
    uid: int | None,
    locked: bool,
    write_probe: str,
) -> dict[str, Any]:
    """The first frame: the limits, the walls to put up and what the proof must find."""
    limits = config.limits
    return {
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
        "uid": uid,
        "max_threads": policy.max_threads,
        "read_search": uid is not None and needs_read_search(isolation),
        "isolation": isolation,
        "answers_locked": locked,
        "proof": {
            "grader_pid": os.getpid(),
            "grader_uid": os.geteuid() if hasattr(os, "geteuid") else -1,
            "canaries": list(choose_canaries(policy.answers)),
            "write_probe": write_probe,
        },
    }


def greeting(
    wfd: int,
    rfd: int,
    setup: dict[str, Any],
    output: IO[bytes],
    isolation: str,
    kill: Callable[[], None],
) -> dict[str, Any]:
    """Send the setup and read the worker's greeting (its proof inside); a worker that
    gives none is stopped with ``kill``."""
    deadline = time.monotonic() + 30
    try:
        protocol.write_frame(wfd, setup, deadline)
        ready = protocol.read_frame(rfd, deadline)
    except protocol.ProtocolError as error:
        # No student code has run yet: this is the grader's (or the machine's) problem.
        kill()
        output.seek(0)
        printed = untrusted.text(output.read(2000).decode("utf-8", "surrogateescape"))
        said = printed.strip().splitlines()
        detail = f": {said[-1]}" if said else ""
        busy = any(sign in line for line in said for sign in BUSY_SIGNS)
        raise (MachineBusy if busy else SandboxError)(
            f"could not start a student worker ({isolation} isolation, {error}){detail}"
        ) from None
    if not (isinstance(ready, dict) and "ready" in ready):
        kill()
        raise SandboxError("a student worker sent a malformed greeting")
    return ready


def refusal(proof: WorkerProof, allow_weak: bool) -> str | None:
    """Why a worker must not grade (it cannot run honest code, or, unless ``allow_weak``,
    it lacks a wall), or None."""
    if proof.honest_code_runs is not True:
        # Grading here would blame every student for the grader's own installation.
        problem = proof.honest_code_problem or "it did not say why"
        return (
            f"refusing to grade here: honest code cannot run in a student worker: "
            f"{problem}; install the grader where every user can read it (not in a "
            "private home folder), or run it as the user who owns that folder"
        )
    protections = proof.as_dict()
    if shortfalls(protections) and not allow_weak:
        return f"refusing to grade here: {describe_weakness(protections)}"
    return None


def _life_cpu_seconds(limits: Limits) -> int:
    """RLIMIT_CPU for a worker's whole life: a backstop far above any request's limit."""
    if limits.submission_seconds is not None:
        return int(limits.submission_seconds) + 60
    return 6 * 3600
