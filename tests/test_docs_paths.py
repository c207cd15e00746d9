"""The code maps in the docs name modules that exist, so a move cannot leave them stale."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAPS = ["docs/architecture.md", "CONTRIBUTING.md"]
PROSE = [*sorted(str(path.relative_to(ROOT)) for path in (ROOT / "docs").glob("*.md")), "README.md"]
MODULE_PATH = re.compile(r"\b((?:pacman|agents)/[\w/]*\w(?:\.py|/))")


@pytest.mark.parametrize("doc", MAPS + PROSE)
def test_every_module_path_a_doc_names_exists(doc: str) -> None:
    named = sorted(set(MODULE_PATH.findall((ROOT / doc).read_text(encoding="utf-8"))))
    missing = [path for path in named if not (ROOT / path).exists()]
    assert missing == []


@pytest.mark.parametrize("doc", MAPS)
def test_the_code_maps_still_match_the_pattern(doc: str) -> None:
    # Guards the test above: a map whose style the pattern misses would pass it unread.
    assert len(set(MODULE_PATH.findall((ROOT / doc).read_text(encoding="utf-8")))) >= 15
