"""A submission that exhausts the machine loses alone: memory in a memory cgroup, a full
disk. The grader survives, the classmates keep their grades, and each row names the limit.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from grading_submissions import BERKELEY, HONEST, SMALL, apply_changes, make_mini

REPO = Path(__file__).resolve().parents[1]
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="cgroups and mounts need root"
)
needs_berkeley = pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")

ANCHOR = "return self.value(gameState, 0, 0)[1]"
#: 1.5 GB held in anonymous memory files, outside the address-space limit.
MEMFD_HOG = """import os
        held = []
        for _ in range(24):
            fd = os.memfd_create("hoard")
            os.write(fd, b"x" * (64 * 1024 * 1024))
            held.append(fd)
        return self.value(gameState, 0, 0)[1]"""
#: 1.5 GB of ordinary memory, under the 2 GB address-space limit but over the cgroup's 1 GB.
#: Threads until no more can be made, kept (it plays honestly if it survives).
THREAD_HOARD = """import threading, time
        held = []
        try:
            for _ in range(5000):
                held.append(threading.Thread(target=time.sleep, args=(60,), daemon=True))
                held[-1].start()
        except RuntimeError:
            pass
        return self.value(gameState, 0, 0)[1]"""
PLAIN_HOG = """hoard = []
        for _ in range(24):
            block = bytearray(64 * 1024 * 1024)
            block[::4096] = b"x" * len(range(0, len(block), 4096))
            hoard.append(block)
        return self.value(gameState, 0, 0)[1]"""


def _own_cgroup(controller: str) -> Path | None:
    """This process's cgroup folder for ``controller`` (v1) or of the unified tree (v2)."""
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, names, path = line.rstrip("\n").split(":", 2)
            if controller in names.split(","):
                return Path("/sys/fs/cgroup") / controller / path.lstrip("/")
            if names == "" and Path("/sys/fs/cgroup/cgroup.controllers").exists():
                return Path("/sys/fs/cgroup") / path.lstrip("/")
    return None


@contextlib.contextmanager
def child_cgroup(controller: str, limits: dict[str, str]) -> Iterator[Path]:
    """A ``controller`` cgroup of its own below this process's (v1 or v2), each file of
    ``limits`` (``{file: value}``) that it has set, removed afterwards."""
    parent = _own_cgroup(controller)
    if parent is None or not os.access(parent, os.W_OK):
        pytest.skip(f"no writable {controller} cgroup here")
    group = parent / f"pacman-test-{os.getpid()}"
    try:
        group.mkdir()
    except OSError as error:
        pytest.skip(f"cannot make a {controller} cgroup here ({error.strerror})")
    try:
        written = [name for name, value in limits.items() if _set(group / name, value)]
        if not written:
            pytest.skip(f"the {controller} controller is not enabled for this cgroup")
        yield group
    finally:
        for _ in range(50):
            try:
                group.rmdir()
                break
            except OSError:
                import time

                time.sleep(0.1)


def _set(path: Path, value: str) -> bool:
    if not path.exists():
        return False
    path.write_text(value)
    return True


def memory_cgroup(megabytes: int) -> contextlib.AbstractContextManager[Path]:
    limit = str(megabytes * 1024 * 1024)
    # v1's limit, or v2's with no swap to spill into.
    return child_cgroup(
        "memory", {"memory.limit_in_bytes": limit, "memory.max": limit, "memory.swap.max": "0"}
    )


def _batch(arena: Path, hand_ins: dict[str, str]) -> tuple[Path, list[str]]:
    submissions = arena / "submissions"
    for name, text in hand_ins.items():
        (submissions / name).mkdir(parents=True)
        (submissions / name / "multiAgents.py").write_text(text)
    suite = make_mini(arena, SMALL)
    command = [sys.executable, str(REPO / "autograder.py"), "--test-directory", str(suite)]
    command += ["--submissions", str(submissions), "--summary", str(arena / "out" / "grades")]
    return arena / "out" / "grades", [*command, "-j", "2", "--move-timeout", "20"]


