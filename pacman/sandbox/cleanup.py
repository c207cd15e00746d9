"""Removing what runs of untrusted code leave: folders it may have shaped (deep, locked or
huge trees), and the one temporary folder a run keeps every file of its workers in."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator


def remove_tree(path: str) -> bool:
    """Remove ``path`` and everything below it; True when it is gone.

    Student code may leave a tree thousands of folders deep (deeper than a path may be
    long, and than Python's recursion limit lets ``shutil.rmtree`` go) or folders it
    locked with ``chmod 000``. GNU ``rm`` and ``chmod`` walk any depth without following
    symbolic links, so they do the work; Python never recurses here.
    """
    if not os.path.lexists(path):
        return True
    rm, chmod = shutil.which("rm"), shutil.which("chmod")
    if rm and chmod:
        for command in ([rm, "-rf", "--one-file-system", "--", path],
                        [chmod, "-R", "u+rwx", "--", path],
                        [rm, "-rf", "--one-file-system", "--", path]):  # fmt: skip
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(command, capture_output=True, timeout=120, check=False)
            if not os.path.lexists(path):
                return True
        return False
    with contextlib.suppress(RecursionError):
        shutil.rmtree(path, ignore_errors=True)
    return not os.path.lexists(path)


def tree_usage(path: str, *, max_entries: int) -> tuple[int, int]:
    """(bytes on disk, entries) below ``path``, folders included; stops counting entries
    a little past ``max_entries``. Walks any depth without recursion."""
    find = shutil.which("find")
    if find:
        try:
            done = subprocess.run(
                [find, path, "-xdev", "-mindepth", "1", "-printf", "%b\\n"],
                capture_output=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            done = None
        if done is not None:
            blocks = done.stdout.split()
            return sum(int(b) for b in blocks if b.isdigit()) * 512, len(blocks)
    total, entries, stack = 0, 0, [path]
    while stack and entries <= max_entries:
        current = stack.pop()
        with contextlib.suppress(OSError), os.scandir(current) as found:
            for entry in found:
                entries += 1
                with contextlib.suppress(OSError):
                    total += entry.stat(follow_symlinks=False).st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
    return total, entries


def free_bytes(path: str) -> int:
    """Bytes an ordinary user may still write on the file system holding ``path`` (a great
    many where it cannot be told)."""
    try:
        found = os.statvfs(path)
    except OSError:
        return 1 << 62
    return found.f_bavail * found.f_frsize


@contextlib.contextmanager
def temporary_root(prefix: str) -> Iterator[str]:
    """One folder for every temporary file of this run and of the workers it starts here.

    Local workers killed by an interruption cannot remove their own temporary folders;
    this one goes when the run ends, whatever ended it. Others may enter it (student
    code running as another user reaches its own staged copy inside) but not list it.
    """
    root = tempfile.mkdtemp(prefix=prefix)
    os.chmod(root, 0o711)
    before = (os.environ.get("TMPDIR"), tempfile.tempdir)
    # Forked workers inherit tempfile's cached folder; spawned ones (Dask's) read TMPDIR.
    os.environ["TMPDIR"] = root
    tempfile.tempdir = root
    try:
        yield root
    finally:
        environ, tempfile.tempdir = before
        if environ is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = environ
        # A worker killed a moment ago may still be letting go of its files.
        for _ in range(3):
            if remove_tree(root):
                break
            time.sleep(0.1)


def at_every_end(finish: Callable[[], None], forget_in_child: Callable[[], None]) -> None:
    """Run ``finish`` however this process ends: at exit, and in a ``--jobs`` pool process
    (which ends without atexit; multiprocessing runs its finalizers); a forked child calls
    ``forget_in_child`` first, so it never finishes what belongs to its parent."""
    atexit.register(finish)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=forget_in_child)
    with contextlib.suppress(ImportError):
        from multiprocessing import util

        util.Finalize(None, finish, exitpriority=10)
