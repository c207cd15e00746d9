"""What a submission writes stays in its scratch folder, a classmate's full disk costs no one a
grade, the ghosts' secret is an answer, and a grader that cannot keep these promises says so
in one line (issue 33).

Each attack is graded in every setting it broke (tests/grading_settings.py makes them): root
with namespaces or process isolation, Docker's capabilities with and without Landlock, an
unprivileged grader, Docker's seccomp profile (no Landlock), and a container with every
capability dropped. They need root, and skip with a reason elsewhere.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from grading_settings import in_setting, project_copy, python_with_tqdm
from grading_submissions import AFTER_IMPORTS, BERKELEY, MINI, apply_changes, make_mini

from pacman.errors import UsageError
from pacman.grade_cli import parse
from pacman.sandbox.config import retried
from pacman.sandbox.isolation import probe
from pacman.sandbox.landlock import landlock_abi
from pacman.sandbox.mounts import choose_canaries, make_worker_policy
from pacman.sandbox.staging import make_worker_folder, short_of_room

REPO = Path(__file__).resolve().parents[1]
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="the settings are made as root (and as the users root switches to)",
)
needs_berkeley = pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")
needs_setpriv = pytest.mark.skipif(
    not (shutil.which("unshare") and shutil.which("setpriv")),
    reason="unshare and setpriv (util-linux) are needed to change the grader's setting",
)

#: Where each attack runs: (runner, flags).
SETTINGS = {
    "namespaces": ("root", ("--isolation", "namespaces")),
    "process": ("root", ("--isolation", "process")),
    "docker": ("docker", ()),
    "docker-no-landlock": ("docker", ("--landlock-abi", "0")),
    "docker-seccomp": ("docker-seccomp", ()),
    "unprivileged": ("unprivileged", ("--isolation", "process")),
}

#: At import: move or link what it can out of its scratch folder into the grader's TMPDIR
#: (open to all, as /tmp is) and a shared folder, the scratch folder itself included.
LEAVE_FILES = r"""import errno as _errno
import os as _os
import tempfile as _tempfile


def _attempt(name, act):
    try:
        act()
    except OSError as error:
        print(f"ATTACK {name}: blocked ({_errno.errorcode.get(error.errno, error.errno)})")
    else:
        print(f"ATTACK {name}: SUCCEEDED")


_scratch = _tempfile.gettempdir()
_kept = _os.path.join(_scratch, "kept")


def _make_and_move():
    with open(_kept, "w") as handle:
        handle.write("left behind")
    _os.rename(_kept, "@STAGES@/left-file")


_attempt("move-file", _make_and_move)
_attempt("link-file", lambda: _os.link(_kept, "@SHARED@/left-link"))
_attempt("rename-scratch", lambda: _os.rename(_scratch, "@STAGES@/left-scratch"))
_attempt("rename-scratch-shared", lambda: _os.rename(_scratch, "@SHARED@/left-scratch"))
_attempt("rename-its-folder", lambda: _os.rename(_os.path.dirname(_scratch), "@STAGES@/left"))
"""

#: At import: read the ghosts' secret where a course image keeps it, by its path and by a
#: search of the folders around it.
READ_SECRET = r"""import glob as _glob


def _read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError as error:
        return f"blocked ({type(error).__name__})"


print("ATTACK read-secret:", _read("@SECRET@"))
_found = [path for path in _glob.glob("/usr/src/*/*secret*") if "blocked" not in _read(path)]
print("ATTACK search-secret:", "SUCCEEDED" if _found else "blocked (nothing readable)")
"""

#: At import: fill the disk TMPDIR is on, and hold it while classmates are staged (taking
#: back whatever room comes free).
FILL_DISK = r"""import errno as _errno
import os as _os
import tempfile as _tempfile
import time as _time

_until, _number = _time.monotonic() + 8, 0
_handle = open(_os.path.join(_tempfile.gettempdir(), "junk0"), "ab", buffering=0)
while _time.monotonic() < _until:
    try:
        _handle.write(b"x" * (1 << 16))
    except OSError as _error:
        if _error.errno != _errno.EFBIG:  # the disk is full: take what comes free
            _time.sleep(0.001)
            continue
        _number += 1  # this file is as large as one may be: the next one
        _handle = open(_os.path.join(_tempfile.gettempdir(), f"junk{_number}"), "ab", buffering=0)
