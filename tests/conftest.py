"""Shared test fixtures."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: CS188's data, beside the checkout; tests that need it skip when it is absent.
BERKELEY = ROOT.parent / "shared" / "berkeley"


@pytest.fixture
def berkeley() -> Path:
    if not BERKELEY.is_dir():
        pytest.skip("../shared/berkeley (CS188's data) is not beside the checkout")
    return BERKELEY


@pytest.fixture
def arena(request: pytest.FixtureRequest) -> Iterator[Path]:
    """A folder every user may enter (tmp_path is root's alone, and the graders under test
    run their students as other uids), removed afterwards."""
    name = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    base = Path(tempfile.mkdtemp(prefix=f"pacman-{name}-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def _checkout_state() -> tuple[dict[str, int], str] | None:
    """The checkout's file modes (every tracked file and every folder holding one) and its
    ``git status``; None where the checkout is not a git work tree of its own."""
    git = shutil.which("git")
    if git is None:
        return None

    def ask(*args: str) -> str | None:
        done = subprocess.run([git, "-C", str(ROOT), *args], capture_output=True, text=True)
        return done.stdout if done.returncode == 0 else None

    top = ask("rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != ROOT:
        return None
    listed, status = ask("ls-files", "-z"), ask("status", "--porcelain", "--ignored=no")
    if listed is None or status is None:
        return None
    paths = {ROOT}
    for name in filter(None, listed.split("\0")):
        path = ROOT / name
        paths.add(path)
        paths.update(path.parents[: len(Path(name).parts) - 1])
    modes = {}
    for path in paths:
        try:
            modes[str(path.relative_to(ROOT))] = stat.S_IMODE(os.lstat(path).st_mode)
        except FileNotFoundError:
            continue  # a tracked file deleted before the run: git status shows it
    return modes, status


@pytest.fixture(scope="session", autouse=True)
def checkout_left_alone() -> Iterator[None]:
    """Tests write only under temporary folders: the session fails if the checkout's file
    modes or its ``git status`` differ at the end from what they were at the start."""
    before = _checkout_state()
    yield
    if before is None:
        return
    after = _checkout_state()
    assert after is not None
    changed = [
        f"{name}: {oct(mode)} -> {oct(after[0][name])}"
        for name, mode in sorted(before[0].items())
        if name in after[0] and after[0][name] != mode
    ]
    if before[1] != after[1]:
        changed.append(f"git status was:\n{before[1]}now:\n{after[1]}")
    if changed:
        pytest.fail("the test session changed the checkout:\n" + "\n".join(changed[:40]))
