"""Many independent tasks on a local process pool or a Dask cluster, streamed back as they finish.

Game batches (:mod:`pacman.runner`) and grading batches (:mod:`pacman.grading.batch`)
both run through :class:`TaskRun`:

- ``TaskRun(function, tasks, jobs=N)``: N local worker processes (the default);
- ``TaskRun(..., scheduler="tcp://host:8786")``: the workers of a Dask cluster;
  ``scheduler="local"`` starts a Dask LocalCluster of N worker processes here;
- ``TaskRun(..., executor=pool)``: any ``concurrent.futures.Executor`` the caller owns.

Each result comes back with its task's index as soon as it is ready, so callers
can show progress and write it at once. Only a few tasks per worker are handed
out ahead, so stopping costs little. A task must be picklable (on a cluster, it
must carry its own files) and bound its own running time.

Stopping: inside :func:`interruption_handled`, the first SIGINT or SIGTERM raises
:class:`Interrupted` in the main thread; leaving the ``TaskRun`` then kills the
local workers (or closes the LocalCluster) without waiting for the running
tasks. A second signal kills the workers and ends the process at once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Executor, Future, wait
from contextlib import contextmanager, suppress
from types import TracebackType
from typing import Any, Generic, TypeVar

from pacman.errors import PacmanError, UsageError
from pacman.extras import install_hint
from pacman.sandbox.syscalls import die_with_parent

Task = TypeVar("Task")
Result = TypeVar("Result")

#: Tasks handed out ahead per worker: enough to keep it busy between results, few to cancel.
TASKS_AHEAD_PER_WORKER = 4
#: Tasks handed out ahead to an executor whose size is unknown.
TASKS_AHEAD_UNKNOWN = 64
#: How many times a lost local worker's tasks are run again before the run gives up.
LOCAL_RESTARTS = 3
#: The most workers a run may ask for: each is a whole Python process (a pool starts them all
#: at once). The same on every machine, so that a grading bundle's ``-j`` made on one machine
#: is taken on another.
MAX_JOBS = 256


def check_jobs(jobs: int, flag: str = "--jobs") -> int:
    """``jobs`` if it is from 1 to :data:`MAX_JOBS`; else a UsageError naming ``flag``."""
    if jobs < 1:
        raise UsageError(f"{flag} {jobs}: must be at least 1")
    if jobs > MAX_JOBS:
        raise UsageError(f"{flag} {jobs}: must be at most {MAX_JOBS} (a process each)")
    return jobs


# Called on a second signal, before the process ends: each kills one backend's workers.
_kill_on_second_signal: list[Callable[[], None]] = []


class Interrupted(KeyboardInterrupt):
    """The user asked the run to stop (SIGINT or SIGTERM).

    A KeyboardInterrupt, so no ``except Exception`` eats it and a caller that
    only knows Ctrl-C still stops cleanly.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """The shell's convention: 128 + the signal number (130 for Ctrl-C, 143 for SIGTERM)."""
        return 128 + self.signum


@contextmanager
def interruption_handled() -> Iterator[None]:
    """Turn the first SIGINT/SIGTERM into :class:`Interrupted`; a second one ends the process at once."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen: list[int] = []

    def on_signal(signum: int, frame: object) -> None:
        if seen:
            for kill in list(_kill_on_second_signal):
                kill()
            os._exit(128 + signum)
        seen.append(signum)
        if _held:
            _held.append(signum)  # raised when the result being kept is kept
            return
        raise Interrupted(signum)

    previous = {number: signal.signal(number, on_signal) for number in _STOP_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            # Once stopped, the process is on its way out: a late second signal must not
            # kill it half way (Python resets its own handlers to the default as it exits).
            signal.signal(number, signal.SIG_IGN if seen else handler)


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


#: Non-empty while a finished result is being kept: [marker, then any signal held back].
_held: list[int] = []


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold the first Ctrl-C or SIGTERM back while one finished result is being kept.

    A result counted but not yet written would make the "interrupted: N of M" line
    disagree with the files; a held signal raises :class:`Interrupted` as the block ends.
    (A second signal still ends the process at once.)
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _held.append(0)
    try:
        yield
    finally:
        pending = _held[1:]
        _held.clear()
        if pending:
            raise Interrupted(pending[0])


def _quiet_worker() -> None:
    """Local worker set-up: the terminal's Ctrl-C reaches the whole process group, but only
    the main process decides what stops; a worker just dies when it is killed."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # A main process killed outright (SIGKILL) takes its workers, and theirs, with it.
    die_with_parent()


