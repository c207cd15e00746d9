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


TEST_FILE = re.compile(r"--test\s+(test_cases/\S+?\.test)\b")


def test_every_test_file_a_command_in_the_docs_or_help_names_is_in_this_project() -> None:
    from pacman.tree_cli import build_parser

    texts = [(ROOT / doc).read_text(encoding="utf-8") for doc in PROSE]
    texts.append(build_parser().format_help().replace("\n", " "))
    named = sorted({path for text in texts for path in TEST_FILE.findall(text)})
    assert "test_cases/q3/1-prune-at-min.test" in named  # the pattern still reads them
    assert [path for path in named if not (ROOT / path).is_file()] == []
