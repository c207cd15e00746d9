"""Every class of hostile submission graded in every setting this machine can make.

Each run is one ``--submissions`` batch in a grader subprocess (a copy of the project, so
attacks on the grader's code change a copy): an honest file, one that switches the audit
hook off and attacks the machine and the other submissions, one that uses what root's
capabilities would give, a thief that reads the solutions four ways, a junk reply, a disk
filler, runaway recursion, CPU in helper threads and a thread bomb, a scratch tree deeper
than Python can recurse, and a symlinked file. Where the grader accepts the setting, the
kernel's walls must hold without the hook: every attack fails, each submission earns only
what its honest parts earn, the others are unaffected, and nothing outlives the run. Where
it cannot keep that promise, it must refuse in one line before grading anyone.

Settings: root with and without namespaces, Docker's default capability set
(``setpriv --bounding-set``), an unprivileged grader (``setpriv --reuid``), and Landlock
capped at older ABIs (the grader's hidden ``--landlock-abi N``). They need root, and skip
with a reason elsewhere.
"""

from __future__ import annotations

import csv
import ctypes
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from grading_attacks import attack_text
from grading_settings import GRADER_UID, in_setting, project_copy, python_with_tqdm
from grading_submissions import BERKELEY, HONEST, SMALL, make_mini, submission_folder

from pacman.sandbox.isolation import probe

REPO = Path(__file__).resolve().parents[1]
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="the attacks are graded as root (and as a user root switches to)",
)
needs_berkeley = pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")