"""

#: Graded beside the filler, one after another: the later ones are staged once it filled the disk.
HONEST_CLASSMATES = ("b_honest", "c_honest", "d_honest")


def _submission(folder: Path, name: str, code: str = "") -> Path:
    """``folder`` holding the honest file, ``code`` run at its import."""
    folder.mkdir(parents=True)
    changes = [(None, AFTER_IMPORTS, AFTER_IMPORTS + code)] if code else []
    (folder / "multiAgents.py").write_text(apply_changes(name, "attacks at import", changes))
    return folder


def _outcomes(printed: str) -> dict[str, str]:
    return dict(re.findall(r"ATTACK ([\w-]+): ([^\n]*)", printed))


def _graded(
    arena: Path,
    runner: str,
    arguments: list[str],
    stages: Path,
    project: Path = REPO,
    python: str = sys.executable,
    **run: object,
) -> subprocess.CompletedProcess[str]:
    """``project``'s ``autograder.py arguments`` run by ``runner`` with TMPDIR ``stages``."""
    # The audit hook is a tripwire a submission can switch off: the kernel's walls must hold.
    command = [python, str(project / "autograder.py"), "--move-timeout", "2"]
    command += ["--no-audit-hook", *arguments]
    needed = [sys.prefix, sys.base_prefix, os.path.dirname(sys.executable), str(REPO)]
    command = in_setting(command, [os.path.realpath(p) for p in needed], runner)
    environment = {**os.environ, "TMPDIR": str(stages), **run.pop("env", {})}  # type: ignore[dict-item]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=300, env=environment, **run
    )


def _open_folder(path: Path) -> Path:
    """``path`` made as /tmp is: anyone may make files in it, and remove only their own."""
    path.mkdir()
    path.chmod(0o1777)
    return path


