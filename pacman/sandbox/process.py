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
import os
import signal
import subprocess
import tempfile
import threading
from typing import Any

from pacman import untrusted
from pacman.sandbox import procfs
from pacman.sandbox.channel import CallChannel
from pacman.sandbox.cleanup import remove_tree
from pacman.sandbox.config import (
    MachineBusy,
    SandboxConfig,
    SandboxError,
    retried,
)
from pacman.sandbox.footprint import Footprint
from pacman.sandbox.isolation import (
    resolve_isolation,
    student_uid,
)
from pacman.sandbox.launch import greeting, refusal, spawn, worker_command, worker_setup
from pacman.sandbox.lifeline import Lifeline
from pacman.sandbox.mounts import (
    lock_copies,
    locks_needed,
    make_worker_policy,
)
from pacman.sandbox.policy import thread_cap
from pacman.sandbox.staging import make_worker_folder
from pacman.sandbox.worker_proof import WorkerProof, checked_proof


class WorkerProcess:
    """One student worker process and its pipes."""

    def __init__(self, config: SandboxConfig, isolation: str | None = None) -> None:
        self.config = config
        self.isolation = isolation or resolve_isolation(config.isolation)
        self.process: subprocess.Popen[bytes] | None = None
        #: Busy, closed and why it stopped: what the idle watcher's thread shares.
        self.lifeline = Lifeline()
        # The idle watcher and a request's thread may both kill: the pipes are closed once.
        self._kill_lock = threading.Lock()
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
        cwd = self.config.code_dir or tempfile.gettempdir()
        self.process, wfd, rfd = spawn(self._command, self._output, cwd, self.scratch)
        self.channel.wfd, self.channel.rfd = wfd, rfd
        setup = worker_setup(
            self.config, self.policy, self.isolation, self.uid, self.locked, self.write_probe
        )
        ready = greeting(wfd, rfd, setup, self._output, self.isolation, self.kill)
        self.channel.pid = procfs.leaf_process(self.process.pid)
        said = ready.get("protections") or {}
        self.proof = checked_proof(said, self.pid, self.isolation, self.write_probe, self.unlocked)
        refused = refusal(self.proof, self.config.allow_weak)
        if refused is not None:
            self.kill()
            raise SandboxError(refused)
        self.channel.watch_idle()

    def _command(self, inner: list[str]) -> list[str]:
        """The command starting the worker's Python in its isolation."""
        return worker_command(
            self.config, self.policy, self.isolation, inner, self.scratch, self._root, self.uid
        )

    def _root(self) -> str:
        """An empty folder on which the worker's namespace mounts its own root."""
        if self.root is None:
            self.root = os.path.join(self.folder, "root")
            os.mkdir(self.root, 0o700)
        return self.root

    # -- life and death ------------------------------------------------------------------------

    def kill(self) -> None:
        with self._kill_lock:
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
