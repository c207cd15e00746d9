"""The footprint watcher: a worker's threads and scratch space, counted from outside, and
the kernel's count of out-of-memory kills, which tells what ended a worker that vanished."""

from __future__ import annotations

import time

from pacman.sandbox import procfs, protocol
from pacman.sandbox.cleanup import free_bytes, tree_usage
from pacman.sandbox.policy import Policy
from pacman.sandbox.staging import DISK_RESERVE

#: Seconds between readings of the kernel's OOM-kill count while a worker keeps answering.
OOM_MARK_EVERY = 0.05


class OverLimit(protocol.Timeout):
    """The worker went over a limit other than time (threads, scratch space): it is stopped,
    and the message names the limit."""


class Footprint:
    """The caps on one worker's threads and scratch folder, and its OOM mark."""

    def __init__(self, policy: Policy, scratch: str, isolation: str, disk_mb: int) -> None:
        self.policy = policy
        self.scratch = scratch
        self.isolation = isolation
        self.disk_mb = disk_mb
        self.quota = disk_mb * 1024 * 1024
        self._disk_looked_at = 0.0  # when the scratch folder was last measured
        # The kernel's count of OOM kills when it was last seen alive, and when that was.
        self._oom_mark = procfs.oom_kills()
        self._oom_marked_at = time.monotonic()

    def look_at_disk_next(self) -> None:
        """Measure the scratch folder at the next check, however recent the last one."""
        self._disk_looked_at = 0.0

    def check(self, pid: int, now: float) -> None:
        """Raise :class:`OverLimit` naming the cap a worker is over (threads, scratch bytes
        or entries, or a disk left full).

        Counted here, from outside, so the caps hold for an unprivileged grader too, whose
        workers share its uid (``RLIMIT_NPROC`` counts per uid). The scratch folder is
        walked at most twice a second.
        """
        policy = self.policy
        if procfs.thread_count(pid) > policy.max_threads:
            raise OverLimit(
                f"was stopped: it started more than {policy.max_threads} threads "
                "(the cap on threads a submission may run)"
            )
        if self.isolation == "namespaces" or now - self._disk_looked_at < 0.5:
            return  # (a namespace worker's scratch folder is a tmpfs of the quota's size)
        self._disk_looked_at = now
        used, entries = tree_usage(self.scratch, max_entries=policy.max_scratch_entries)
        if used > DISK_RESERVE and free_bytes(self.scratch) < DISK_RESERVE:
            # Below its quota, but the disk is full (a small TMPDIR): it goes, and its files
            # with it, so that the classmates graded beside it find room.
            raise OverLimit(
                f"was stopped: it filled the disk its scratch folder is on ({used >> 20} MB "
                f"written, less than {DISK_RESERVE >> 20} MB left for anyone)"
            )
        if used > self.quota or entries > policy.max_scratch_entries:
            raise OverLimit(
                f"was stopped: it wrote more than {self.disk_mb} MB or "
                f"{policy.max_scratch_entries} files and folders (the scratch folder's quota)"
            )

    def mark_alive(self, now: float) -> None:
        """The worker answered at ``now``: a kill from now on may be its. (Reading
        /proc/vmstat costs 30 us, so a game's thousands of quick replies read it a few times
        a second.)"""
        if now - self._oom_marked_at >= OOM_MARK_EVERY:
            self._oom_mark = procfs.oom_kills()
            self._oom_marked_at = now

    def killed_by_oom(self, code: int) -> bool:
        """Whether the kernel's OOM killer ended a worker that exited with ``code``: unshare
        reports a child killed by a signal as status 1, and the kernel's count of OOM kills
        tells what ended it."""
        kills = procfs.oom_kills()
        return code != 0 and kills is not None and kills > (self._oom_mark or kills)
