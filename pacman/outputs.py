"""Output files of runs: checked before any work, written so that they are whole at every instant.

One behaviour for every output flag (``--json``, ``--record``, ``--gif``,
``--frames``, ``--results``, ``--summary``): missing folders on the way are
created before the first game, and a path that cannot be written (a folder
where a file should be, no permission, a read-only disk) is a
:class:`~pacman.errors.UsageError` naming the flag, before any game is played.
Files follow the umask, like any file the user creates.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pacman.errors import PacmanError, UsageError


def _folder_ready(flag: str, path: str, folder: Path) -> None:
    """Create ``folder`` (and its parents) and prove a file can be made in it."""
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise UsageError(f"{flag} {path}: {existing} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        reason = error.strerror or str(error)
        raise UsageError(f"{flag} {path}: cannot write in {folder} ({reason})") from None


def prepare_output_file(flag: str, path: str | os.PathLike[str]) -> None:
    """Check, before any work, that ``path`` can be written as a file; create its folders."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{flag} {path}: is a folder; give a file name")
    _folder_ready(flag, str(path), target.parent if str(target.parent) else Path("."))


def prepare_output_folder(flag: str, path: str | os.PathLike[str]) -> None:
    """Check, before any work, that ``path`` is or can be made a writable folder."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise UsageError(f"{flag} {path}: is a file; give a folder name")
    _folder_ready(flag, str(path), target.parent if str(target.parent) else Path("."))


def _create(path: Path, exclusive: bool) -> int:
    """A file descriptor for writing, created with the umask's permissions (0666 minus umask)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    return os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o666)


def _write_all(fd: int, data: bytes, offset: int | None = None) -> None:
    # One call nearly always writes it all; a signal cannot cut a write to a regular file short.
    while data:
        written = os.write(fd, data) if offset is None else os.pwrite(fd, data, offset)
        data = data[written:]
        if offset is not None:
            offset += written


def _fill(fd: int, text: str) -> None:
    """Write ``text`` into the new file ``fd`` and close it, whatever happens."""
    try:
        _write_all(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def write_atomically(path: str | os.PathLike[str], text: str) -> None:
    """Write a whole file or nothing: a temporary file beside it, renamed into place."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    temporary = folder / f".{target.name}.{os.urandom(4).hex()}.tmp"
    try:
        fd = _create(temporary, exclusive=True)
    except OSError as error:
        raise PacmanError(f"{path}: cannot write ({error.strerror})") from None
    try:
        _fill(fd, text)
        os.replace(temporary, target)
    except BaseException as error:
        temporary.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise PacmanError(f"{path}: cannot write ({error.strerror})") from None
        raise


def write_folder_atomically(path: str | os.PathLike[str], files: Mapping[str, str]) -> None:
    """Write a whole folder or nothing: ``files`` (relative path -> text) in a temporary
    folder beside ``path``, renamed into place. ``path`` must be new or an empty folder."""
    target = Path(path)
    scratch = target.parent / f".{target.name}.{os.urandom(4).hex()}.tmp"
    try:
        scratch.mkdir()  # with the umask's permissions, as the files
        for relative, text in files.items():
            (scratch / relative).parent.mkdir(parents=True, exist_ok=True)
            _fill(_create(scratch / relative, exclusive=True), text)
        os.replace(scratch, target)
    except BaseException as error:
        shutil.rmtree(scratch, ignore_errors=True)
        if isinstance(error, OSError):
            raise PacmanError(f"{path}: cannot write ({error.strerror})") from None
        raise


class StreamedLines:
    """A text file that gets one whole line per finished task, flushed at once.

    ``add(key, line)`` appends; ``finish()`` rewrites the file with its lines in
    key order (game index, submission name), atomically. Interrupted at any
    point, the file holds whole lines only.
    """

    def __init__(self, path: str | os.PathLike[str], header: str = "") -> None:
        self.path = Path(path)
        self.header = header
        self.lines: list[tuple[Any, str]] = []
        write_atomically(self.path, header)
        self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))

    def add(self, key: Any, line: str) -> None:
        self.lines.append((key, line))
        _write_all(self.fd, line.encode("utf-8"))

    def finish(self) -> None:
        self.close()
        self.lines.sort(key=lambda pair: pair[0])
        write_atomically(self.path, self.header + "".join(line for _, line in self.lines))

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class StreamedJsonList:
    """A JSON document ``{...head, name: [items]}`` that is valid after every ``add``.

    Each item is written over the document's closing ``]}``, with a new closing
    after it, in one write; ``finish()`` rewrites it in key order, indented.
    """

    CLOSING = b"\n]}\n"

    def __init__(self, path: str | os.PathLike[str], head: dict[str, Any], name: str) -> None:
        self.path = Path(path)
        self.head = head
        self.name = name
        self.items: list[tuple[Any, Any]] = []
        opening = json.dumps(head)[:-1] + (", " if head else "") + json.dumps(name) + ": ["
        write_atomically(self.path, opening + self.CLOSING.decode())
        self.end = len(opening.encode("utf-8"))
        self.fd = os.open(self.path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))

    def add(self, key: Any, item: Any) -> None:
        separator = ",\n" if self.items else "\n"
        data = (separator + json.dumps(item)).encode("utf-8")
        self.items.append((key, item))
        _write_all(self.fd, data + self.CLOSING, self.end)
        self.end += len(data)

    def finish(self) -> None:
        self.close()
        self.items.sort(key=lambda pair: pair[0])
        document = {**self.head, self.name: [item for _, item in self.items]}
        write_atomically(self.path, json.dumps(document, indent=2) + "\n")

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
