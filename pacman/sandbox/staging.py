"""A submission's files, read safely and staged for its workers.

Reading refuses anything that is not a plain file inside the submission's own folder
(symlinks, hard links, devices, folders that lead elsewhere): a student must not be able
to hand in another student's file. Staging writes them where the submission's uid alone
may read them, and makes each worker's scratch folder inside a folder of the grader's.
"""

from __future__ import annotations

import errno
import glob
import os
import shutil
import stat
import tempfile

from pacman.errors import PacmanError
from pacman.sandbox.cleanup import tree_usage
from pacman.sandbox.config import SandboxError
from pacman.sandbox.identity import missing_root_capabilities
from pacman.sandbox.policy import MAX_SCRATCH_ENTRIES

#: A student file larger than this is refused (CS188 files are a few tens of KB).
MAX_STUDENT_FILE = 4 * 1024 * 1024
#: Seconds staging waits for room on a full disk: a worker that filled it is stopped within
#: a second or so and its scratch folder removed (see :func:`short_of_room`).
ROOM_WAIT = 60.0
#: A worker whose scratch folder holds more than this on a disk left with less is stopped.
DISK_RESERVE = 1 << 20
#: How the folders :func:`make_worker_folder` makes are named.
WORKER_PREFIX = "pacman-worker-"


class SubmissionError(PacmanError):
    """A submission's files cannot be graded (missing, a symlink, not a plain file...)."""


def _read_plain_file(folder: str, name: str, limit: int) -> bytes:
    """The bytes of ``folder/name``, refusing links, special files and paths leaving ``folder``."""
    if os.path.isabs(name) or ".." in name.replace("\\", "/").split("/"):
        raise SubmissionError(f"{name}: a student file must be a plain name inside the folder")
    path = os.path.join(folder, name)
    parent = folder
    # Every folder on the way must be a real folder, not a link somewhere else.
    for part in name.split("/")[:-1]:
        parent = os.path.join(parent, part)
        if os.path.islink(parent) or not os.path.isdir(parent):
            raise SubmissionError(f"{path}: {parent} is not a plain folder")
    return read_plain_file(path, limit)


def read_plain_file(path: str, limit: int, *, one_name: bool = True) -> bytes:
    """The bytes of the plain file ``path``: opened without following a last link or blocking
    on a FIFO, then checked on what was opened (a regular file of at most ``limit`` bytes,
    with no other name when ``one_name``: a student's hard link could name another's file);
    anything else a :class:`SubmissionError` naming ``path``."""
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except FileNotFoundError:
        raise SubmissionError(f"{path}: no such file") from None
    except OSError as error:
        if os.path.islink(path):
            raise SubmissionError(f"{path}: is a symbolic link; hand in the file itself") from None
        raise SubmissionError(f"{path}: cannot be read ({error.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SubmissionError(f"{path}: not a plain file")
        if one_name and info.st_nlink > 1:
            raise SubmissionError(f"{path}: is a hard link to another file; hand in a copy")
        if info.st_size > limit:
            raise SubmissionError(f"{path}: {info.st_size} bytes, more than the {limit} allowed")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise SubmissionError(f"{path}: more than the {limit} bytes allowed")
    return data


def read_submission(folder: str, names: list[str]) -> dict[str, bytes]:
    """The student's files, read safely from ``folder`` (which must not be a link itself)."""
    if os.path.islink(folder):
        raise SubmissionError(f"{folder}: the submission folder is a symbolic link")
    if not os.path.isdir(folder):
        raise SubmissionError(f"{folder}: no such folder")
    files: dict[str, bytes] = {}
    for name in names:
        files[os.path.basename(name)] = _read_plain_file(folder, name, MAX_STUDENT_FILE)
    return files


def write_tree(root: str, files: dict[str, bytes], mode: int = 0o600) -> list[str]:
    """Write ``files`` under ``root`` (created beforehand); return the paths, in order."""
    paths = []
    for relative, data in files.items():
        if os.path.isabs(relative) or ".." in relative.split(os.sep):
            raise SubmissionError(f"{relative}: not a path inside the folder")
        path = os.path.join(root, relative)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        paths.append(path)
    return paths


def stage_files(private: str, files: dict[str, bytes], uid: int | None) -> tuple[str, list[str]]:
    """The student's files in ``private``/code, readable by the submission's uid alone.

    ``private`` itself may be entered but not listed by others (0711), so where no Landlock
    holds the reads, the submission reaches its own copy and no other submission's.
    """
    root = _hands_out(uid)
    os.chmod(private, 0o711)
    stage = os.path.join(private, "code")
    os.mkdir(stage, 0o700)
    staged = write_tree(stage, files, 0o400)
    if root and uid is not None:
        for path in [stage, *staged]:
            os.chown(path, uid, uid)
        os.chmod(stage, 0o500)
    else:
        os.chmod(stage, 0o755)
        for path in staged:
            os.chmod(path, 0o444)
    return stage, staged


def check_root_capabilities() -> None:
    """Refuse, in one line, a root grader without the capabilities it needs to give each
    submission a uid of its own (``docker run --cap-drop ALL``): it would fail half way."""
    missing = missing_root_capabilities()
    if missing:
        adds = " ".join(f"--cap-add {name.removeprefix('CAP_')}" for name in missing)
        raise SandboxError(
            f"refusing to grade: root here lacks {', '.join(missing)}, which it needs to run "
            f"each submission as a user of its own (a container started with --cap-drop ALL?); "
            f"give them back (docker run {adds}) or run the grader as an ordinary user"
        )


def make_worker_folder(uid: int | None) -> tuple[str, str]:
    """``(folder, scratch)``: a new folder of the grader's in TMPDIR and, inside, the worker's
    scratch folder (its own, where it has a uid of its own).

    The worker may enter the folder (its group is the worker's, mode 0710) but neither list
    nor change it, and no one else may enter it: the scratch folder cannot be renamed away
    into a folder others share (TMPDIR, where a scratch folder of the worker's own once lay
    open to that); nor can what it holds, which namespaces keep on a file system of its own
    and, elsewhere, Landlock (or without it, seccomp refusing every new file) out of any other
    folder.
    """
    root = _hands_out(uid)
    folder = tempfile.mkdtemp(prefix=WORKER_PREFIX)
    scratch = os.path.join(folder, "scratch")
    try:
        os.mkdir(scratch, 0o700)
        if root and uid is not None:
            os.chown(scratch, uid, uid)
            os.chown(folder, -1, uid)
            os.chmod(folder, 0o710)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder, scratch


def _hands_out(uid: int | None) -> bool:
    """Whether the grader gives files to ``uid`` (it is root), having checked it can."""
    if uid is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    check_root_capabilities()
    return True


def short_of_room(error: Exception) -> bool:
    """Whether ``error`` is the disk (or a quota) out of space while a worker beside holds
    more than :data:`DISK_RESERVE` of it, and so is about to be stopped and its files removed:
    staging waits and tries again (:data:`ROOM_WAIT`), so a submission's grade never depends
    on a classmate's disk use. A disk too small for anyone fails at once."""
    if not isinstance(error, OSError) or error.errno not in (errno.ENOSPC, errno.EDQUOT):
        return False
    pattern = os.path.join(glob.escape(tempfile.gettempdir()), WORKER_PREFIX + "*", "scratch")
    held = (tree_usage(path, max_entries=MAX_SCRATCH_ENTRIES)[0] for path in glob.glob(pattern))
    return any(size > DISK_RESERVE for size in held)
