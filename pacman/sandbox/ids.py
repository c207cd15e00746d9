"""The uids (and gids, the same numbers) submissions get: mapped in this user namespace, far
from any real account, one per submission.
"""

from __future__ import annotations

import functools
import os
import threading

#: Per-submission uids are taken from here up: far above any real account.
UID_BASE = 2_100_000_000


_uid_lock = threading.Lock()


_uid_counter = 0


def _mapped(path: str) -> list[range]:
    """The ids a user namespace's map (``/proc/self/uid_map``) holds, as ranges of inner ids;
    everything where the kernel keeps no map (not Linux)."""
    try:
        with open(path, encoding="ascii") as handle:
            rows = [line.split() for line in handle if line.strip()]
        return [range(int(row[0]), int(row[0]) + int(row[2])) for row in rows]
    except (OSError, ValueError, IndexError):
        return [range(0, 2**32 - 1)]


def submission_ids_in(uids: list[range], gids: list[range]) -> range:
    """The ids submissions may get from these maps (a submission's gid is its uid): far above
    any real account where the maps allow (UID_BASE up), else the upper part of the largest
    range mapped in both (a rootless container's 65,536 subordinate ids), clear of system
    accounts and of 65534 and 65535 (nobody); empty where the maps hold none (a user
    namespace that maps root alone)."""
    both = [
        range(max(u.start, g.start), min(u.stop, g.stop))
        for u in uids
        for g in gids
        if max(u.start, g.start) < min(u.stop, g.stop)
    ]
    preferred = range(UID_BASE, UID_BASE + 2**24)
    if any(r.start <= preferred.start and preferred.stop <= r.stop for r in both):
        return preferred
    best = range(0)
    for mapped in both:
        low = range(max(mapped.start, 1000), min(mapped.stop, 65534))
        high = range(max(mapped.start, 65536), mapped.stop)
        best = max(best, low, high, key=len)
    return best


@functools.lru_cache(maxsize=1)
def submission_ids() -> range:
    """:func:`submission_ids_in` of this process's user namespace."""
    return submission_ids_in(_mapped("/proc/self/uid_map"), _mapped("/proc/self/gid_map"))


def allocate_uid() -> int | None:
    """A uid no other submission graded now (by this or another grader process) uses; None
    where this user namespace maps none for submissions (they then share the grader's,
    which only namespaces may make safe: the proof decides)."""
    global _uid_counter
    ids = submission_ids()
    if not ids:
        return None
    block = min(256, len(ids))
    with _uid_lock:
        _uid_counter += 1
        # The pid is unique among live graders on this machine; the counter within one.
        return ids[(os.getpid() % max(1, len(ids) // block)) * block + _uid_counter % block]
