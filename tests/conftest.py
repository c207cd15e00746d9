"""Shared test fixtures."""

from __future__ import annotations

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
