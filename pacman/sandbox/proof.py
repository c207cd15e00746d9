"""The proof: what a worker checks from the inside, before any student code runs, that the
grader will record (its walls) and that honest code can run there (its function).
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from pacman.sandbox import seccomp
from pacman.sandbox.identity import READ_SEARCH_BIT, capability_sets, process_status
from pacman.sandbox.walls import Walls


def _open_fails(path: str, flags: int) -> bool:
    try:
        fd = os.open(path, flags | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return True
    os.close(fd)
    return False


def _signal_fails(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True  # no such process in this view: nothing to signal
    except PermissionError:
        return True
    return False


def _creating_fails(folder: str | None) -> bool:
    """Whether a file and a folder cannot be made in ``folder`` (one anyone may write in,
    outside the worker's scratch folder, as /tmp is): what keeps a worker's files to itself."""
    if folder is None:
        return False
    try:
        fd = os.open(os.path.join(folder, "file"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        pass
    else:
        os.close(fd)
        return False
    try:
        os.mkdir(os.path.join(folder, "folder"))
    except OSError:
        return True
    return False


def _allow_list_holds() -> bool:
    """Whether the seccomp filter in force is the allow list: message queues, renames and a
    call it does not name are refused (see :func:`.seccomp.refuses_beyond_the_list`)."""
    arch = seccomp.architecture()
    return arch is not None and seccomp.refuses_beyond_the_list(arch)


def prove(
    walls: Walls,
    *,
    isolation: str,
    grader_pid: int,
    grader_uid: int,
    canaries: list[str],
    read_search_allowed: bool,
    status_fd: int | None = None,
    answers_locked: bool = False,
    write_probe: str | None = None,
) -> dict[str, Any]:
    """Check from the inside, before any student code runs, what the grader will record.

    Nothing is taken on trust: capabilities, uids, no_new_privs and seccomp are read
    from the kernel (``/proc/self/status``), and seccomp counts only where its filter refuses
    calls outside its allow list (message queues, renames, a call it does not name); the
    answers are hidden only if every canary (a real file among them, picked by the grader)
    fails to open for reading and for writing; the grader is out of reach only if signalling
    it fails. The result is every grade's ``protections`` (:func:`.policy.shortfalls`).
    ``answers_locked``: the grader made every copy of the answers readable by its owner
    alone, so a worker of another uid holding no capability cannot read them either.
    ``write_probe``: a folder anyone may write in, outside the scratch folder: writes are
    contained only if no file or folder can be made there.
    """
    # A process that can become root again is not a separate user, whatever it says.
    became_root = False
    if hasattr(os, "setresuid") and os.geteuid() != 0:
        with contextlib.suppress(OSError):
            os.setresuid(0, 0, 0)
            became_root = True
    status = process_status(fd=status_fd)
    sets = capability_sets(status)
    allowed = READ_SEARCH_BIT if read_search_allowed and walls.landlock else 0
    held = {name: bits for name, bits in sets.items() if name != "CapBnd" and bits & ~allowed}
    uids = [int(u) for u in status.get("Uid", "-1").split()]
    uid = uids[0] if uids else -1
    separate = bool(uids) and all(u not in (0, grader_uid) for u in uids)
    in_pid_namespace = os.getpid() == 1
    # A worker that shares the grader's uid (an unprivileged grader's, or root's in a user
    # namespace that maps no other) is kept apart by the kernel only where Landlock scopes
    # signals (ABI 6) and holds every read and write, or where namespaces leave it nothing
    # of the grader's in view: its own PID namespace and a read-only root of its own.
    contained = in_pid_namespace and isolation in ("namespaces", "bwrap")
    shared_but_scoped = all(u == grader_uid for u in uids) and (
        (grader_uid != 0 and walls.landlock_scopes) or contained
    )
    unreachable = in_pid_namespace or _signal_fails(grader_pid)
    hidden = all(
        _open_fails(path, os.O_RDONLY) and _open_fails(path, os.O_WRONLY) for path in canaries
    )
    # What keeps the canaries shut: each mechanism that can, by itself, hide every copy.
    hidden_by = [isolation] if isolation in ("namespaces", "bwrap") else []
    if walls.landlock > 0:
        hidden_by.append("landlock")
    if answers_locked and separate and not held and sets != {} and not became_root:
        hidden_by.append("permissions")
    return {
        "isolation": isolation,
        "uid": uid,
        "separate_uid": separate and not became_root,
        "own_uid": (separate or shared_but_scoped) and not became_root,
        "no_capabilities": not held and sets != {} and not became_root,
        "capabilities_held": {name: f"{bits:x}" for name, bits in held.items()},
        "bounding_set_empty": sets.get("CapBnd", -1) & ~allowed == 0,
        "no_new_privs": status.get("NoNewPrivs") == "1",
        "seccomp": status.get("Seccomp") == "2" and _allow_list_holds(),
        "landlock": walls.landlock,
        "landlock_net": walls.landlock_net,
        "landlock_scopes": walls.landlock_scopes,
        "answers_hidden": hidden and bool(hidden_by),
        "answers_hidden_by": hidden_by,
        "canaries": len(canaries),
        "grader_unreachable": unreachable,
        "writes_contained": _creating_fails(write_probe),
        "new_files_blocked": walls.new_files_blocked,
        "pid_namespace": in_pid_namespace,
        "parent_death_signal": walls.parent_death_signal,
        "audit_hook": False,
    }


def _readable(folder: str) -> None:
    """List ``folder`` and read a file in it, as the code run from it will (raises OSError)."""
    with os.scandir(folder) as entries:
        files = sorted(entry.path for entry in entries if entry.is_file())
    if files:
        with open(files[0], "rb") as handle:
            handle.read(1)


def _closed_folder(path: str) -> str | None:
    """The first folder on the way to ``path`` this process may not enter, if one is."""
    current = "/"
    for part in os.path.abspath(path).strip("/").split("/")[:-1]:
        current = os.path.join(current, part)
        if not os.access(current, os.X_OK):
            return current
    return None


def prove_function() -> str | None:
    """What keeps honest code from running in this worker, as it now stands (locked down,
    under the submission's uid), or None: it reads the standard library, the game's package
    and a layout, and plays a few moves of a real game. A grader installed where its workers
    cannot read (a private home folder) fails here, before any student is blamed for it."""
    import random

    import pacman

    try:
        # Imported before the worker locked itself in (the game's modules always are).
        from pacman.ghosts import RandomGhost
        from pacman.layout import bundled_layout_dir, parse_layout
        from pacman.state import GameState

        layouts = bundled_layout_dir()
        for folder in (os.path.dirname(os.__file__), os.path.dirname(pacman.__file__), layouts):
            _readable(str(folder))
        path = layouts / "testClassic.lay"
        state = GameState.initial(parse_layout(path.read_text(encoding="utf-8"), "testClassic"))
        ghost = RandomGhost(1, rng=random.Random(0))
        for _ in range(10):
            if state.is_terminal():
                break
            state = state.generate_successor(0, state.get_legal_actions(0)[0])
            if not state.is_terminal():
                state = state.generate_successor(1, ghost.get_action(state))
    except OSError as error:
        reason = error.strerror or type(error).__name__
        unreadable = str(error.filename or "a file it needs")
        closed = _closed_folder(unreadable) if error.filename else None
        if closed is not None:
            reason += f": {closed} is closed to other users"
        return f"it cannot read {unreadable} ({reason})"
    except ImportError as error:
        return f"it cannot import {error.name} from {os.path.dirname(pacman.__file__)}"
    except Exception as error:  # the grader's own code failing: say what, not where
        return f"a test game failed ({type(error).__name__}: {error})"
    return None
