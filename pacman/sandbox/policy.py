"""What student code may touch, decided once, apart from how it is enforced.

:func:`make_policy` turns the grading options and a few facts about the machine
(where the interpreter and every copy of the project live) into one frozen
:class:`Policy`. It decides; it touches nothing. Each mechanism renders the same
object: the mount namespace covers :attr:`Policy.answers`, Landlock allows
:attr:`Policy.reads` minus :attr:`Policy.answers` and :attr:`Policy.grader_code`,
bwrap does as the namespace does, and the audit hook (a tripwire, not a wall)
refuses the answers by name. :func:`shortfalls` is the one rule saying which
checked protections a grade can be trusted without.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

#: Folders any Python needs (shared libraries, the loader's cache); nothing secret.
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/localtime")
#: A process may read its own account (capabilities, uids): it helps honest debugging and
#: shows a submission what it holds, nothing of anyone else's.
OWN_STATUS = "/proc/self/status"
#: Device files student code may open (reading /dev/urandom, writing /dev/null).
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")

#: In every copy of the project: what a submission could copy a grade from (the reference
#: searches, the suites, the tests and their full-marks fixtures). Hidden from the start.
ANSWER_CODE = (
    os.path.join("pacman", "grading", "diagnose.py"),
    os.path.join("pacman", "grading", "reference.py"),
    os.path.join("pacman", "test_cases"),
    "test_cases",
    "tests",
)
#: The reference agents: answers too, unless the project's own agents are what is graded.
AGENT_CODE = "agents"
#: The grader's own code and the sandbox's: the worker runs them until it locks itself in,
#: so only Landlock (applied from inside) can take them away.
GRADER_CODE = (os.path.join("pacman", "grading"), os.path.join("pacman", "sandbox"))
#: Module names student code may not import (the audit hook's tripwire).
ANSWER_MODULES = ("agents", "pacman.grading.diagnose", "pacman.grading.reference")

#: Threads one student process may run; CS188 agents use one.
MAX_THREADS = 64
#: Processes and threads a pids cgroup must keep free for the grader (its own threads, the
#: next worker's start) however many threads the workers already run.
PIDS_RESERVE = 16
#: The fewest threads a worker may run where a pids cgroup leaves little room.
MIN_THREADS = 4


def thread_cap(pids_room: int | None) -> int:
    """Threads a new worker may run: :data:`MAX_THREADS`, or where a pids cgroup limits the
    machine, half the room it leaves beyond :data:`PIDS_RESERVE`; so however many workers
    run and whatever they start, the grader and the next worker always find room."""
    if pids_room is None:
        return MAX_THREADS
    return max(MIN_THREADS, min(MAX_THREADS, (pids_room - PIDS_RESERVE) // 2))


#: Files and folders the scratch folder may hold (a folder costs an inode, not bytes).
MAX_SCRATCH_ENTRIES = 1024


@dataclass(frozen=True)
class Machine:
    """The facts :func:`make_policy` needs about the machine (see :func:`this_machine`)."""

    project_roots: tuple[str, ...]  # every folder the project's packages could come from
    running_root: str  # the copy this grader runs from
    prefixes: tuple[str, ...]  # sys.prefix, sys.base_prefix, the interpreter's folder
    layouts: str  # the bundled layouts
    #: Compiled copies of the answer modules (``__pycache__/reference.cpython-311.pyc``...):
    #: the answers too, and outside the paths that name the sources.
    answer_bytecode: tuple[str, ...] = ()


@dataclass(frozen=True)
class Policy:
    """What student code may read, write and import, and its limits. Paths are absolute."""

    reads: tuple[str, ...]  # allowed to read, below these folders ...
    answers: tuple[str, ...]  # ... except these, from the worker's first instruction on
    grader_code: tuple[str, ...]  # ... and these, once the worker has locked itself in
    keep: tuple[str, ...]  # re-opened inside the two above (the interpreter, the student's folder)
    writes: tuple[str, ...]  # the only folders it may write (the worker's scratch)
    devices: tuple[str, ...]
    hidden_modules: tuple[str, ...]
    code_dir: str | None  # the student's staged folder, on sys.path and the cwd
    max_threads: int = MAX_THREADS
    max_scratch_entries: int = MAX_SCRATCH_ENTRIES
    #: The answers are every copy the machine holds, so file permissions may hide them
    #: (readable by their owner alone) where neither Landlock nor namespaces can.
    lock_answers: bool = False


def make_policy(
    machine: Machine,
    *,
    student: bool,
    code_dir: str | None,
    deny: Iterable[str],
    scratch: str,
    lock_answers: bool = False,
) -> Policy:
    """The policy for one worker.

    ``student``: submitted files are graded (else the project's own agents are, and
    must stay importable); ``deny``: folders only this run knows of (the suite it
    grades with, the other submissions); ``scratch``: the worker's private folder;
    ``lock_answers``: the answers (``deny`` and the project's copies) are every copy there
    is, to be made readable by their owner alone.
    """
    roots = machine.project_roots
    answers = [*deny]
    answers += [os.path.join(root, name) for root in roots for name in ANSWER_CODE]
    answers += machine.answer_bytecode
    if student:
        answers += [os.path.join(root, AGENT_CODE) for root in roots]
    package = os.path.join(machine.running_root, "pacman")
    reads = [*SYSTEM_READ, OWN_STATUS, *machine.prefixes, package, machine.layouts]
    keep = [*machine.prefixes]
    if student and code_dir:
        reads.append(code_dir)
        keep.append(code_dir)
    if not student:
        reads.append(os.path.join(machine.running_root, AGENT_CODE))
    return Policy(
        reads=_unique(reads),
        answers=_unique(answers),
        grader_code=_unique(os.path.join(root, code) for root in roots for code in GRADER_CODE),
        keep=_unique(keep),
        writes=(scratch,),
        devices=DEVICES,
        hidden_modules=ANSWER_MODULES if student else (),
        code_dir=code_dir,
        lock_answers=lock_answers,
    )


def _unique(paths: Iterable[str]) -> tuple[str, ...]:
    found: list[str] = []
    for path in paths:
        if path and path not in found:
            found.append(path)
    return tuple(found)


def this_machine() -> Machine:
    """The facts about the machine this grader runs on."""
    import sys

    from pacman.layout import bundled_layout_dir

    running = os.path.realpath(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    roots = [running]
    for entry in sys.path:
        real = os.path.realpath(entry or ".")
        # An editable install leaves the package's data (its suite too) in site-packages,
        # beside no __init__.py: a copy all the same.
        held = [os.path.join(real, "pacman", name) for name in ("__init__.py", "test_cases")]
        if real not in roots and any(os.path.exists(path) for path in held):
            roots.append(real)
    prefixes = (sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable)))
    return Machine(
        project_roots=tuple(roots),
        running_root=running,
        prefixes=_unique(os.path.realpath(p) for p in prefixes),
        layouts=os.path.realpath(str(bundled_layout_dir())),
        answer_bytecode=tuple(_bytecode(roots)),
    )


def _bytecode(roots: Iterable[str]) -> Iterator[str]:
    """The compiled copies of each root's answer modules that exist on disk."""
    import glob

    for root in roots:
        for name in ANSWER_CODE:
            if name.endswith(".py"):
                folder, module = os.path.split(os.path.join(root, name))
                cached = os.path.join(folder, "__pycache__", module[: -len(".py")] + ".*.pyc")
                yield from sorted(glob.glob(cached))


def inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or below it (both absolute, normalised)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


# -- the proof's verdict --------------------------------------------------------------------------

#: Each protection a trusted grade needs, and what student code could do without it.
REQUIRED = {
    "no_capabilities": "hold capabilities (raise them, become root again, change any file)",
    "own_uid": "act as root or as the grader's user (change the grader's and others' files)",
    "no_new_privs": "gain privileges through set-uid programs",
    "seccomp": "start processes, open sockets or read other processes' memory",
    "answers_hidden": "read the test answers",
    "grader_unreachable": "signal the grader",
    "writes_contained": "leave files outside its scratch folder (in /tmp or /dev/shm, filling "
    "the disk or memory other submissions and the grader need)",
}


def shortfalls(protections: Mapping[str, Any]) -> list[str]:
    """The names in :data:`REQUIRED` that ``protections`` (a worker's checked report) lacks."""
    return [name for name in REQUIRED if protections.get(name) is not True]


def describe_shortfalls(missing: list[str]) -> str:
    """``student code could read the test answers and signal the grader``."""
    return "student code could " + " and ".join(REQUIRED[name] for name in missing)


def describe_weakness(protections: dict[str, Any]) -> str:
    """What student code could do in this worker, and why, for one line of a refusal or a
    warning: ``student code could read the test answers (process isolation, ...)``."""
    said = f"{describe_shortfalls(shortfalls(protections))} ({describe_setting(protections)})"
    unlocked = protections.get("answers_unlocked")
    if unlocked:
        said = f"--lock-answers could not lock {'; '.join(unlocked)}, so {said}"
    return said


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
