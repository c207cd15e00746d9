"""Layouts found by name: a bundled maze (``mediumClassic``), a file, or a ``random:`` spec
for a generated board. The text format itself is :mod:`pacman.layout_text`'s; generated
boards are :mod:`pacman.mazegen`'s, which stands on the format alone, so neither imports this
module and the names resolve here, above both.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from pacman.errors import LayoutError
from pacman.layout_text import Layout, Position, parse_layout, playable
from pacman.mazegen import PREFIX, load_spec

__all__ = [
    "Layout",
    "Position",
    "bundled_layout_dir",
    "layout_names",
    "load_layout",
    "parse_layout",
    "playable",
]


def bundled_layout_dir() -> Path:
    """Where the layouts shipped with the project live (wheel or checkout)."""
    here = Path(__file__).resolve().parent
    inside = here / "layouts"
    return inside if inside.is_dir() else here.parent / "layouts"


def layout_names() -> list[str]:
    """Names of the bundled layouts."""
    return sorted(path.stem for path in bundled_layout_dir().glob("*.lay"))


def load_layout(name_or_path: str | os.PathLike[str]) -> Layout:
    """Load a layout by bundled name (``mediumClassic``), file path or ``random:`` spec."""
    text_name = str(name_or_path)
    if text_name.startswith(PREFIX):
        return load_spec(text_name)
    # (file, name the layout is known by): a path keeps its path, a bare name its stem.
    candidates = [(Path(text_name), text_name)]
    if not text_name.endswith(".lay"):
        candidates.append((Path(text_name + ".lay"), text_name))
    if os.sep not in text_name and "/" not in text_name:
        stem = text_name.removesuffix(".lay")
        for folder in (Path("layouts"), bundled_layout_dir()):
            candidates.append((folder / f"{stem}.lay", stem))
    for path, name in candidates:
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise LayoutError(f"{path}: cannot read layout ({error})") from None
            return parse_layout(text, name=name, source=str(path))
    directory = next((path for path, _ in candidates[:2] if path.is_dir()), None)
    if directory is not None:
        raise LayoutError(f"layout {text_name!r}: {directory} is a folder, not a layout file")
    close = difflib.get_close_matches(text_name, layout_names(), n=3, cutoff=0.5)
    hint = (
        f"; did you mean {', '.join(close)}?"
        if close
        else f"; known layouts: {', '.join(layout_names())}"
    )
    raise LayoutError(f"unknown layout {text_name!r} (no such name or file){hint}")
