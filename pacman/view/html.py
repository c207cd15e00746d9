"""Self-contained HTML pages: one file, its data, style and script inline, nothing fetched.

A page opens from disk in any browser with no server and no network: no
``src=``/``href=`` to anything outside the file, no fonts or libraries loaded.
Data goes in a ``<script type="application/json">`` block (read with
:func:`embedded_data`), escaped so that nothing in it (a state's text, an
agent's name) can end the block or be read as markup.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

__all__ = ["embedded_data", "json_block", "page"]

_DATA_ID = re.compile(r'<script type="application/json" id="([\w-]+)">(.*?)</script>', re.S)


def json_block(element_id: str, data: Any) -> str:
    """``data`` as an inline JSON script block; ``<``, ``>`` and ``&`` are escaped as ``\\u003c``..."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, code)
    # U+2028/2029 end a line in older script parsers.
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def embedded_data(page_text: str, element_id: str) -> Any:
    """The data a page embedded with :func:`json_block` (for tests and tools)."""
    for found in _DATA_ID.finditer(page_text):
        if found.group(1) == element_id:
            return json.loads(found.group(2))
    raise KeyError(element_id)


def page(title: str, style: str, body: str, script: str) -> str:
    """A whole HTML document: ``body`` is markup (already escaped), ``script`` runs at the end."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{style}</style></head>\n"
        f"<body>{body}\n<script>{script}</script></body></html>\n"
    )
