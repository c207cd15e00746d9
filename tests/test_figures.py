"""Every figure the docs quote names the command that measures it: an id of
``benchmarks/figures.py`` (which prints each figure with the machine's load beside it)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: How the docs name a figure's command: ``python benchmarks/figures.py ID``.
QUOTED = re.compile(r"benchmarks/figures\.py\s+([a-z0-9-]+)")
#: A load average quoted beside a figure: ``load 1.2``, ``load average 3.7 to 10.7``.
LOAD = re.compile(r"\bload(?: average)?(?: of| about| up to| at the end)? \d")


def _listed() -> set[str]:
    spec = importlib.util.spec_from_file_location("figures", ROOT / "benchmarks" / "figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return set(module.FIGURES)


def _paragraphs(path: Path) -> list[tuple[int, str]]:
    """Each paragraph (or table) of a Markdown file outside code blocks, with its first line."""
    found: list[tuple[int, str]] = []
    lines: list[str] = []
    fenced = False
    for number, line in enumerate([*path.read_text().splitlines(), ""], start=1):
        if line.startswith("```"):
            fenced = not fenced
        if fenced or line.startswith("```") or not line.strip():
            if lines:
                found.append((number - len(lines), "\n".join(lines)))
            lines = []
            continue
        lines.append(line)
    return found


def _quoted() -> dict[str, list[str]]:
    """Each id the docs quote, and where."""
    where: dict[str, list[str]] = {}
    for path in DOCS:
        text = path.read_text()
        for found in QUOTED.finditer(text):
            line = text.count("\n", 0, found.start()) + 1
            where.setdefault(found.group(1), []).append(f"{path.relative_to(ROOT)}:{line}")
    return where


def test_every_figure_the_docs_quote_is_in_the_script():
    quoted = _quoted()
    assert {name: places for name, places in quoted.items() if name not in _listed()} == {}


def test_every_figure_in_the_script_is_quoted():
    assert sorted(_listed() - set(_quoted())) == []


def test_every_load_the_docs_quote_names_its_figure():
    """A figure measured here is quoted with the load it was measured at; the paragraph (or
    table) quoting a load names the figure's id, so the figure can be measured again."""
    unnamed = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in DOCS
        for number, text in _paragraphs(path)
        if LOAD.search(text) and not QUOTED.search(text)
    ]
    assert unnamed == []
