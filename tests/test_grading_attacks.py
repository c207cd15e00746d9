"""A class of hostile submissions graded in every isolation mode this machine offers.

Each run is one ``--submissions`` batch in a grader subprocess: an honest file,
one that switches the audit hook off and attacks the machine and the other
submissions, a thief that reads the solutions four ways, a junk reply, a disk
filler, runaway recursion and a symlinked file. The kernel's walls must hold
without the hook: every attack fails, each submission earns only what its
honest parts earn, the others are unaffected, and nothing outlives the run.

Modes: ``namespaces`` and ``process`` as root (a root container with and
without namespaces), and ``process`` run by an unprivileged user. They need
root, and skip with a reason elsewhere.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from grading_attacks import attack_text
from grading_submissions import BERKELEY, SMALL, make_mini, submission_folder

from pacman.grading.sandbox import _probe, _untraversable_top

REPO = Path(__file__).resolve().parents[1]
#: The user the "unprivileged" grader runs as: no account, no groups.
GRADER_UID = 1_990_000_000

needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="the attacks are graded as root (and as a user root switches to)",
)
needs_berkeley = pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")


def _as_unprivileged(command: list[str], needed: list[str]) -> list[str]:
    """``command`` run by GRADER_UID, in a mount namespace where ``needed`` is reachable.

    An interpreter under /root is not reachable by other users: the folder is covered with
    an open tmpfs and the needed paths are bound back, as a site admin would install a
    Python anyone can run.
    """
    quote = lambda text: "'" + text.replace("'", "'\\''") + "'"  # noqa: E731
    lines = ["set -e"]
    tops = sorted({t for t in map(_untraversable_top, needed) if t})
    for number, top in enumerate(tops, start=3):
        lines.append(f"exec {number}<{quote(top)}")
        lines.append(f"mount -t tmpfs -o mode=0755 none {quote(top)}")
        for path in needed:
            if path.startswith(top + "/"):
                lines.append(f"mkdir -p {quote(path)}")
                source = f"/proc/self/fd/{number}{path[len(top) :]}"
                lines.append(f"mount --no-canonicalize --bind {quote(source)} {quote(path)}")
    user = f"--reuid={GRADER_UID} --regid={GRADER_UID} --clear-groups"
    lines.append(
        f"exec setpriv {user} --inh-caps=-all --bounding-set=-all -- "
        + " ".join(quote(c) for c in command)
    )
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "--",
        "/bin/sh",
        "-c",
        "\n".join(lines),
    ]


def batch_command(
    suite: Path, submissions: Path, summary: Path, isolation: str, move: int
) -> list[str]:
    """The grader, as a course runs it on a folder of submissions, two at a time."""
    return [
        sys.executable,
        str(REPO / "autograder.py"),
        "--test-directory",
        str(suite),
        "--submissions",
        str(submissions),
        "--summary",
        str(summary),
        "--isolation",
        isolation,
        "--move-timeout",
        str(move),
        "-j",
        "2",
    ]


def _digest(folder: Path) -> str:
    hasher = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        hasher.update(str(path).encode())
        if path.is_file():
            hasher.update(path.read_bytes())
    return hasher.hexdigest()


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        if text.encode() in environ or text.encode() in cmdline:
            found.append(int(entry))
    return found


@pytest.fixture
def arena():
    """A folder every user may enter, removed afterwards (tmp_path is root's alone)."""
    base = Path(tempfile.mkdtemp(prefix="pacman-attacks-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


MODES = ["namespaces", "process", "process-unprivileged", "process-no-landlock"]
#: What gets through where no mode can hide the answers (process mode, root, no Landlock):
#: the grader refuses batches there unless told --unsafe-readable-answers (docs/grading.md).
GETS_THROUGH_WITHOUT_LANDLOCK = {
    "read-solution",
    "list-suite",
    "write-suite",
    "write-canary",
    "read-others",
    "import-reference-agents",
}


@needs_root
@needs_berkeley
@pytest.mark.parametrize("mode", MODES)
def test_kernel_walls_hold_without_the_audit_hook(arena, mode):
    if mode == "namespaces" and not _probe("namespaces"):
        pytest.skip("namespaces do not work on this machine")
    if mode == "process-unprivileged" and not shutil.which("unshare"):
        pytest.skip("unshare is needed to run the grader as another user")
    suite = make_mini(arena, SMALL)
    # Writable and readable by anyone: only the sandbox may stop a submission here.
    for path in [suite, *suite.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)
    suite_digest = _digest(suite)
    canary = arena / "canary.txt"
    canary.write_text("original")
    canary.chmod(0o666)
    devname = f"pacman-attack-{os.getpid()}-{mode}"
    forged = arena / "forged-results"
    staging = arena / "tmp"  # the grader's TMPDIR: stages and scratch folders live here
    staging.mkdir()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.setblocking(False)
    with open("/proc/sys/kernel/core_pattern") as handle:
        core_pattern = handle.read()

    submissions = arena / "submissions"
    submissions.mkdir()
    submission_folder("cs188_style", submissions)
    fill = {
        "suite": str(suite),
        "canary": str(canary),
        "devname": devname,
        "port": str(listener.getsockname()[1]),
        "results": str(forged),
        "stages": str(staging),
    }
    for name in ("attack_everything", "attack_thief", "attack_junk_reply", "attack_disk"):
        (submissions / name).mkdir()
        (submissions / name / "multiAgents.py").write_text(attack_text(name, **fill))
    (submissions / "attack_recursion").mkdir()
    (submissions / "attack_recursion" / "multiAgents.py").write_text(
        attack_text("attack_recursion")
    )
    (submissions / "linked").mkdir()
    (submissions / "linked" / "multiAgents.py").symlink_to(
        submissions / "cs188_style" / "multiAgents.py"
    )
    summary = arena / "out" / "grades"
    summary.parent.mkdir()

    isolation = "namespaces" if mode == "namespaces" else "process"
    command = batch_command(suite, submissions, summary, isolation, 10)
    if mode == "process-no-landlock":
        command += ["--no-landlock", "--unsafe-readable-answers"]
    weak = mode == "process-no-landlock"
    if mode == "process-unprivileged":
        for path in [staging, summary.parent]:
            os.chown(path, GRADER_UID, GRADER_UID)
        needed = [sys.prefix, sys.base_prefix, os.path.dirname(sys.executable), str(REPO)]
        command = _as_unprivileged(command, [os.path.realpath(p) for p in needed])
    env = {**os.environ, "TMPDIR": str(staging)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr

    with open(str(summary) + ".csv", newline="") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    data = json.loads(Path(str(summary) + ".json").read_text())
    records = {record["submission"]: record for record in data["submissions"]}
    grades = {name: (row["q2"], row["q3"], row["q4"]) for name, row in rows.items()}
    assert grades["cs188_style"] == ("5", "5", "5")
    # Attacks that fail leave an honest search: full marks, no more, no less.
    assert grades["attack_everything"] == ("5", "5", "5")
    # No search code: points only from stolen solutions.
    assert grades["attack_thief"] == (("5", "5", "5") if weak else ("0", "0", "0"))
    assert grades["attack_junk_reply"] == ("0", "5", "5")
    assert grades["attack_recursion"] == ("5", "0", "5")
    assert grades["attack_disk"][:2] == ("5", "5")
    assert grades["linked"] == ("0", "0", "0")
    assert "symbolic link" in rows["linked"]["error"]

    printed = records["attack_everything"]["import_report"]
    outcomes = dict(
        line.split("ATTACK ", 1)[1].split(": ", 1)
        for line in printed.splitlines()
        if "ATTACK " in line
    )
    assert len(outcomes) == 14, printed
    through = {name for name, outcome in outcomes.items() if outcome == "SUCCEEDED"}
    if weak:
        # Another submission's copy can be read only while it is being graded: timing decides.
        assert GETS_THROUGH_WITHOUT_LANDLOCK - {"read-others"} <= through, printed
        assert through <= GETS_THROUGH_WITHOUT_LANDLOCK, printed
    else:
        assert through == set(), printed
    assert all(o.startswith("blocked (") for n, o in outcomes.items() if n not in through)
    assert "\x1b" not in printed and "| \\x1b[2J\\x1b[HTotal: 25/25" in printed
    stolen = records["attack_thief"]["import_report"]
    assert stolen.count("SUCCEEDED" if weak else ": blocked (") == 4, stolen
    junk = "\n".join(t["report"] for t in records["attack_junk_reply"]["questions"]["q2"]["tests"])
    assert "a reply of 33554432 bytes announced; the limit is 4194304" in junk
    protections = records["attack_everything"]["protections"]
    assert protections["answers_hidden"] is not weak
    assert protections["seccomp"] is True
    if mode != "process-unprivileged":
        assert protections["separate_uid"] is True
    # Every submission ran as a uid of its own.
    uids = {r["protections"]["uid"] for r in records.values() if r.get("protections")}
    if mode != "process-unprivileged":
        assert len(uids) == len(records) - 1  # the symlinked one never ran

    # Nothing outside the submissions' scratch folders changed, and nothing outlived the run.
    time.sleep(0.5)
    if not weak:
        assert canary.read_text() == "original"
        assert _digest(suite) == suite_digest
    assert not os.path.exists(f"/dev/{devname}")
    with open("/proc/sys/kernel/core_pattern") as handle:
        assert handle.read() == core_pattern
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()
    assert not forged.exists()
    assert list(staging.iterdir()) == []
    assert _processes_mentioning(str(staging)) == []


@needs_root
@needs_berkeley
def test_killing_the_grader_takes_every_student_process_with_it(arena):
    """SIGKILL to a grader busy with a looping submission: no worker survives it."""
    suite = make_mini(arena, SMALL)
    submissions = arena / "submissions"
    submissions.mkdir()
    submission_folder("hostile_infinite_loop", submissions)
    submission_folder("cs188_style", submissions)
    staging = arena / "tmp"
    staging.mkdir()
    for isolation in ["process", *(["namespaces"] if _probe("namespaces") else [])]:
        grader = subprocess.Popen(
            batch_command(suite, submissions, arena / "grades", isolation, 60),
            env={**os.environ, "TMPDIR": str(staging)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not _processes_mentioning(str(staging)):
            time.sleep(0.1)
        time.sleep(1.0)  # the looping worker is busy by now
        assert _processes_mentioning(str(staging)), "no student worker started"
        grader.send_signal(signal.SIGKILL)
        grader.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and _processes_mentioning(str(staging)):
            time.sleep(0.1)
        assert _processes_mentioning(str(staging)) == [], isolation
