"""The ``>>>`` examples in the modules' docstrings are run, so none of them drifts from the code."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Every module of the two packages whose text shows an example.
WITH_EXAMPLES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts)
    for package in ("pacman", "agents")
    for path in (ROOT / package).rglob("*.py")
    if ">>> " in path.read_text(encoding="utf-8")
)


def test_the_modules_with_examples_are_found():
    assert "agents.backup" in WITH_EXAMPLES and len(WITH_EXAMPLES) >= 5


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_hold(name):
    failed, tried = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failed == 0