@pytest.fixture
def usr_folder() -> Iterator[Path]:
    """A folder under /usr/src, as a course image built the Docker way (``WORKDIR
    /usr/src/app``) has one: the policy lets workers read /usr. Removed afterwards."""
    os.makedirs("/usr/src", exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="pacman-course-", dir="/usr/src"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@needs_root
@needs_berkeley
@needs_setpriv
@pytest.mark.parametrize("name", list(SETTINGS))
def test_nothing_moves_or_links_out_of_the_scratch_folder(arena, name):
    """A submission that moves or links its files, or its scratch folder itself, into the
    grader's TMPDIR or a shared folder leaves nothing there: each attempt is refused."""
    runner, flags = SETTINGS[name]
    if "namespaces" in flags and not probe("namespaces"):
        pytest.skip("namespaces do not work on this machine")
    stages, shared = _open_folder(arena / "tmp"), _open_folder(arena / "shared")
    suite = make_mini(arena, {"q2": ["0-small-tree"]})
    code = LEAVE_FILES.replace("@STAGES@", str(stages)).replace("@SHARED@", str(shared))
    student = _submission(arena / "student", "leave_files", code)
    done = _graded(
        arena, runner, ["--test-directory", str(suite), "--code-directory", str(student), *flags],
        stages,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    outcomes = _outcomes(done.stdout)
    assert sorted(outcomes) == sorted(
        ["move-file", "link-file", "rename-scratch", "rename-scratch-shared", "rename-its-folder"]
    ), done.stdout
    assert all(outcome.startswith("blocked (") for outcome in outcomes.values()), outcomes
    assert "Total: 5/5" in done.stdout, done.stdout[-2000:]
    assert list(stages.iterdir()) == []
    assert list(shared.iterdir()) == []


@needs_root
@needs_berkeley
@needs_setpriv
@pytest.mark.parametrize("name", ["process", "docker"])
def test_a_classmate_filling_the_disk_costs_no_one_a_grade(arena, name):
    """TMPDIR on a 20 MB tmpfs, two submissions graded at once: one fills the disk at import
    and holds it; the honest classmates, staged while it does, are all graded in full. The filler is stopped, and its files go with it."""
    runner, flags = SETTINGS[name]
    disk = arena / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=20m,mode=1777", "tmpfs", str(disk)],
        capture_output=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        # The later classmates are staged while the disk is full (until the filler's worker
        # is stopped; before, until it was done).
        suite = make_mini(arena, MINI)
        submissions = arena / "submissions"
        _submission(submissions / "a_filler", "a_filler", FILL_DISK)
        for honest in HONEST_CLASSMATES:
            _submission(submissions / honest, honest)
        out = _open_folder(arena / "out")
        arguments = ["--test-directory", str(suite), "--submissions", str(submissions)]
        arguments += ["--summary", str(out / "grades"), "-j", "2", *flags]
        done = _graded(arena, runner, arguments, disk)
        assert done.returncode == 0, done.stderr[-3000:]
        with open(out / "grades.csv", newline="") as handle:
            rows = {row["submission"]: row for row in csv.DictReader(handle)}
        for honest in HONEST_CLASSMATES:
            marks = (rows[honest]["q2"], rows[honest]["q3"], rows[honest]["q4"])
            assert (marks, rows[honest]["error"]) == (("5", "5", "5"), ""), rows[honest]
        assert "filled the disk its scratch folder is on" in rows["a_filler"]["error"], rows
        assert (rows["a_filler"]["q2"], rows["a_filler"]["q3"], rows["a_filler"]["q4"]) == (
            ("0", "0", "0")
        )
        assert os.listdir(disk) == []
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


@needs_root
@needs_berkeley
@needs_setpriv
@pytest.mark.parametrize("name", ["namespaces", "process", "docker", "docker-no-landlock-locked"])
def test_the_secret_file_under_usr_is_an_answer(arena, usr_folder, name):
    """A course image keeps the ghosts' secret in /usr/src/app (Docker's WORKDIR), which
    workers may read as a system folder: passed as @FILE, it is hidden like the suite, by
    its path and from a search, and the proof's canaries include it. Without Landlock or
    namespaces (``--lock-answers``), file permissions hide it."""
    locked = name.endswith("-locked")
    runner, flags = SETTINGS[name.removesuffix("-locked")]
    if "namespaces" in flags and not probe("namespaces"):
        pytest.skip("namespaces do not work on this machine")
    secret = usr_folder / "secret.txt"
    secret.write_text("the ghosts' secret\n")
    secret.chmod(0o644)
    stages = _open_folder(arena / "tmp")
    suite = make_mini(arena, {"q2": ["0-small-tree"]})
    student = _submission(
        arena / "student", "read_secret", READ_SECRET.replace("@SECRET@", str(secret))
    )
    results = _open_folder(arena / "out") / "results.json"
    arguments = ["--test-directory", str(suite), "--code-directory", str(student)]
    arguments += ["--game-secret", f"@{secret}", "--results", str(results), *flags]
    project, python = REPO, sys.executable
    if locked:
        # Locks change every copy of the answers the grader can import from: a copy's, run by
        # an interpreter that sees that copy alone, never the checkout.
        project, python = project_copy(arena), str(python_with_tqdm(arena))
        arguments.append("--lock-answers")
    done = _graded(arena, runner, arguments, stages, project, python)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _outcomes(done.stdout) == {
        "read-secret": "blocked (PermissionError)",
        "search-secret": "blocked (nothing readable)",
    }, done.stdout
    protections = json.loads(results.read_text())["protections"]
    assert protections["answers_hidden"] is True, protections
    if locked:
        assert protections["answers_hidden_by"] == ["permissions"], protections
    assert "Total: 5/5" in done.stdout
    if not locked:
        assert stat.S_IMODE(secret.stat().st_mode) == 0o644  # hidden, not changed


def test_the_secret_file_is_a_canary(tmp_path):
    """``--game-secret @FILE`` and ``--seed @FILE`` name answers: each worker's policy hides
    the file, and the proof tries to open it."""
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret\n")
    _, options = parse(["--game-secret", f"@{secret}", "--isolation", "process"])
    assert options.game_secret == "s3cret"
    assert str(secret) in options.other_copies
    config = options.sandbox(staged=[], stage=None, hidden=[], uid=None, allow_weak=False)
    policy = make_worker_policy(config, str(tmp_path / "scratch"))
    assert str(secret) in policy.answers
    assert str(secret) in choose_canaries(policy.answers)
    seed = tmp_path / "seed.txt"
    seed.write_text("seed\n")
    _, options = parse(["--generate-suite", str(tmp_path / "new"), "--seed", f"@{seed}"])
    assert options.other_copies == (str(seed),)


def test_a_secret_on_the_command_line_is_refused_where_workers_read_proc(monkeypatch):
    """Process isolation without Landlock (no PID namespace): a launcher's copy of the
    command line is readable by student code, so TEXT is refused; @-, @FILE and the
    environment variable take the secret instead, and with Landlock TEXT is taken."""
    monkeypatch.delenv("PACMAN_GAME_SECRET", raising=False)
    weak = ["--isolation", "process", "--landlock-abi", "0"]
    with pytest.raises(UsageError) as refused:
        parse(["--game-secret", "s3cret", *weak])
    assert str(refused.value) == (
        "--game-secret TEXT: student code here could read it on the command line that started "
        "the grader (process isolation, no Landlock, no PID namespace); give it as @FILE, @- "
        "(standard input) or in $PACMAN_GAME_SECRET"
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO("from stdin\n"))
    assert parse(["--game-secret", "@-", *weak])[1].game_secret == "from stdin"
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    with pytest.raises(UsageError, match=r"^--game-secret @-: standard input is empty$"):
        parse(["--game-secret", "@-", *weak])
    monkeypatch.setenv("PACMAN_GAME_SECRET", " from the environment\n")
    assert parse(weak)[1].game_secret == "from the environment"
    assert parse([*weak, "--fresh-trees", "q2"])[1].fresh_trees == ("q2",)
    if landlock_abi() > 0:
        assert parse(["--game-secret", "s3cret", "--isolation", "process"])[1].game_secret == (
            "s3cret"
        )


@needs_root
@needs_berkeley
@needs_setpriv
def test_docker_seccomp_refuses_a_secret_on_the_command_line(arena):
    """Docker's seccomp profile leaves no Landlock and no namespaces: ``--game-secret TEXT``
    is refused in one line before anything runs; ``@-`` grades."""
    stages = _open_folder(arena / "tmp")
    suite = make_mini(arena, {"q2": ["0-small-tree"]})
    student = _submission(arena / "student", "honest")
    arguments = ["--test-directory", str(suite), "--code-directory", str(student)]
    done = _graded(arena, "docker-seccomp", [*arguments, "--game-secret", "s3cret"], stages)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(
        "autograder: --game-secret TEXT: student code here could read it"
    ), done.stderr
    done = _graded(
        arena, "docker-seccomp", [*arguments, "--game-secret", "@-"], stages, input="s3cret\n"
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Total: 5/5" in done.stdout
    assert list(stages.iterdir()) == []


#: The one line a root grader without capabilities says (``docker run --cap-drop ALL``).
NO_CAPABILITIES = (
    "autograder: refusing to grade: root here lacks CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER, "
    "CAP_KILL, CAP_SETGID, CAP_SETUID, which it needs to run each submission as a user of its "
    "own (a container started with --cap-drop ALL?); give them back (docker run --cap-add "
    "CHOWN --cap-add DAC_OVERRIDE --cap-add FOWNER --cap-add KILL --cap-add SETGID --cap-add "
    "SETUID) or run the grader as an ordinary user\n"
)


@needs_root
@needs_berkeley
@needs_setpriv
@pytest.mark.parametrize("what", ["one", "batch", "project-agents"])
def test_a_grader_without_capabilities_refuses_in_one_line(arena, what):
    """Root with every capability dropped: one line naming what is missing, exit 2, nothing
    graded or left behind (it failed in a traceback at os.chown, 0 points)."""
    stages = _open_folder(arena / "tmp")
    suite = make_mini(arena, {"q2": ["0-small-tree"]})
    submissions = arena / "submissions"
    student = _submission(submissions / "student", "honest")
    arguments = ["--test-directory", str(suite)]
    if what == "one":
        arguments += ["--code-directory", str(student)]
    elif what == "batch":
        out = _open_folder(arena / "out")
        arguments += ["--submissions", str(submissions), "--summary", str(out / "grades")]
    done = _graded(arena, "docker-no-caps", arguments, stages)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", NO_CAPABILITIES)
    assert list(stages.iterdir()) == []


@needs_root
def test_the_scratch_folder_sits_in_a_folder_of_the_graders(tmp_path, monkeypatch):
    """The worker's group may enter its folder; no one may list or change it but the grader;
    the scratch folder inside is the worker's alone."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder, scratch = make_worker_folder(1_990_000_123)
    try:
        info, inner = os.stat(folder), os.stat(scratch)
        assert (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid) == (0o710, 0, 1_990_000_123)
        assert (stat.S_IMODE(inner.st_mode), inner.st_uid) == (0o700, 1_990_000_123)
        assert os.path.dirname(scratch) == folder and os.path.dirname(folder) == str(tmp_path)
    finally:
        shutil.rmtree(folder)


def test_staging_waits_for_room_while_a_worker_holds_it(tmp_path, monkeypatch):
    """A full disk (ENOSPC, EDQUOT) is waited out while a worker's scratch folder holds more
    than a megabyte of it (that worker is about to be stopped); a disk too small for anyone,
    and any other error, fail at once."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    full = OSError(errno.ENOSPC, "No space left on device")
    assert short_of_room(full) is False  # no worker holds any of it
    hog = tmp_path / "pacman-worker-x" / "scratch"
    hog.mkdir(parents=True)
    (hog / "junk").write_bytes(b"x" * (2 << 20))
    assert short_of_room(full) is True
    assert short_of_room(OSError(errno.EDQUOT, "Disk quota exceeded")) is True
    assert short_of_room(OSError(errno.EACCES, "Permission denied")) is False
    calls = []

    def full_twice() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise full
        return "staged"

    assert retried(full_twice, short_of_room, 10.0) == "staged"
    assert len(calls) == 3
    (hog / "junk").unlink()
    calls.clear()

    def always_full() -> str:
        calls.append(1)
        raise full

    with pytest.raises(OSError) as failed:
        retried(always_full, short_of_room, 10.0)
    assert (failed.value.errno, len(calls)) == (errno.ENOSPC, 1)
