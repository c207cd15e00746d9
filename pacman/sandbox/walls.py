"""Kernel walls a student worker puts up around itself before any student code runs.

The worker is trusted until it imports the submission; just before, it calls
:func:`lock_down`, which uses only what an unprivileged Linux process may use
(plus a uid switch when it is root):

- **Landlock** (Linux 5.13+): the file system becomes an allow-list. Reading is
  allowed in the interpreter's folders, the project's public game code, the
  layouts and the student's own staged copy, minus everything the grader hides
  (solutions, the reference agents, the grader's own code, other submissions);
  writing only in the worker's scratch folder and ``/dev/null``. On newer
  kernels TCP is cut off (ABI 4) and signals and abstract sockets may not reach
  outside the sandbox (ABI 6).
- **seccomp**: an allow list (:data:`pacman.sandbox.seccomp.ALLOWED`): reading and
  writing what is open, finding and reading files, memory, threads (no new processes),
  signals, time, and little else. Everything outside it is refused (EPERM; a call newer
  than the list ENOSYS): ``exec``, sockets, ptrace and cross-process memory access,
  mounts and namespaces, keyrings, BPF, io_uring, handle-based opens, every IPC family
  (System V and POSIX message queues, shared memory, semaphores: they would outlive the
  worker), renames and links (without Landlock, what the worker owns could be moved out
  into a folder anyone may write in), changes of a file's mode, owner or extended attributes, truncating a file by its
  path; ``memfd_create`` fails as out of memory (what it holds escapes the memory limit);
  ``ioctl`` and ``prctl`` only for a terminal's settings and a thread's name (never the
  parent-death signal cleared). Where nothing else keeps writes in the scratch folder
  (process isolation on a kernel without Landlock), making any file or folder is refused
  too, opening with ``O_CREAT`` included: world-writable folders (``/tmp``, ``/dev/shm``)
  would otherwise take files that outlive the worker and fill the disk or memory others
  share.
- **a separate uid and no capabilities** when the worker starts as root: the
  student's code cannot signal the grader or other submissions, nor write files
  root owns, nor become root again. Every capability set is emptied (the
  bounding set too, where the grader holds CAP_SETPCAP). In process mode, where
  the interpreter lies under a home other users cannot enter (``/root``), the
  worker keeps only ``CAP_DAC_READ_SEARCH`` (when the grader holds it) so the
  interpreter stays readable; the proof accepts that only where Landlock, not
  file modes, decides what may be read.
- **a parent-death signal**: the worker dies with its grader.

What stands is then checked from the inside by :func:`pacman.sandbox.proof.prove`, whose
report is the
``protections`` the grader records in every result. Nothing here depends on
Python's audit hook.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass

from pacman.sandbox import landlock, seccomp
from pacman.sandbox.identity import capability_sets, drop_capabilities, process_status, switch_user
from pacman.sandbox.policy import DEVICES
from pacman.sandbox.syscalls import die_with_parent, prctl

_PR_SET_NO_NEW_PRIVS = 38


@dataclass
class Walls:
    """What :func:`lock_down` put up, in the worker's own words (the proof checks it)."""

    landlock: int = 0  # ABI version applied (0: none)
    landlock_net: bool = False
    landlock_scopes: bool = False
    seccomp: bool = False
    new_files_blocked: bool = False  # seccomp refuses making files (no Landlock to confine writes)
    parent_death_signal: bool = False
    no_new_privs: bool = False


def lock_down(
    *,
    rules: dict[str, list[str]] | None,
    uid: int | None,
    read_search: bool = False,
    landlock_abi_cap: int | None = None,
    writes_need_seccomp: bool = False,
) -> Walls:
    """Put up every wall this kernel allows; return which ones stand.

    ``rules`` hold Landlock's paths to read (``reads`` minus ``hidden``, ``keep`` re-opened)
    and to write (``writes``); None leaves Landlock out, and ``landlock_abi_cap`` uses at
    most that ABI version (the grader's tests play older kernels with it). ``read_search``
    keeps the right to read past file modes after leaving root, for an interpreter other
    users cannot read. ``writes_need_seccomp``: no namespace confines the worker's writes
    (process isolation), so without Landlock seccomp refuses every new file.

    Order matters: the uid switch needs root's capabilities (so it comes before seccomp),
    the parent-death signal is cleared by a uid switch (so it comes after), and seccomp
    must come last so that the worker could still call what it forbids. Failures are
    not reported here: :func:`pacman.sandbox.proof.prove` finds what did not hold.
    """
    done = Walls()
    linux = sys.platform.startswith("linux")
    # Read while /proc is still open to this process (Landlock closes it).
    held = capability_sets(process_status()).get("CapPrm", 0)
    if linux:
        with contextlib.suppress(OSError):
            prctl(_PR_SET_NO_NEW_PRIVS, 1)
            done.no_new_privs = True
    abi = landlock.landlock_abi() if done.no_new_privs and rules is not None else 0
    if landlock_abi_cap is not None:
        abi = min(abi, landlock_abi_cap)
    if abi and rules is not None:
        reads = landlock.allowed_reads(rules["reads"], rules["hidden"], rules["keep"])
        with contextlib.suppress(OSError):
            done.__dict__.update(landlock.restrict_self(abi, reads, rules["writes"], DEVICES))
            done.landlock = abi
    arch = seccomp.architecture()
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if uid is not None and root:
        # Reads past file modes only where the interpreter needs it (a private home, in
        # process mode), and only with seccomp forbidding open_by_handle_at, which that
        # capability would otherwise open up. The proof accepts it only under Landlock.
        keep = read_search and arch is not None
        with contextlib.suppress(OSError):
            switch_user(uid, keep_read_search=keep, held=held)
    if linux and root and os.geteuid() == 0:
        # Still root (no uid given, or the switch failed): at least no capabilities.
        drop_capabilities(keep_read_search=False)
    done.parent_death_signal = die_with_parent()
    if arch is not None and done.no_new_privs:
        no_new_files = writes_need_seccomp and not done.landlock
        with contextlib.suppress(OSError):
            seccomp.install(arch, no_new_files)
            done.seccomp = True
            done.new_files_blocked = no_new_files
    return done
