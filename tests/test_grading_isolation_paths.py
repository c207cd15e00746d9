"""Student workers start whatever folder the interpreter and the project live in.

The namespaces and bwrap sandboxes give the worker a private, empty ``/tmp``;
an interpreter (a virtualenv) or a checkout under ``/tmp``, as in a CI clone,
must still be reachable inside, read-only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from pacman.sandbox.isolation import probe

ROOT = Path(__file__).resolve().parents[1]
TEST = ROOT / "test_cases" / "q2" / "1-one-ghost-depth1"


@pytest.fixture
def under_tmp() -> Iterator[Path]:
    """A private folder in /tmp itself, wherever TMPDIR points: /tmp is what the sandboxes
    replace with a private one, so that is where the interpreter must be."""
    if not (os.path.isdir("/tmp") and os.access("/tmp", os.W_OK | os.X_OK)):
        pytest.skip("/tmp is not a folder this user may write")
    folder = Path(tempfile.mkdtemp(prefix="pacman-venv-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("mode", ["namespaces", "bwrap", "process"])
def test_a_worker_starts_from_a_virtualenv_under_tmp(under_tmp, mode):
    if mode != "process" and not probe(mode):
        pytest.skip(f"{mode} isolation does not work on this machine")
    env_dir = under_tmp / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    boot = "import sys; sys.path.insert(0, sys.argv[1]); from pacman.grade_cli import main; sys.exit(main(sys.argv[2:]))"
    done = subprocess.run(
        [str(python), "-c", boot, str(ROOT), "--isolation", mode, "-t", str(TEST), "--mute"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "*** PASS: " in done.stdout and "could not start" not in done.stderr
    assert sys.prefix != str(env_dir)  # the grader really ran from the other interpreter
