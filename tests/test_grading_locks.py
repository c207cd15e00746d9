"""``--lock-answers`` leaves files as it found them: the modes it changed are put back when
grading ends (normally, on SIGTERM), the submission's own folder is never touched (it may
be a read-only mount), and a lock that cannot be applied is named in the refusal."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from grading_settings import in_setting, project_copy, python_with_tqdm
from grading_submissions import HONEST

from pacman.sandbox.config import SandboxConfig
from pacman.sandbox.mounts import lock_copies, make_worker_policy, restore_locks
from pacman.sandbox.policy import Machine, make_policy

needs_docker_setting = pytest.mark.skipif(
    not hasattr(os, "geteuid")
    or os.geteuid() != 0
    or not (shutil.which("unshare") and shutil.which("setpriv")),
    reason="Docker's capabilities are played as root with unshare and setpriv (util-linux)",
)


def _modes(*folders: Path) -> dict[str, int]:
    """Every path's permission bits under ``folders`` (the folders included)."""
    found = {}
    for folder in folders:
        for path in [folder, *folder.rglob("*")]:
            found[str(path)] = stat.S_IMODE(os.lstat(path).st_mode)
    return found


def test_locks_are_put_back_as_they_were(tmp_path):
    project, suite = tmp_path / "project", tmp_path / "course" / "test_cases"
    for folder in (project / "tests", project / "agents", suite):
        folder.mkdir(parents=True)
        (folder / "x.py").write_text("")
    (project / "tests").chmod(0o751)
    machine = Machine(
        project_roots=(str(project),),
        running_root=str(project),
        prefixes=(sys.prefix,),
        layouts=str(project / "layouts"),
    )
    policy = make_policy(
        machine, student=True, code_dir=None, deny=[str(suite)], scratch=str(tmp_path / "s")
    )
    before = _modes(tmp_path)
    assert lock_copies(policy) == []
    locked = _modes(tmp_path)
    changed = {path for path in before if before[path] != locked[path]}
    assert changed == {str(suite), str(project / "tests"), str(project / "agents")}
    assert {locked[path] for path in changed} == {0o700}
    restore_locks()
    assert _modes(tmp_path) == before


def test_a_locked_worker_leaves_the_submission_folder_to_other_walls(tmp_path):
    """With permissions as the wall, the submission as handed in is neither locked nor a
    canary (the worker reads its staged copy); elsewhere it stays hidden."""
    submission, suite = str(tmp_path / "submission"), str(tmp_path / "suite")
    config = SandboxConfig(deny=[suite, submission], submission_folder=submission)
    locked = make_worker_policy(config, str(tmp_path / "scratch"), locked=True)
    walled = make_worker_policy(config, str(tmp_path / "scratch"), locked=False)
    assert submission not in locked.answers and suite in locked.answers
    assert submission in walled.answers


def _docker_grading(arena: Path, *extra: str) -> tuple[list[str], Path, Path, dict[str, str]]:
    """The command grading an honest file as root with Docker's capabilities and no
    Landlock, answers locked by permissions, from a project copy a fresh interpreter sees
    alone (not the test's own editable install); and the project, the submission, the env."""
    project = project_copy(arena)
    submission = arena / "submission"
    submission.mkdir()
    shutil.copy(HONEST, submission / "multiAgents.py")
    python = str(python_with_tqdm(arena))
    staging = arena / "tmp"
    staging.mkdir()
    command = [
        python,
        str(project / "autograder.py"),
        *("--student-code", "multiAgents.py", "--code-directory", str(submission)),
        *("--test-directory", str(project / "test_cases"), "-q", "q2", "--mute"),
        *("--landlock-abi", "0", "--lock-answers", "--results", str(arena / "results.json")),
        *extra,
    ]
    needed = [sys.prefix, sys.base_prefix, os.path.dirname(sys.executable), str(project)]
    command = in_setting(command, [os.path.realpath(p) for p in needed], "docker")
    return command, project, submission, {**os.environ, "TMPDIR": str(staging)}


def _read_only(command: list[str], folder: Path) -> list[str]:
    """``command`` where ``folder`` is a read-only mount (as a container's volume may be)."""
    where = "'" + str(folder).replace("'", "'\\''") + "'"
    script = f'mount --bind {where} {where} && mount -o remount,bind,ro {where} && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "-"]


@needs_docker_setting
def test_docker_grading_with_locks_gives_full_marks_and_leaves_every_mode(arena):
    command, project, submission, env = _docker_grading(arena)
    before = _modes(project, submission)
    # The submission folder mounted read-only: nothing tries to change it.
    done = subprocess.run(
        _read_only(command, submission) + command,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((arena / "results.json").read_text())
    assert (results["score"], results["max_score"]) == (5, 5)
    assert results["protections"]["answers_hidden_by"] == ["permissions"]
    assert "Total: 5/5 (isolation: process, uid " in results["output"]
    assert _modes(project, submission) == before


@needs_docker_setting
def test_sigterm_during_locked_grading_puts_the_modes_back(arena):
    command, project, submission, env = _docker_grading(arena)
    before = _modes(project, submission)
    grader = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    deadline = time.monotonic() + 120
    while stat.S_IMODE(os.stat(project / "agents").st_mode) != 0o700:
        assert grader.poll() is None and time.monotonic() < deadline, grader.communicate()
        time.sleep(0.02)
    grader.send_signal(signal.SIGTERM)
    out, err = grader.communicate(timeout=120)
    assert grader.returncode == 128 + signal.SIGTERM, out + err
    assert err.endswith("autograder: interrupted\n"), err
    assert _modes(project, submission) == before


@needs_docker_setting
def test_a_lock_that_cannot_be_applied_is_named_in_the_refusal(arena):
    command, project, _, env = _docker_grading(arena)
    suite = project / "test_cases"
    done = subprocess.run(
        _read_only(command, suite) + command, capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(
        f"autograder: refusing to grade with --results: --lock-answers could not lock "
        f"{suite} (Read-only file system), so student code could read the test answers ("
    ), done.stderr
