"""Settings that used to crash the grader or blame students: user namespaces (rootless
containers) and a grader its workers cannot read. In each, grading an honest file, a batch
and a sandboxed game either works (full marks, a row per folder) or is refused in one line
with exit 2, before anything is graded; never a traceback, never "Error in your code".
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from grading_settings import GRADER_UID, in_setting
from grading_submissions import BERKELEY, HONEST, MINI, make_mini

from pacman.sandbox.ids import submission_ids_in
from pacman.sandbox.isolation import probe

REPO = Path(__file__).resolve().parents[1]
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="user namespaces are made as root"
)
needs_berkeley = pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")
needs_unshare = pytest.mark.skipif(not shutil.which("unshare"), reason="util-linux is needed")


def test_submission_ids_come_from_what_the_user_namespace_maps():
    everything = [range(0, 2**32 - 1)]
    assert submission_ids_in(everything, everything) == range(2_100_000_000, 2_100_000_000 + 2**24)
    # Root alone (unshare --user --map-root-user): none to give.
    assert submission_ids_in([range(0, 1)], [range(0, 1)]) == range(0)
    # Rootless Podman: root and 65,536 subordinate ids from 1 up, clear of accounts and nobody.
    podman = [range(0, 1), range(1, 65537)]
    assert submission_ids_in(podman, podman) == range(1000, 65534)
    # Only ids mapped for groups as well as users; the larger of the two sides of nobody.
    assert submission_ids_in([range(0, 200_000)], [range(60_000, 200_000)]) == range(65536, 200_000)


def _three_jobs(arena: Path) -> dict[str, list[str]]:
    """One honest file graded, a batch of two, and a sandboxed game: the commands."""
    suite = make_mini(arena, MINI)
    single = arena / "single"
    single.mkdir()
    shutil.copy(HONEST, single / "multiAgents.py")
    batch = arena / "submissions"
    for name in ("first", "second"):
        (batch / name).mkdir(parents=True)
        shutil.copy(HONEST, batch / name / "multiAgents.py")
    grader = [sys.executable, str(REPO / "autograder.py"), "--test-directory", str(suite)]
    game = [sys.executable, "-m", "pacman", "--isolation", "sandbox", "-l", "smallClassic"]
    return {
        "single": [*grader, "--code-directory", str(single), "--results", str(arena / "r.json")],
        "batch": [*grader, "--submissions", str(batch), "--summary", str(arena / "out" / "g")],
        "game": [*game, "-p", f"{single / 'multiAgents.py'}:ReflexAgent", "-q", "-n", "2"],
    }


def _check(name: str, done: subprocess.CompletedProcess[str], arena: Path, strict: bool) -> None:
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-3000:]
    if done.returncode == 2 and not strict:
        assert done.stderr.count("\n") == 1 and " refusing to grade" in done.stderr, done.stderr
        return
    assert done.returncode == 0, (name, done.stderr[-3000:])
    if name == "single":
        lines = [line for line in done.stdout.splitlines() if line.strip()]
        assert lines[-1] == "Total: 15/15", done.stdout[-2000:]
    elif name == "batch":
        with open(arena / "out" / "g.csv", newline="") as handle:
            rows = list(csv.DictReader(handle))
        assert [(r["submission"], r["total"]) for r in rows] == [("first", "15"), ("second", "15")]
    else:
        assert done.stdout.splitlines()[-1].startswith("Record:"), done.stdout


@needs_root
@needs_berkeley
@needs_unshare
@pytest.mark.parametrize("runner", ["unshare", "userns", "userns-range"])
def test_user_namespaces_grade_or_refuse_in_one_line(arena, runner):
    """``unshare --user --map-root-user`` as root, the same run by an ordinary user (root
    alone mapped, to an ordinary uid), and rootless Podman's maps (subordinate ids too)."""
    # Where namespaces work for root, they work in a user namespace too: grading must.
    strict = probe("namespaces")
    needed = [sys.prefix, sys.base_prefix, os.path.dirname(sys.executable), str(REPO)]
    needed = [os.path.realpath(path) for path in needed]
    (arena / "out").mkdir()
    if runner != "unshare":
        for path in (arena, arena / "out"):
            os.chown(path, GRADER_UID, GRADER_UID)  # the namespace's root, outside
    for name, command in _three_jobs(arena).items():
        if runner == "unshare":
            command = ["unshare", "--user", "--map-root-user", *command]
        else:
            command = in_setting(command, needed, runner)
        env = {**os.environ, "TMPDIR": str(arena)}
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=240, cwd=arena, env=env
        )
        _check(name, done, arena, strict)


@needs_root
@needs_berkeley
@needs_unshare
def test_a_grader_its_workers_cannot_read_refuses_naming_the_path(arena):
    """A grader installed in a folder only its owner may enter, run with Docker's default
    capabilities (its workers are other users, without CAP_DAC_READ_SEARCH): refused in one
    line naming that folder, never graded as "Error in your code"."""
    private = arena / "private"
    private.mkdir(mode=0o700)
    project = private / "project"
    for name in ("pacman", "agents", "layouts", "test_cases"):
        shutil.copytree(REPO / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "autograder.py", project / "autograder.py")
    jobs = _three_jobs(arena)
    needed = [sys.prefix, sys.base_prefix, os.path.dirname(sys.executable)]
    needed = [os.path.realpath(path) for path in needed]
    for name in ("single", "batch"):
        command = [jobs[name][0], str(project / "autograder.py"), *jobs[name][2:]]
        done = subprocess.run(
            in_setting(command, needed, "docker"), capture_output=True, text=True, timeout=240
        )
        assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
        assert done.stdout == "" and "Error in your code" not in done.stderr
        assert done.stderr == (
            "autograder: refusing to grade here: honest code cannot run in a student worker: "
            f"it cannot read {project}/pacman/layouts (Permission denied: {private} is closed "
            "to other users); install the grader where every user can read it (not in a "
            "private home folder), or run it as the user who owns that folder\n"
        )
