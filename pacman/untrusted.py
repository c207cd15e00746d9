"""Text from submissions and from the file system, made safe once where it enters the grader.

A submission controls its exception messages, what it prints, the actions it returns and
the name of its folder; any of them may hold lone surrogates (``'\\ud800'``), bytes that
are not UTF-8 (a folder named ``a_Jos\\xe9`` arrives as ``'a_Jos\\udce9'``), terminal
escape sequences or a spreadsheet formula. Everything here returns plain printable text
that encodes as UTF-8, shows what was there, and obeys nothing: reports, JSON, CSV and the
terminal can then take it as it is.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

#: Characters shown escaped: C0 controls but newline and tab, DEL, C1 controls, and
#: surrogates (never valid alone; ``os.fsdecode`` turns undecodable bytes into U+DC80-U+DCFF).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_UNSAFE_IN_LINE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")

#: Characters of text a test may add to one report (its messages and the student's output).
REPORT_CHARS = 100_000

#: What makes a spreadsheet read a cell as a formula (OWASP's list for CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte carried by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if code > 0xFF:
        return f"\\u{code:04x}"
    return f"\\x{code:02x}"


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters cut]"


def text(value: object, limit: int | None = None) -> str:
    """Any value as safe text; newlines and tabs kept, other controls and surrogates escaped."""
    shown = _UNSAFE.sub(_escaped, value if isinstance(value, str) else str(value))
    return shown if limit is None else cut(shown, limit)


def line(value: object) -> str:
    """Safe text on one line (newlines escaped too): a name, a cell, a path."""
    return _UNSAFE_IN_LINE.sub(_escaped, value if isinstance(value, str) else str(value))


def name(raw: str | bytes) -> str:
    """A file or folder name as shown: not UTF-8, controls and escapes shown escaped."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "surrogateescape")
    return line(raw)


def data(value: Any) -> Any:
    """A decoded JSON value (a worker's reply) with every string, keys included, made safe."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, list):
        return [data(item) for item in value]
    if isinstance(value, dict):
        return {text(key): data(item) for key, item in value.items()}
    return value


def spreadsheet_cell(value: object) -> str:
    """A CSV cell a spreadsheet shows as text: one safe line, never a formula."""
    shown = line(value)
    return "'" + shown if shown.startswith(_FORMULA_START) else shown


def csv_row(cells: list[Any]) -> str:
    """One CSV line a spreadsheet opens safely: text as :func:`spreadsheet_cell` shows it,
    numbers as numbers (a negative mean score is one, not a formula)."""
    text = io.StringIO()
    csv.writer(text).writerow(
        [spreadsheet_cell(cell) if isinstance(cell, str) else cell for cell in cells]
    )
    return text.getvalue()