class _LocalPool:
    """Worker processes on this machine."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.restarts = 0
        self.pool = self._new_pool()

    def _new_pool(self) -> Executor:
        # Imported here: multiprocessing costs a serial run's start-up 25 ms it never uses.
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(max_workers=self.jobs, initializer=_quiet_worker)

    def slots(self) -> int:
        return self.jobs

    def submit(self, function: Callable[[Any], Any], task: Any) -> Future[Any]:
        return self.pool.submit(function, task)

    def restart(self) -> None:
        """A worker died (killed, out of memory): start a fresh pool for the tasks it had."""
        self.restarts += 1
        if self.restarts > LOCAL_RESTARTS:
            raise PacmanError(
                f"a worker process died {self.restarts} times (killed, or out of memory); stopping"
            )
        self.close(kill=True)
        self.pool = self._new_pool()

    def kill(self) -> None:
        # A pool cannot stop a running task: its processes are killed instead. Python 3.14
        # has kill_workers(); before it, the pool's own table of processes is the only handle.
        processes = getattr(self.pool, "_processes", None) or {}
        for process in list(processes.values()):
            with suppress(OSError, ValueError):  # already gone
                process.kill()

    def close(self, kill: bool) -> None:
        if not kill:
            self.pool.shutdown(wait=True)
            return
        manager = getattr(self.pool, "_executor_manager_thread", None)
        self.kill()
        self.pool.shutdown(wait=False, cancel_futures=True)
        if manager is not None:
            # It ends as soon as it sees the dead workers. Left running, it can close its wake-up
            # pipe while the interpreter's exit hook writes to it (a traceback, CPython < 3.12).
            manager.join(timeout=1.0)


def import_distributed() -> Any:
    """Dask's ``distributed`` module; without the [dask] extra, a UsageError with the install hint.

    Command lines call it before they create any output, so a missing Dask costs nothing.
    """
    try:
        import distributed
    except ImportError:
        raise UsageError(f"--scheduler needs Dask: {install_hint('dask')}") from None
    return distributed


#: The schemes of a Dask scheduler's address (``distributed.comm``'s); ``http`` is the dashboard's.
_SCHEDULER_SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")


def check_scheduler(address: str) -> str:
    """``address`` if it names a Dask scheduler (``local`` or ``[scheme://]host:port``), after
    checking that Dask is installed; else a UsageError that says what to give.
    """
    flag = f"--scheduler {address!r}"
    if address.lower() == "local" and address != "local":
        raise UsageError(f"{flag}: did you mean 'local'?")
    if address != "local":
        scheme, sep, rest = address.rpartition("://")
        if scheme in ("http", "https"):
            raise UsageError(
                f"{flag}: that is a dashboard's address; give the scheduler's, "
                "tcp://HOST:8786 (the dashboard's Info page shows it)"
            )
        if sep and scheme not in _SCHEDULER_SCHEMES:
            raise UsageError(f"{flag}: unknown scheme {scheme!r}; use tcp://HOST:PORT")
        host, colon, port = rest.rpartition(":")
        if not (colon and host and port.isdigit()):
            raise UsageError(
                f"{flag}: not a scheduler address; give tcp://HOST:PORT, or 'local' "
                "for a cluster on this machine"
            )
    import_distributed()
    return address


class _DaskCluster:
    """The workers of a Dask scheduler, or of a LocalCluster started here (``local``)."""

    def __init__(self, address: str, jobs: int) -> None:
        distributed = import_distributed()
        import logging

        # The nanny's and the client's notes about a lost worker ("rescheduling") are the run's
        # business, not the user's. Dask's logging set-up gives some loggers levels of their
        # own, so each is quieted, not just the parent.
        for name in ["distributed", *logging.root.manager.loggerDict]:
            if name == "distributed" or name.startswith("distributed."):
                logging.getLogger(name).setLevel(logging.ERROR)
        # The client warns with a table when its packages differ from the workers' (numpy
        # in the client, none on the workers): games and grading need neither side's extras.
        warnings.filterwarnings("ignore", message="Mismatched versions found")
        self.cluster = None
        try:
            if address == "local":
                # Everything on the loopback: a LocalCluster is for this machine only.
                self.cluster = distributed.LocalCluster(
                    n_workers=jobs,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address="127.0.0.1:0",
                )
                self.client = distributed.Client(self.cluster)
            else:
                self.client = distributed.Client(address, timeout=10)
        except (OSError, TimeoutError) as error:
            self.close(kill=True)
            raise UsageError(f"--scheduler {address}: cannot connect ({error})") from None
        # pure=False: identical tasks (the same game twice) must run twice, not come from a cache.
        self.executor = self.client.get_executor(pure=False)
        self._slots = (0, 0.0)

    def slots(self) -> int:
        # A cluster may grow or shrink while it runs (dask-jobqueue's adapt): ask now and then.
        count, asked = self._slots
        if time.monotonic() - asked > 2.0:
            count = sum(self.client.nthreads().values())
            self._slots = (count, time.monotonic())
        return max(1, count)

    def submit(self, function: Callable[[Any], Any], task: Any) -> Future[Any]:
        return self.executor.submit(function, task)

    def restart(self) -> None:
        raise PacmanError("the Dask cluster lost a task; stopping")

    def kill(self) -> None:
        # Only a LocalCluster's processes are ours to kill; a shared cluster's are not.
        if self.cluster is None:
            return
        for worker in list(getattr(self.cluster, "workers", {}).values()):
            process = getattr(getattr(worker, "process", None), "process", None)
            pid = getattr(process, "pid", None)
            if pid:
                with suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def close(self, kill: bool) -> None:
        # Dask cannot stop a task once a worker runs it: on a shared cluster the running
        # tasks finish there and their results are dropped; a LocalCluster is killed.
        if getattr(self, "client", None) is not None:
            if kill:
                self.kill()
            with suppress(Exception):  # a cluster killed under it: nothing left to close
                self.client.close(timeout=2)
        if self.cluster is not None:
            with suppress(Exception):
                self.cluster.close(timeout=2)


class _GivenExecutor:
    """An executor the caller made and closes."""

    def __init__(self, executor: Executor) -> None:
        self.executor = executor

    def slots(self) -> int:
        workers = getattr(self.executor, "_max_workers", None)
        return (
            workers if isinstance(workers, int) else TASKS_AHEAD_UNKNOWN // TASKS_AHEAD_PER_WORKER
        )

    def submit(self, function: Callable[[Any], Any], task: Any) -> Future[Any]:
        return self.executor.submit(function, task)

    def restart(self) -> None:
        raise PacmanError("the executor's worker died; stopping")

    def kill(self) -> None:
        pass

    def close(self, kill: bool) -> None:
        pass


class TaskRun(Generic[Task, Result]):
    """Run ``function(task)`` for every task; iterate to get ``(index, result)`` as each finishes.

    Use it as a context manager: leaving it normally waits for nothing (every task
    is done); leaving it on an exception (an interruption, a failed task) kills
    the local workers at once. A task's exception is raised when its result comes.
    """

    def __init__(
        self,
        function: Callable[[Task], Result],
        tasks: Sequence[Task],
        *,
        jobs: int = 1,
        scheduler: str | None = None,
        executor: Executor | None = None,
    ) -> None:
        self.function = function
        self.tasks = tasks
        # No more workers than tasks: each one is a process started before any task runs.
        self._options = (max(1, min(jobs, len(tasks))), scheduler, executor)
        self._backend: _LocalPool | _DaskCluster | _GivenExecutor | None = None

    def __enter__(self) -> TaskRun[Task, Result]:
        jobs, scheduler, executor = self._options
        if executor is not None:
            self._backend = _GivenExecutor(executor)
        elif scheduler is not None:
            self._backend = _DaskCluster(scheduler, jobs)
        else:
            self._backend = _LocalPool(jobs)
        _kill_on_second_signal.append(self._backend.kill)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        backend, self._backend = self._backend, None
        if backend is None:
            return
        try:
            backend.close(kill=kind is not None)
        finally:
            _kill_on_second_signal.remove(backend.kill)

    def __iter__(self) -> Iterator[tuple[int, Result]]:
        backend = self._backend
        if backend is None:
            raise RuntimeError("use TaskRun in a with block")
        waiting = list(range(len(self.tasks)))
        waiting.reverse()  # popped from the end: task 0 first
        running: dict[Future[Result], int] = {}
        while waiting or running:
            ahead = backend.slots() * TASKS_AHEAD_PER_WORKER
            lost = False
            while waiting and len(running) < ahead:
                index = waiting.pop()
                try:
                    future = backend.submit(self.function, self.tasks[index])
                except BrokenExecutor:  # (BrokenProcessPool)
                    # A worker died since the last look: the pool takes nothing more.
                    waiting.append(index)
                    lost = True
                    break
                running[future] = index
            # A broken pool fails every task it holds, so this wait never hangs.
            done, _ = wait(running, return_when=FIRST_COMPLETED) if running else (set(), set())
            for future in sorted(done, key=running.__getitem__):
                index = running.pop(future)
                try:
                    result = future.result()
                except BrokenExecutor:
                    # The task never finished: it runs again, so it is in the output once.
                    waiting.append(index)
                    lost = True
                    continue
                yield index, result
            if lost:
                waiting.extend(running.values())  # the pool is gone with every task it held
                running.clear()
                waiting.sort(reverse=True)
                backend.restart()


class InOrder(Generic[Result]):
    """Results that arrive in any order, released in index order."""

    def __init__(self, first: int = 0) -> None:
        self.following = first
        self.waiting: dict[int, Result] = {}

    def add(self, index: int, result: Result) -> list[Result]:
        """Take one result; return those now next in order (maybe none)."""
        self.waiting[index] = result
        ready = []
        while self.following in self.waiting:
            ready.append(self.waiting.pop(self.following))
            self.following += 1
        return ready

    def rest(self) -> list[Result]:
        """The results still waiting for an earlier one (a run stopped half way), in order."""
        ready = [self.waiting[index] for index in sorted(self.waiting)]
        self.waiting.clear()
        return ready


def progress_bar(total: int, unit: str, shown: bool) -> Any:
    """A tqdm bar on stderr that moves once per finished task, or a stand-in that shows nothing."""
    if not shown:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True)


class _NoBar:
    def update(self, count: int = 1) -> None:
        pass

    def close(self) -> None:
        pass
