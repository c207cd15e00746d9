"""The grader's side of the sandbox: start, talk to, time and kill student workers.

A worker is a fresh Python process (``python -I -B``) in its own session, so
killing its process group removes everything it started. It talks over two
private pipes (:mod:`pacman.grading.protocol`); its stdout and stderr go to a
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
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pacman.errors import PacmanError
from pacman.grading import protocol

_BOOT = "import sys; sys.path.insert(0, sys.argv[3]); from pacman.grading.worker import main; main(sys.argv[1:3])"
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ISOLATION_MODES = ("auto", "namespaces", "bwrap", "process")


@dataclass
class Limits:
    """Resource limits for student code."""

    move_seconds: float = 30.0  # one getAction call, or one whole tree test
    test_seconds: float = 600.0  # everything one test asks of the worker
    memory_mb: int = 2048
    cpu_seconds: int = 3600  # for the worker's whole life; the wall clock is the real guard
    output_bytes: int = 20_000  # student output kept per test
    fsize_mb: int = 16


@dataclass
class SandboxConfig:
    """What every worker of one submission gets."""

    student_files: list[str] = field(default_factory=list)  # staged copies; empty: project agents
    code_dir: str | None = None  # the staged folder holding them (on sys.path, cwd)
    deny: list[str] = field(default_factory=list)  # folders the worker must not see
    limits: Limits = field(default_factory=Limits)
    isolation: str = "auto"
    audit: bool = True


#: The project's search code (relative to the project root): hidden from student code, which
#: could otherwise import the reference agents or the grader's reference searches.
REFERENCE_CODE = (
    "agents",
    os.path.join("pacman", "grading", "diagnose.py"),
    os.path.join("pacman", "grading", "reference.py"),
)
#: The same, as module names, for the worker's import check.
REFERENCE_MODULES = ("agents", "pacman.grading.diagnose", "pacman.grading.reference")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(os.path.join(folder, ""))


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


def _under_private_mounts(paths: list[str]) -> list[str]:
    """Those of ``paths`` that the worker's private ``/tmp`` and ``/dev/shm`` would hide."""
    return [p for p in paths if any(_inside(p, top) for top in ("/tmp", "/dev/shm"))]


def hidden_paths(config: SandboxConfig) -> list[str]:
    """The folders to hide from the worker, minus any holding what the worker needs to run.

    ``--code-directory .`` in a course folder may hold the grader itself: that folder stays
    visible (read-only), while the suite inside it is still hidden.
    """
    needed = runtime_paths()
    if config.code_dir:
        needed.append(os.path.realpath(config.code_dir))
    found = []
    deny = list(config.deny)
    if config.student_files:
        # Student code must not borrow the project's own answers.
        deny += [os.path.join(PROJECT_ROOT, name) for name in REFERENCE_CODE]
    for path in deny:
        real = os.path.realpath(path)
        if not any(_inside(need, real) for need in needed) and real not in found:
            found.append(real)
    return found


class SandboxError(PacmanError):
    """A worker could not be started at all: the grader itself cannot run."""


class WorkerDied(Exception):
    """The worker process ended or broke the protocol; the message says how."""


class WorkerTimeout(Exception):
    """The worker did not answer within the time allowed."""


#: The user a root grader runs student code as in ``process`` mode, when it can.
NOBODY = 65534