def _graded_in(group: Path, prefix: Path, command: list[str]) -> tuple[dict, dict]:
    """Run the batch ``command`` inside cgroup ``group``; its rows and its records, by name,
    once it has ended well (exit 0, no traceback)."""
    script = f'echo $$ > "{group}/cgroup.procs" && exec "$@"'
    done = subprocess.run(
        ["/bin/sh", "-c", script, "sh", *command], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    records = json.loads(Path(f"{prefix}.json").read_text())["submissions"]
    return _rows(prefix), {record["submission"]: record for record in records}


def _rows(prefix: Path) -> dict[str, dict[str, str]]:
    with open(f"{prefix}.csv", newline="") as handle:
        return {row["submission"]: row for row in csv.DictReader(handle)}


@needs_root
@needs_berkeley
def test_memory_hogs_in_a_memory_cgroup_lose_alone(arena):
    """In a 1,000 MB memory cgroup: one submission holds 1.5 GB in memfd files, another 1.5
    GB of plain memory (under its 2 GB address-space limit). The grader survives, the honest
    classmates keep full marks, and each hog's row says it ran out of memory."""
    honest = HONEST.read_text()
    hand_ins = {
        "classmate_a": honest,
        "classmate_b": honest,
        "memfd_hog": apply_changes("memfd_hog", "x", [("MinimaxAgent", ANCHOR, MEMFD_HOG)]),
        "plain_hog": apply_changes("plain_hog", "x", [("MinimaxAgent", ANCHOR, PLAIN_HOG)]),
    }
    with memory_cgroup(1000) as group:
        rows, records = _graded_in(group, *_batch(arena, hand_ins))
    assert {name: row["total"] for name, row in rows.items()} == {
        "classmate_a": "15",
        "classmate_b": "15",
        "memfd_hog": "10",
        "plain_hog": "10",
    }
    for hog in ("memfd_hog", "plain_hog"):
        report = records[hog]["questions"]["q2"]["tests"][0]["report"]
        assert "ran out of memory" in report, report
        assert "timed out" not in report and "exited with status" not in report, report
    plain = records["plain_hog"]["questions"]["q2"]["tests"][0]["report"]
    assert "the kernel's out-of-memory killer ended it" in plain, plain


@needs_root
@needs_berkeley
@pytest.mark.skipif(not shutil.which("unshare"), reason="util-linux unshare is needed")
# 8k: no submission can be staged; 48k: some can; 128k: all can (two at a time).
@pytest.mark.parametrize("size", ["8k", "48k", "128k"])
def test_a_full_tmpdir_gives_every_folder_a_row_or_one_line(arena, size):
    """TMPDIR on a tiny file system: the suite or a submission cannot be staged. Either every
    folder gets a row (those that could not be staged say why) or the batch stops in one
    line with exit 2; never a traceback."""
    honest = HONEST.read_text()
    prefix, command = _batch(arena, {f"student_{n}": honest for n in range(3)})
    full = arena / "full"
    full.mkdir()
    quote = lambda text: "'" + text.replace("'", "'\\''") + "'"  # noqa: E731
    script = (
        f"mount -t tmpfs -o size={size} none {quote(str(full))} && "
        f"TMPDIR={quote(str(full))} exec " + " ".join(quote(c) for c in command)
    )
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-3000:]
    if done.returncode == 2:
        assert done.stderr.count("\n") == 1, done.stderr
        assert "No space left on device" in done.stderr, done.stderr
        return
    assert done.returncode == 0, done.stderr[-3000:]
    rows = _rows(prefix)
    assert sorted(rows) == ["student_0", "student_1", "student_2"]
    for row in rows.values():
        assert row["total"] == "15" or "No space left on device" in row["error"], row


@needs_root
@needs_berkeley
@pytest.mark.parametrize("isolation", ["namespaces", "process"])
def test_thread_hoards_in_a_pids_cgroup_lose_alone(arena, isolation):
    """In a pids cgroup of 40 processes and threads, two submissions start threads until no
    more can be made, beside two honest ones, two at a time. Each worker may take half the
    room left, so the classmates' workers always start: they keep full marks, and each
    hoard's row names the thread cap it went over."""
    honest = HONEST.read_text()
    hoard = apply_changes("hoard", "x", [("MinimaxAgent", ANCHOR, THREAD_HOARD)])
    hand_ins = {"classmate_a": honest, "classmate_b": honest, "hoard_a": hoard, "hoard_b": hoard}
    prefix, command = _batch(arena, hand_ins)
    with child_cgroup("pids", {"pids.max": "40"}) as group:
        rows, records = _graded_in(group, prefix, [*command, "--isolation", isolation])
    assert {name: row["q2"] for name, row in rows.items()} == {
        "classmate_a": "5",
        "classmate_b": "5",
        "hoard_a": "0",
        "hoard_b": "0",
    }
    for name in ("classmate_a", "classmate_b"):
        assert rows[name]["total"] == "15", rows[name]
    for name in ("hoard_a", "hoard_b"):
        report = records[name]["questions"]["q2"]["tests"][0]["report"]
        assert "was stopped: it started more than " in report, report
        assert "threads (the cap on threads a submission may run)" in report, report
