"""Who a worker is: its uids and capability sets, read from the kernel and changed with it."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import struct

from pacman.sandbox.syscalls import prctl, syscall

_PR_SET_KEEPCAPS = 8


_PR_CAPBSET_DROP = 24


_CAP_DAC_READ_SEARCH = 2
#: CAP_DAC_READ_SEARCH in a capability set's bits: the one a worker may keep (see walls).
READ_SEARCH_BIT = 1 << _CAP_DAC_READ_SEARCH


_LINUX_CAPABILITY_VERSION_3 = 0x20080522


_SYS_CAPSET = {"x86_64": 126, "amd64": 126, "aarch64": 91, "arm64": 91}


_PR_CAP_AMBIENT = 47


_PR_CAP_AMBIENT_CLEAR_ALL = 4


#: The capability sets of /proc/PID/status, as the kernel names them.
CAPABILITY_SETS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")


def process_status(pid: int | str = "self", fd: int | None = None) -> dict[str, str]:
    """The fields of ``/proc/PID/status`` (empty where it cannot be read).

    ``fd``, a descriptor of that file opened earlier, is read afresh instead: the kernel
    writes the file at each read, and Landlock may since have closed ``/proc``.
    """
    try:
        if fd is not None:
            text = os.pread(fd, 1 << 16, 0).decode("utf-8", "replace")
        else:
            with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as handle:
                text = handle.read()
    except OSError:
        return {}
    return {
        name: value.strip() for name, _, value in (ln.partition(":") for ln in text.splitlines())
    }


def capability_sets(status: dict[str, str]) -> dict[str, int]:
    """Each capability set of a process (from :func:`process_status`) as a bit mask."""
    found = {}
    for name in CAPABILITY_SETS:
        with contextlib.suppress(KeyError, ValueError):
            found[name] = int(status[name], 16)
    return found


def _set_capabilities(bits: int) -> None:
    """Make ``bits`` (capabilities below 32) the effective and permitted set; none inheritable."""
    number = _SYS_CAPSET.get(os.uname().machine.lower())
    if number is None:
        raise OSError(errno.ENOSYS, "capset: unknown architecture")
    header = struct.pack("=Ii", _LINUX_CAPABILITY_VERSION_3, 0)
    data = struct.pack("=IIIIII", bits, bits, 0, 0, 0, 0)  # effective, permitted, inheritable x2
    syscall(
        number,
        ctypes.create_string_buffer(header, len(header)),
        ctypes.create_string_buffer(data, len(data)),
    )


def _drop_bounding_set(keep: int = -1) -> None:
    # Needs CAP_SETPCAP: a container without it keeps its bounding set, which no_new_privs
    # and an empty permitted set make harmless (nothing can be gained through exec).
    for cap in range(64):
        if cap != keep:
            with contextlib.suppress(OSError):
                prctl(_PR_CAPBSET_DROP, cap)


def drop_capabilities(keep_read_search: bool) -> None:
    """Leave only CAP_DAC_READ_SEARCH (when asked and held) in any set, else nothing."""
    keep = _CAP_DAC_READ_SEARCH if keep_read_search else -1
    _drop_bounding_set(keep)
    with contextlib.suppress(OSError):
        prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL)
    try:
        _set_capabilities(1 << _CAP_DAC_READ_SEARCH if keep_read_search else 0)
    except OSError:
        # Asking for a capability not held fails: then hold none at all. A failure here
        # too is left for the proof to find (it refuses to grade).
        with contextlib.suppress(OSError):
            _set_capabilities(0)


def switch_user(uid: int, keep_read_search: bool, held: int) -> None:
    """Become ``uid`` (from root), keeping CAP_DAC_READ_SEARCH only when asked and in
    ``held`` (the permitted set)."""
    keep_read_search = keep_read_search and bool(held & (1 << _CAP_DAC_READ_SEARCH))
    _drop_bounding_set(_CAP_DAC_READ_SEARCH if keep_read_search else -1)
    # Without KEEPCAPS the kernel empties the permitted set as the uid changes; with it,
    # root's whole permitted set would survive the switch (it is trimmed right after).
    prctl(_PR_SET_KEEPCAPS, 1 if keep_read_search else 0)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    drop_capabilities(keep_read_search)
    with contextlib.suppress(OSError):
        prctl(_PR_SET_KEEPCAPS, 0)


#: What a root grader does with each capability, by the kernel's number: hand each submission
#: a uid of its own (its staged files, its scratch folder), switch its worker to it, and then
#: stop it and remove what it left however it shaped it.
ROOT_GRADER_CAPABILITIES = {
    "CAP_CHOWN": 0,  # give the staged files and the scratch folder to the submission's uid
    "CAP_DAC_OVERRIDE": 1,  # remove a scratch tree the submission locked
    "CAP_FOWNER": 3,  # unlock it first (chmod of the submission's own folders)
    "CAP_KILL": 5,  # stop a worker running as another uid
    "CAP_SETGID": 6,  # switch the worker to the submission's group ...
    "CAP_SETUID": 7,  # ... and uid
}


def missing_root_capabilities() -> list[str]:
    """The names in :data:`ROOT_GRADER_CAPABILITIES` a root grader lacks (``docker run
    --cap-drop ALL``); empty for a grader that is not root or where /proc cannot tell."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return []
    effective = capability_sets(process_status()).get("CapEff")
    if effective is None:
        return []
    return [name for name, bit in ROOT_GRADER_CAPABILITIES.items() if not effective >> bit & 1]