def batch_command(
    suite: Path,
    submissions: Path,
    summary: Path,
    move: int,
    *flags: str,
    project: Path = REPO,
    python: str = sys.executable,
) -> list[str]:
    """The grader in ``project``, as a course runs it on a folder of submissions, two at a time."""
    return [
        python,
        str(project / "autograder.py"),
        "--test-directory",
        str(suite),
        "--submissions",
        str(submissions),
        "--summary",
        str(summary),
        "--move-timeout",
        str(move),
        "-j",
        "2",
        *flags,
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


@dataclass(frozen=True)
class Setting:
    """Where a course grades: who runs the grader, with which flags, and what must happen."""

    runner: str  # root, docker (root with Docker's default capabilities), docker-seccomp (and
    # Docker's seccomp profile), userns, userns-range or unprivileged
    flags: tuple[str, ...] = ()
    refused: str | None = None  # what the one-line refusal names; None: grading runs
    weak: bool = False  # graded with --unsafe-weak-sandbox where answers are readable
    #: Workers share the grader's uid (root of a user namespace that maps no other); its
    #: namespaces keep them apart.
    shared_uid: bool = False


SETTINGS = {
    "namespaces": Setting("root", ("--isolation", "namespaces")),
    "namespaces-no-landlock": Setting("root", ("--isolation", "namespaces", "--landlock-abi", "0")),
    "process": Setting("root", ("--isolation", "process")),
    "docker": Setting("docker"),
    "docker-landlock-v2": Setting("docker", ("--landlock-abi", "2")),
    "docker-no-landlock": Setting("docker", ("--landlock-abi", "0"), "read the test answers"),
    # The same, told every copy of the tests (the old course folder too): file permissions.
    "docker-no-landlock-locked": Setting(
        "docker", ("--landlock-abi", "0", "--lock-answers", "@OLDCOURSE@")
    ),
    # Docker's own seccomp profile (before 20.10.18): no namespaces, and the Landlock calls
    # unknown, so the grader finds no Landlock by itself; as above, without and with locks.
    "docker-seccomp": Setting("docker-seccomp", (), "read the test answers"),
    "docker-seccomp-locked": Setting("docker-seccomp", ("--lock-answers", "@OLDCOURSE@")),
    "process-no-landlock": Setting(
        "root", ("--isolation", "process", "--landlock-abi", "0"), "read the test answers"
    ),
    "process-no-landlock-unsafe": Setting(
        "root",
        ("--isolation", "process", "--landlock-abi", "0", "--unsafe-weak-sandbox"),
        weak=True,
    ),
    "userns": Setting("userns", shared_uid=True),
    "userns-range": Setting("userns-range"),
    "unprivileged": Setting("unprivileged", ("--isolation", "process")),
    "unprivileged-landlock-v5": Setting(
        "unprivileged", ("--isolation", "process", "--landlock-abi", "5"), "signal the grader"
    ),
}
#: What gets through where no mode can hide the answers (process mode, root, no Landlock):
#: the grader refuses batches there unless told --unsafe-weak-sandbox (docs/grading.md).
GETS_THROUGH_WITHOUT_LANDLOCK = {
    "read-solution",
    "list-suite",
    "write-suite",
    "write-canary",
    "read-others",
    "import-reference-agents",
}
#: The same for the privilege attacks: the student's uid keeps CAP_DAC_READ_SEARCH there
#: (its interpreter is under /root), so it reads whatever root may read.
PRIVILEGES_WITHOUT_LANDLOCK = {
    "read-project-fixture",
    "read-project-suite",
    "read-old-course",
}


def _sysv_segments() -> set[str]:
    with open("/proc/sysvipc/shm") as handle:
        return {line.split()[1] for line in handle.readlines()[1:] if line.split()}


def _queue_exists(name: str) -> bool:
    """Whether POSIX message queue ``name`` exists on the machine (removed if it does)."""
    libc = ctypes.CDLL(None, use_errno=True)
    queue = libc.mq_open(name.encode(), os.O_RDONLY)
    if queue < 0:
        return False
    libc.mq_close(queue)
    libc.mq_unlink(name.encode())
    return True


def _outcomes(printed: str) -> dict[str, str]:
    return dict(
        line.split("ATTACK ", 1)[1].split(": ", 1)
        for line in printed.splitlines()
        if "ATTACK " in line and ": " in line.split("ATTACK ", 1)[1]
    )


@needs_root
@needs_berkeley
@pytest.mark.parametrize("name", list(SETTINGS))
def test_every_attack_in_every_setting(arena, name):
    """Each class of hostile submission graded in one setting courses use: where the grader
    accepts the setting, every attack fails (the hook switched off) and each submission
    earns only what its honest parts earn; where it cannot keep that promise, it refuses
    in one line before grading anyone."""
    setting = SETTINGS[name]
    if "namespaces" in setting.flags and not probe("namespaces"):
        pytest.skip("namespaces do not work on this machine")
    if setting.runner != "root" and not (shutil.which("unshare") and shutil.which("setpriv")):
        pytest.skip("unshare and setpriv (util-linux) are needed to change the grader's setting")
    project = project_copy(arena)
    suite = make_mini(arena, SMALL)
    # Writable and readable by anyone: only the sandbox may stop a submission here.
    for path in [suite, *suite.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)
    # A copy of the answers the grader is not told of, readable by anyone.
    (arena / "old").mkdir()
    old_course = make_mini(arena / "old", SMALL)
    watched = {"suite": _digest(suite), "project": _digest(project)}
    canary = arena / "canary.txt"
    canary.write_text("original")
    canary.chmod(0o666)
    shared = arena / "shared"  # as /tmp is: anyone may make files in it
    shared.mkdir()
    shared.chmod(0o1777)
    devname = f"pacman-attack-{os.getpid()}-{name}"
    forged = arena / "forged-results"
    staging = arena / "tmp"  # the grader's TMPDIR: stages and scratch folders live here
    staging.mkdir()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.setblocking(False)
    with open("/proc/sys/kernel/core_pattern") as handle:
        core_pattern = handle.read()
    segments = _sysv_segments()

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
        "project": str(project),
        "oldcourse": str(old_course),
        "shared": str(shared),
    }
    attacks = (
        "attack_everything",
        "attack_thief",
        "attack_junk_reply",
        "attack_disk",
        "attack_recursion",
        "attack_privileges",
        "attack_threads",
        "attack_scratch",
        "attack_strings",
    )
    for attack in attacks:
        (submissions / attack).mkdir()
        (submissions / attack / "multiAgents.py").write_text(attack_text(attack, **fill))
    (submissions / "linked").mkdir()
    (submissions / "linked" / "multiAgents.py").symlink_to(
        submissions / "cs188_style" / "multiAgents.py"
    )
    # An honest file in a folder whose name is not UTF-8 and holds an escape sequence.
    odd = os.path.join(os.fsencode(submissions), b"odd_\xe9\x1b[2J")
    os.mkdir(odd)
    shutil.copy(HONEST, os.path.join(odd, b"multiAgents.py"))
    summary = arena / "out" / "grades"
    summary.parent.mkdir()

    flags = [flag.replace("@OLDCOURSE@", str(old_course)) for flag in setting.flags]
    python = sys.executable
    if "--lock-answers" in flags:
        # An interpreter that sees the project copy alone: --lock-answers locks every copy
        # the grader can import from, and the test's own (an editable install's) is not one.
        python = str(python_with_tqdm(arena))
    command = batch_command(suite, submissions, summary, 2, *flags, project=project, python=python)
    if setting.runner not in ("root", "docker", "docker-seccomp"):
        for path in [staging, summary.parent]:
            os.chown(path, GRADER_UID, GRADER_UID)
    needed = [sys.prefix, sys.base_prefix, os.path.dirname(sys.executable), str(REPO)]
    command = in_setting(command, [os.path.realpath(p) for p in needed], setting.runner)
    env = {**os.environ, "TMPDIR": str(staging)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, env=env)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]

    if setting.refused is not None:
        assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
        assert done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith("autograder: refusing to grade with --submissions: ")
        assert setting.refused in done.stderr
        assert done.stdout == ""
        assert not Path(str(summary) + ".csv").exists()
        assert list(staging.iterdir()) == []
        return

    assert done.returncode == 0, done.stderr[-3000:]
    with open(str(summary) + ".csv", newline="") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    data = json.loads(Path(str(summary) + ".json").read_text())
    records = {record["submission"]: record for record in data["submissions"]}
    odd_name = "odd_\\xe9\\x1b[2J"  # as every report shows it
    assert sorted(rows) == sorted([*attacks, "cs188_style", "linked", odd_name])
    assert "\x1b" not in Path(str(summary) + ".csv").read_text() + done.stdout
    grades = {name: (row["q2"], row["q3"], row["q4"]) for name, row in rows.items()}
    weak = setting.weak
    assert grades["cs188_style"] == ("5", "5", "5")
    # Attacks that fail leave an honest search: full marks, no more, no less.
    assert grades["attack_everything"] == ("5", "5", "5")
    assert grades["attack_privileges"] == ("5", "5", "5")
    # No search code: points only from stolen solutions.
    assert grades["attack_thief"] == (("5", "5", "5") if weak else ("0", "0", "0"))
    assert grades["attack_junk_reply"] == ("0", "5", "5")
    assert grades["attack_recursion"] == ("5", "0", "5")
    assert grades["attack_disk"][:2] == ("5", "5")
    # CPU in a helper thread is charged to the move; a thread bomb ends the worker.
    assert grades["attack_threads"] == ("0", "0", "5")
    threads = records["attack_threads"]["questions"]
    q2_report = "\n".join(t["report"] for t in threads["q2"]["tests"])
    assert "used more than 2.0 s of CPU time" in q2_report, q2_report
    q3_report = "\n".join(t["report"] for t in threads["q3"]["tests"])
    # Each stop names its limit: the thread cap is not a timeout.
    assert "was stopped: it started more than 64 threads (the cap on threads" in q3_report
    assert "timed out" not in q3_report.split("started more than 64 threads")[0][-200:]
    # A scratch folder over its file count: refused by the worker's own tmpfs (namespaces)
    # or where no file may be made at all (process isolation without Landlock), else the
    # worker is stopped and the submission does not import (counted from outside).
    scratch_report = records["attack_scratch"]["import_report"]
    scratch_protections = records["attack_scratch"]["protections"]
    if scratch_protections["new_files_blocked"]:
        assert grades["attack_scratch"] == ("5", "5", "5"), scratch_report
        assert "ATTACK scratch-tree: blocked (PermissionError)" in scratch_report, scratch_report
    elif scratch_protections["isolation"] == "namespaces":
        assert grades["attack_scratch"] == ("5", "5", "5"), scratch_report
        assert "ATTACK scratch-tree: blocked (OSError)" in scratch_report, scratch_report
    else:
        assert grades["attack_scratch"] == ("0", "0", "0"), scratch_report
        assert "1024 files and folders (the scratch folder's quota)" in scratch_report
        assert "timed out" not in scratch_report, scratch_report
    assert grades[odd_name] == ("5", "5", "5")
    # Strings are data: each odd string costs only the test it was in, and shows escaped.
    assert grades["attack_strings"] == ("0", "0", "5")
    strings = records["attack_strings"]
    assert "odd bytes \\xff\\xfe \\x1b[2J" in strings["import_report"]
    strings_q2 = "\n".join(t["report"] for t in strings["questions"]["q2"]["tests"])
    assert "bad \\ud800 \\x1b]0;title\\x07" in strings_q2, strings_q2
    strings_q3 = "\n".join(t["report"] for t in strings["questions"]["q3"]["tests"])
    assert "West\\ud800" in strings_q3, strings_q3
    assert grades["linked"] == ("0", "0", "0")
    assert "symbolic link" in rows["linked"]["error"]

    printed = records["attack_everything"]["import_report"]
    outcomes = _outcomes(printed)
    assert len(outcomes) == 20, printed
    through = {n for n, outcome in outcomes.items() if outcome == "SUCCEEDED"}
    if weak:
        # Another submission's copy can be read only while it is being graded: timing decides.
        assert GETS_THROUGH_WITHOUT_LANDLOCK - {"read-others"} <= through, printed
        assert through <= GETS_THROUGH_WITHOUT_LANDLOCK, printed
    elif records["attack_everything"]["protections"]["answers_hidden_by"] == ["permissions"]:
        # File permissions alone: what every user may write (a 0666 file left anywhere)
        # the submission may write too; the answers and the grader's files stay out of reach.
        assert through == {"write-canary"}, printed
    else:
        assert through == set(), printed
    assert all(o.startswith("blocked (") for n, o in outcomes.items() if n not in through)
    assert "\x1b" not in printed and "| \\x1b[2J\\x1b[HTotal: 25/25" in printed
    privileges = records["attack_privileges"]["import_report"]
    outcomes = _outcomes(privileges)
    assert len(outcomes) == 10, privileges
    through = {n for n, outcome in outcomes.items() if outcome == "SUCCEEDED"}
    if setting.shared_uid:
        # Already uid 0 of its namespace (the grader's), so setresuid(0) changes nothing; it
        # holds no capability all the same (checked below).
        assert through == {"become-root"}, privileges
    else:
        assert through == (PRIVILEGES_WITHOUT_LANDLOCK if weak else set()), privileges
    if not weak:
        # What the kernel says the submission's process holds: nothing, as another user.
        status = privileges.split("STATUS ", 1)[1].splitlines()[0]
        # Root in process mode keeps CAP_DAC_READ_SEARCH where the interpreter is under
        # /root and Landlock decides the reads; everywhere else, nothing at all.
        read_search = setting.runner == "root" and "namespaces" not in setting.flags
        allowed = {"0000000000000000", "0000000000000004"} if read_search else {"0" * 16}
        for field in ("CapInh", "CapAmb"):
            assert f"'{field}': '0000000000000000'" in status, status
        for field in ("CapPrm", "CapEff"):
            assert status.split(f"'{field}': '", 1)[1][:16] in allowed, status
        # (The line is a dict's repr: a tab shows as a backslash and a t.)
        assert ("'Uid': '0\\t" in status) == setting.shared_uid, status
        assert "'NoNewPrivs': '1'" in status, status
        assert "'Seccomp': '2'" in status, status
    stolen = records["attack_thief"]["import_report"]
    assert stolen.count("SUCCEEDED" if weak else ": blocked (") == 4, stolen
    junk = "\n".join(t["report"] for t in records["attack_junk_reply"]["questions"]["q2"]["tests"])
    assert "a reply of 33554432 bytes announced; the limit is 4194304" in junk
    protections = records["attack_everything"]["protections"]
    assert protections["answers_hidden"] is not weak
    assert protections["seccomp"] is True and protections["no_new_privs"] is True
    assert protections["no_capabilities"] is not weak
    assert protections["grader_unreachable"] is True
    assert protections["writes_contained"] is True
    # Seccomp refuses new files exactly where neither namespaces nor Landlock confine writes.
    expected_blocked = protections["isolation"] == "process" and protections["landlock"] == 0
    assert protections["new_files_blocked"] is expected_blocked
    if weak:
        assert "read the test answers" in records["attack_everything"]["warning"]
        # The report names what it grades first; the warning comes next.
        heading, warning = done.stdout.splitlines()[:2]
        assert (
            heading
            == f"Grading multiAgents.py ({submissions}/*/multiAgents.py) against suite ({suite})"
        )
        assert warning.startswith("WARNING: student code could ")
    else:
        assert records["attack_everything"]["warning"] is None
    if setting.shared_uid:
        assert protections["separate_uid"] is False and protections["own_uid"] is True
        assert protections["uids_mapped"] is False and protections["pid_namespace"] is True
    elif setting.runner != "unprivileged":
        assert protections["separate_uid"] is True
        # Every submission ran as a uid of its own.
        uids = {r["protections"]["uid"] for r in records.values() if r.get("protections")}
        assert len(uids) == len(records) - 1  # the symlinked one never ran
    else:
        assert protections["own_uid"] is True and protections["landlock_scopes"] is True

    # Nothing outside the submissions' scratch folders changed, and nothing outlived the run.
    time.sleep(0.5)
    if not weak:
        locked_only = protections["answers_hidden_by"] == ["permissions"]
        assert (canary.read_text() == "original") != locked_only
        assert _digest(suite) == watched["suite"]
    assert _digest(project) == watched["project"]
    assert not os.path.exists(f"/dev/{devname}")
    # Nothing left where anyone may write: the submissions' writes stayed in their scratch.
    assert list(shared.iterdir()) == []
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        assert not os.path.lexists(os.path.join(folder, f"{devname}-left")), folder
    assert not _queue_exists(f"/{devname}-moves")
    with open("/proc/sys/kernel/core_pattern") as handle:
        assert handle.read() == core_pattern
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()
    assert not forged.exists()
    assert list(staging.iterdir()) == []
    assert _processes_mentioning(str(staging)) == []
    assert _sysv_segments() == segments


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
    for isolation in ["process", *(["namespaces"] if probe("namespaces") else [])]:
        grader = subprocess.Popen(
            batch_command(suite, submissions, arena / "grades", 60, "--isolation", isolation),
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