_probe_lock = threading.Lock()
_probed: dict[str, bool] = {}


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
                        "mount -t tmpfs none /tmp && exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs true",
                    ]
                    ok = subprocess.run(command, capture_output=True, timeout=10).returncode == 0
            elif mode == "bwrap" and shutil.which("bwrap"):
                command = ["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--", "true"]
                ok = subprocess.run(command, capture_output=True, timeout=10).returncode == 0
            elif mode == "nobody" and hasattr(os, "geteuid") and os.geteuid() == 0:
                # Can an unprivileged user run this interpreter and import the worker?
                boot = "import sys; sys.path.insert(0, sys.argv[1]); import pacman.grading.worker"
                command = [sys.executable, "-I", "-B", "-c", boot, PROJECT_ROOT]
                ok = (
                    subprocess.run(
                        command,
                        capture_output=True,
                        timeout=10,
                        user=NOBODY,
                        group=NOBODY,
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


def _unshare_prefix() -> list[str]:
    return [
        "unshare",
        "--mount",
        "--net",
        "--pid",
        "--fork",
        "--kill-child",
        "--mount-proc",
        "--propagation",
        "private",
        "--",
    ]


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _namespace_script(
    config: SandboxConfig, inner: list[str], scratch: str, keep_fds: tuple[int, ...] = ()
) -> str:
    """Shell run as root inside fresh namespaces: hide, freeze, drop capabilities, exec Python.

    ``keep_fds`` are the worker's pipes, which the script must not reuse or close.
    """
    # Two spare single-digit descriptors (all the shell supports) that are not the worker's pipes.
    shm_fd, tmp_fd = [fd for fd in range(3, 10) if fd not in keep_fds][:2]
    lines = ["set -e"]
    own = config.code_dir
    if own:
        lines.append(f"cd {_shell_quote(own)}")
    # Every mount read-only, except the kernel's own file systems.
    lines.append(
        "awk '{print $5}' /proc/self/mountinfo | while read -r m; do case \"$m\" in "
        '/proc|/proc/*|/sys|/sys/*|/dev|/dev/*) ;; *) mount -o remount,bind,ro "$m" 2>/dev/null || true ;; esac; done'
    )
    # Two descriptors keep the real /tmp and /dev/shm reachable under the private ones,
    # so a virtualenv or checkout that lives there can be bound back, read-only.
    lines.append(f"exec {shm_fd}</dev/shm {tmp_fd}</tmp")
    lines.append("mount -t tmpfs -o size=64m,mode=1777 none /tmp")
    lines.append(f"mkdir -p -m 1777 {_shell_quote(scratch)}")
    # /dev/shm is shared with the host and with other submissions' workers.
    lines.append("mount -t tmpfs -o size=16m none /dev/shm 2>/dev/null || true")
    for path in _under_private_mounts(runtime_paths()):
        top, fd = ("/tmp", tmp_fd) if _inside(path, "/tmp") else ("/dev/shm", shm_fd)
        source = f"/proc/self/fd/{fd}{path[len(top) :]}"
        lines.append(f"mkdir -p {_shell_quote(path)}")
        lines.append(f"mount --no-canonicalize --bind {_shell_quote(source)} {_shell_quote(path)}")
        lines.append(f"mount -o remount,bind,ro {_shell_quote(path)}")
    lines.append(f"exec {shm_fd}<&- {tmp_fd}<&-")
    for path in hidden_paths(config):
        if os.path.isfile(path):
            lines.append(f"mount --bind /dev/null {_shell_quote(path)}")
        elif os.path.isdir(path):
            lines.append(
                f"mount -t tmpfs -o size=4k,mode=0755,ro none {_shell_quote(path)} 2>/dev/null || true"
            )
    if own:
        # The student's staged folder may live under a covered path: bind it back from the cwd.
        lines.append(f"mkdir -p {_shell_quote(own)} 2>/dev/null || true")
        lines.append(f"mount --no-canonicalize --bind . {_shell_quote(own)}")
        lines.append(f"mount -o remount,bind,ro {_shell_quote(own)}")
        lines.append(f"cd {_shell_quote(own)}")
    command = " ".join(_shell_quote(part) for part in inner)
    # Also leave root when an unprivileged user can run this Python: root-only files
    # (a 0600 solution the covers missed) then stay unreadable too.
    user = f"--reuid={NOBODY} --regid={NOBODY} --clear-groups " if _probe("nobody") else ""
    lines.append(
        f"exec setpriv {user}--bounding-set=-all --inh-caps=-all --no-new-privs -- {command}"
    )
    return "\n".join(lines)


def _bwrap_command(config: SandboxConfig, inner: list[str], scratch: str) -> list[str]:
    command = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    command += ["--tmpfs", "/tmp", "--dir", scratch, "--tmpfs", "/dev/shm"]
    for path in _under_private_mounts(runtime_paths()):
        command += ["--ro-bind", path, path]
    for path in hidden_paths(config):
        if os.path.isfile(path):
            command += ["--ro-bind", "/dev/null", path]
        elif os.path.isdir(path):
            command += ["--tmpfs", path]
    if config.code_dir:
        command += ["--ro-bind", config.code_dir, config.code_dir, "--chdir", config.code_dir]
    command += ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--"]
    return command + inner


def _describe_exit(code: int | None, limits: Limits) -> str:
    if code is None:
        return "stopped answering"
    if code < 0:
        number = -code
        if number == signal.SIGKILL:
            return f"was killed (SIGKILL: most likely over the {limits.memory_mb} MB memory limit)"
        if number == getattr(signal, "SIGXCPU", -1):
            return f"used up its {limits.cpu_seconds} s of CPU time"
        if number == signal.SIGSEGV:
            return "crashed (segmentation fault; deep recursion or memory exhaustion?)"
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"was killed by {name}"
    if code == 137:
        return f"was killed (most likely over the {limits.memory_mb} MB memory limit)"
    return f"exited with status {code} (os._exit or a fatal error)"


class Worker:
    """One student worker process and its pipes."""

    def __init__(self, config: SandboxConfig, isolation: str | None = None) -> None:
        self.config = config
        self.isolation = isolation or resolve_isolation(config.isolation)
        self.process: subprocess.Popen[bytes] | None = None
        self.dead: str | None = None
        self._next_id = 0
        self._output = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the worker)
        # The only folder the audit hook lets student code write to (and its TMPDIR).
        self.scratch = tempfile.mkdtemp(prefix="pacman-scratch-")
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
                *_unshare_prefix(),
                "/bin/sh",
                "-c",
                _namespace_script(config, inner, self.scratch, (to_child_r, from_child_w)),
            ]
        elif self.isolation == "bwrap":
            command = _bwrap_command(config, inner, self.scratch)
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
        as_nobody: dict[str, Any] = {}
        if self.isolation == "process" and _probe("nobody"):
            # Root grading without namespaces: the student's code runs as an unprivileged
            # user, so it cannot read root-only files (solutions with mode 0600), write the
            # project, or signal the grader.
            as_nobody = {"user": NOBODY, "group": NOBODY, "extra_groups": []}
            os.chown(self.scratch, NOBODY, NOBODY)
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
                **as_nobody,
            )
        except OSError as error:
            raise SandboxError(f"could not start a student worker: {error}") from None
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self._wfd = to_child_w
        self._rfd = from_child_r
        setup = {
            "memory_mb": config.limits.memory_mb,
            "cpu_seconds": config.limits.cpu_seconds,
            "fsize_mb": config.limits.fsize_mb,
            "deny": hidden_paths(config),
            "writable": [self.scratch],
            "student": list(config.student_files),
            "path": [config.code_dir] if config.code_dir else [],
            "chdir": config.code_dir,
            "audit": config.audit,
            "hidden_modules": list(REFERENCE_MODULES) if config.student_files else [],
        }
        deadline = time.monotonic() + 30
        try:
            protocol.write_frame(self._wfd, setup, deadline)
            ready = protocol.read_frame(self._rfd, deadline)
        except protocol.ProtocolError as error:
            # No student code has run yet: this is the grader's (or the machine's) problem.
            self.kill()
            self._output.seek(0)
            said = self._output.read(2000).decode("utf-8", "replace").strip().splitlines()
            detail = f": {said[-1]}" if said else ""
            raise SandboxError(
                f"could not start a student worker ({self.isolation} isolation, {error}){detail}"
            ) from None
        if not (isinstance(ready, dict) and "ready" in ready):
            self.kill()
            raise SandboxError("a student worker sent a malformed greeting")

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
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
        for fd in (self._wfd, self._rfd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wfd = self._rfd = -1
        self.process = None

    def close(self) -> None:
        self.kill()
        with contextlib.suppress(OSError):
            self._output.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

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
        elif code is None and why == "closed its pipe":
            why = "closed its pipe"
        self.dead = why
        self.kill()

    @property
    def alive(self) -> bool:
        return self.dead is None and self.process is not None

    # -- requests ------------------------------------------------------------------------------

    def call(self, op: str, timeout: float, **fields: Any) -> dict[str, Any]:
        """Send one request; return the reply dict, or raise WorkerTimeout / WorkerDied."""
        if not self.alive:
            raise WorkerDied(self.dead or "is not running")
        self._next_id += 1
        request = {"op": op, "id": self._next_id, **fields}
        deadline = time.monotonic() + max(0.0, timeout)
        try:
            protocol.write_frame(self._wfd, request, deadline)
            while True:
                reply = protocol.read_frame(self._rfd, deadline)
                # Replies to other requests (forged or stale) are ignored.
                if isinstance(reply, dict) and reply.get("id") == self._next_id:
                    return reply
        except protocol.Timeout:
            self.dead = f"did not answer within {timeout:g} s"
            self.kill()
            raise WorkerTimeout(self.dead) from None
        except protocol.PipeClosed:
            self._fail("closed its pipe")
            raise WorkerDied(self.dead or "") from None
        except protocol.ProtocolError as error:
            self._fail(f"broke the protocol ({error})")
            raise WorkerDied(self.dead or "") from None

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
        text = data.decode("utf-8", errors="replace")
        if len(data) > limit:
            text = text[:limit] + f"\n[... {size - limit} more bytes cut]"
        return text


class WorkerPool:
    """Reusable workers for one submission: one per thread, replaced when one dies."""

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self._local = threading.local()
        self._all: list[Worker] = []
        self._lock = threading.Lock()

    def get(self) -> Worker:
        worker = getattr(self._local, "worker", None)
        if worker is None or not worker.alive:
            if worker is not None:
                worker.close()
            worker = self._start()
            self._local.worker = worker
            with self._lock:
                self._all.append(worker)
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
