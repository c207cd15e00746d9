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
import errno
import os
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

from pacman.sandbox import procfs, protocol, untrusted
from pacman.sandbox.channel import CallChannel
from pacman.sandbox.cleanup import remove_tree
from pacman.sandbox.config import (
    BUSY_SIGNS,
    Limits,
    MachineBusy,
    SandboxConfig,
    SandboxError,
    retried,
)
from pacman.sandbox.footprint import Footprint
from pacman.sandbox.isolation import (
    PROJECT_ROOT,
    needs_read_search,
    resolve_isolation,
    student_uid,
    unshare_prefix,
)
from pacman.sandbox.lifeline import Lifeline
from pacman.sandbox.mounts import (
    bwrap_command,
    choose_canaries,
    landlock_rules,
    lock_copies,
    locks_needed,
    make_worker_policy,
    namespace_script,
)
from pacman.sandbox.policy import describe_weakness, shortfalls, thread_cap
from pacman.sandbox.staging import make_worker_folder
from pacman.sandbox.worker_proof import WorkerProof, checked_proof

_BOOT = "import sys; sys.path.insert(0, sys.argv[3]); from pacman.sandbox.inside import main; main(sys.argv[1:3])"


class WorkerProcess:
    """One student worker process and its pipes."""

    def __init__(self, config: SandboxConfig, isolation: str | None = None) -> None:
        self.config = config
        self.isolation = isolation or resolve_isolation(config.isolation)
        self.process: subprocess.Popen[bytes] | None = None
        #: Busy, closed and why it stopped: what the idle watcher's thread shares.
        self.lifeline = Lifeline()
        self.proof = WorkerProof()  # what it proved, checked (filled in by its greeting)
        self._output = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the worker)
        self.uid = student_uid(config, self.isolation)
        # The only folder student code may write to (and its TMPDIR), in a folder of the
        # grader's that holds whatever else this worker needs made (namespaces: its root).
        self.folder, self.scratch = make_worker_folder(self.uid)
        # Open to all as /tmp is: the proof checks the worker can make nothing in it.
        self.write_probe = tempfile.mkdtemp(prefix="pacman-probe-")
        os.chmod(self.write_probe, 0o1777)
        self.root: str | None = None  # namespaces mode: where the worker's root is mounted
        #: File permissions hide the answers from this worker (locked before it starts).
        self.locked = locks_needed(config, self.isolation)
        # A pids cgroup's room is shared: each worker may take half of what is left.
        self.policy = dataclasses.replace(
            make_worker_policy(config, self.scratch, self.locked),
            max_threads=thread_cap(procfs.pids_room()),
        )
        self.footprint = Footprint(self.policy, self.scratch, self.isolation, config.limits.disk_mb)
        self.channel = CallChannel(self, config.limits, self.lifeline, self.footprint)
        #: The locks that could not be applied (``PATH (why)``): the proof fails for them.
        self.unlocked = lock_copies(self.policy) if self.locked else []
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    def _start(self) -> None:
        """Start the worker, hand it its setup, and judge what it proved before going on."""
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        inner = [sys.executable, "-I", "-B", "-c", _BOOT, str(to_child_r), str(from_child_w)]
        try:
            self.process = subprocess.Popen(
                self._command([*inner, PROJECT_ROOT]),
                stdin=subprocess.DEVNULL,
                stdout=self._output,
                stderr=self._output,
                pass_fds=(to_child_r, from_child_w),
                start_new_session=True,
                cwd=self.config.code_dir or tempfile.gettempdir(),
                env=self._environment(),
            )
        except OSError as error:
            busy = error.errno == errno.EAGAIN
            raise (MachineBusy if busy else SandboxError)(
                f"could not start a student worker: {error}"
            ) from None
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self.channel.wfd = to_child_w
        self.channel.rfd = from_child_r
        ready = self._greeting()
        self.channel.pid = procfs.leaf_process(self.process.pid)
        said = ready.get("protections") or {}
        self.proof = checked_proof(said, self.pid, self.isolation, self.write_probe, self.unlocked)
        self._judge()
        self.channel.watch_idle()

    def _command(self, inner: list[str]) -> list[str]:
        """The command starting the worker's Python in its isolation."""
        if self.isolation == "namespaces":
            script = namespace_script(
                self.config, self.policy, inner, self.scratch, self._root(), self.uid or 0
            )
            # unshare must die with the grader; it takes the worker with it (--kill-child).
            pdeathsig = ["setpriv", "--pdeathsig", "KILL", "--"]
            return [*pdeathsig, *unshare_prefix(), "/bin/sh", "-c", script]
        if self.isolation == "bwrap":
            return bwrap_command(self.config, self.policy, inner, self.scratch)
        return inner

    def _environment(self) -> dict[str, str]:
        """The worker's whole environment: nothing of the grader's comes along."""
        return {
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

    def _setup(self) -> dict[str, Any]:
        """The first frame: the limits, the walls to put up and what the proof must find."""
        config, limits, policy = self.config, self.config.limits, self.policy
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
            "uid": self.uid,
            "max_threads": self.policy.max_threads,
            "read_search": self.uid is not None and needs_read_search(self.isolation),
            "isolation": self.isolation,
            "answers_locked": self.locked,
            "proof": {
                "grader_pid": os.getpid(),
                "grader_uid": os.geteuid() if hasattr(os, "geteuid") else -1,
                "canaries": list(choose_canaries(policy.answers)),
                "write_probe": self.write_probe,
            },
        }

    def _greeting(self) -> dict[str, Any]:
        """Send the setup and read the worker's greeting (its proof inside)."""
        deadline = time.monotonic() + 30
        try:
            protocol.write_frame(self.channel.wfd, self._setup(), deadline)
            ready = protocol.read_frame(self.channel.rfd, deadline)
        except protocol.ProtocolError as error:
            # No student code has run yet: this is the grader's (or the machine's) problem.
            self.kill()
            self._output.seek(0)
            said = untrusted.text(self._output.read(2000).decode("utf-8", "surrogateescape"))
            said = said.strip().splitlines()
            detail = f": {said[-1]}" if said else ""
            busy = any(sign in line for line in said for sign in BUSY_SIGNS)
            raise (MachineBusy if busy else SandboxError)(
                f"could not start a student worker ({self.isolation} isolation, {error}){detail}"
            ) from None
        if not (isinstance(ready, dict) and "ready" in ready):
            self.kill()
            raise SandboxError("a student worker sent a malformed greeting")
        return ready

    def _judge(self) -> None:
        """Refuse, before any student code is imported, a worker that cannot run honest code
        or (unless the caller allows it) lacks a wall."""
        if self.proof.honest_code_runs is not True:
            # Grading here would blame every student for the grader's own installation.
            self.kill()
            problem = self.proof.honest_code_problem or "it did not say why"
            raise SandboxError(
                f"refusing to grade here: honest code cannot run in a student worker: "
                f"{problem}; install the grader where every user can read it (not in a "
                "private home folder), or run it as the user who owns that folder"
            )
        protections = self.proof.as_dict()
        if shortfalls(protections) and not self.config.allow_weak:
            self.kill()
            raise SandboxError(f"refusing to grade here: {describe_weakness(protections)}")

    def _root(self) -> str:
        """An empty folder on which the worker's namespace mounts its own root."""
        if self.root is None:
            self.root = os.path.join(self.folder, "root")
            os.mkdir(self.root, 0o700)
        return self.root

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
        for fd in (self.channel.wfd, self.channel.rfd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.channel.wfd = self.channel.rfd = -1
        self.process = None
        if not self.lifeline.closed.is_set():  # (closing removes its whole folder next)
            # What it wrote goes with it, before the next submission is staged in that room.
            remove_tree(self.scratch)

    def close(self) -> None:
        self.lifeline.closed.set()
        self.kill()
        with contextlib.suppress(OSError):
            self._output.close()
        remove_tree(self.folder)
        try:
            os.rmdir(self.write_probe)  # empty, as the proof found it
        except OSError:
            remove_tree(self.write_probe)

    def fail(self, why: str) -> None:
        """The worker broke off a request: record why, with what ended it, and stop it."""
        process = self.process
        code = None
        if process is not None:
            try:
                code = process.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                code = None
        if code is not None and why == "closed its pipe":
            why = procfs.describe_exit(code, self.config.limits)
            if self.footprint.killed_by_oom(code):
                why = (
                    "ran out of memory: the kernel's out-of-memory killer ended it (the machine "
                    f"or container ran short of memory; each process may use "
                    f"{self.config.limits.memory_mb} MB)"
                )
        self.lifeline.end(why)  # (unless the idle watcher stopped it already, and said why)
        self.kill()

    @property
    def protections(self) -> dict[str, Any]:
        """What the worker proved, checked, as results and reports print it."""
        return self.proof.as_dict()

    @property
    def pid(self) -> int:
        """The worker's own process, as the grader sees it (-1 until it is started)."""
        return self.channel.pid

    @property
    def dead(self) -> str | None:
        """Why the worker stopped (None while it runs)."""
        return self.lifeline.why

    @property
    def alive(self) -> bool:
        return self.dead is None and self.process is not None

    def cpu_seconds(self) -> float | None:
        """CPU time the worker has used in all (None where /proc cannot tell)."""
        return self.channel.cpu_seconds()

    @property
    def last_cpu(self) -> float:
        """CPU seconds the last request used (a test may reset it)."""
        return self.channel.last_cpu

    @last_cpu.setter
    def last_cpu(self, used: float) -> None:
        self.channel.last_cpu = used

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
        return self.channel.call(op, cpu_limit, what, limit_name, fields)

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


def probe_protections(config: SandboxConfig) -> tuple[dict[str, Any], WorkerProcess]:
    """Start one worker as ``config`` would (its student files are not imported yet) and
    return what it proved, with the worker, which the caller closes or puts to use."""
    worker = start_worker(dataclasses.replace(config, allow_weak=True))
    return worker.protections, worker


#: How long a worker's start waits for room where a pids limit is full (another worker, over
#: its thread cap or done, is stopped within a second or so).
BUSY_WAIT = 30.0


def start_worker(config: SandboxConfig, mode: str | None = None) -> WorkerProcess:
    """A started worker; where the machine can make no process just now, tried again for up
    to :data:`BUSY_WAIT` seconds, so one submission's threads cost another nothing."""
    return retried(
        lambda: WorkerProcess(config, mode), lambda e: isinstance(e, MachineBusy), BUSY_WAIT
    )


def _life_cpu_seconds(limits: Limits) -> int:
    """RLIMIT_CPU for a worker's whole life: a backstop far above any request's limit."""
    if limits.submission_seconds is not None:
        return int(limits.submission_seconds) + 60
    return 6 * 3600
