"""Shared test fixtures."""

from __future__ import annotations

import shutil
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
