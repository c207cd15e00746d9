"""Reader and writer for CS188's test-file format (``CONFIG``, ``*.test``, ``*.solution``).

The format, line by line:

- ``key: "value"``: one value; everything from the first quote to the last
  quote on the line is kept, inner quotes included.
- ``key: \"\"\"`` then lines up to a line holding only ``\"\"\"``: a block,
  kept verbatim (leading spaces and all), lines joined by ``\\n``.
- blank lines are skipped; ``#`` starts a comment on any line outside a block
  and after the closing quote (a ``#`` inside quotes is part of the value,
  and such a trailing comment may not itself hold a quote).

A repeated key keeps its last value, as CS188 does. Anything else is a
:class:`TestFileError` naming the file and the line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from pacman.errors import PacmanError

__all__ = ["TestFile", "TestFileError", "format_test_file", "read_test_file", "write_test_file"]

_KEY = r"(?P<key>[^\s:#\"][^:#\"]*?)"
_BLOCK_START = re.compile(rf'^\s*{_KEY}\s*:\s*"""\s*(?:#.*)?$')
_VALUE = re.compile(rf'^\s*{_KEY}\s*:\s*"(?P<value>.*)"\s*(?:#[^"]*)?$')
_BLOCK_END = re.compile(r'^\s*"""\s*$')


class TestFileError(PacmanError):
    """A test, solution or CONFIG file is malformed or missing; names file and line."""

    __test__ = False  # not a pytest test class


class TestFile(dict[str, Any]):
    """The ``key -> value`` pairs of one file, plus where each key was found.

    It is a plain ``dict[str, str]``; ``path`` and ``line_of(key)`` let later
    error messages point back at the file.
    """

    __test__ = False

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.lines: dict[str, int] = {}

    def line_of(self, key: str) -> int | None:
        """The 1-based line where ``key`` was (last) defined, if it was."""
        return self.lines.get(key)

    def where(self, key: str | None = None) -> str:
        """``path`` or ``path line N`` for messages."""
        line = self.lines.get(key) if key is not None else None
        return f"{self.path} line {line}" if line else self.path


def parse_test_text(text: str, path: str = "<text>") -> TestFile:
    """Parse the text of a test, solution or CONFIG file."""
    result = TestFile(path)
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        number = i + 1
        i += 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        block = _BLOCK_START.match(line)
        if block:
            key = block.group("key").strip()
            body: list[str] = []
            while True:
                if i >= len(lines):
                    raise TestFileError(
                        f'{path} line {number}: block "{key}" is never closed (expected a line """)'
                    )
                inner = lines[i]
                i += 1
                if _BLOCK_END.match(inner):
                    break
                body.append(inner)
            result[key] = "\n".join(body)
            result.lines[key] = number
            continue
        value = _VALUE.match(line)
        if value:
            key = value.group("key").strip()
            result[key] = value.group("value")
            result.lines[key] = number
            continue
        raise TestFileError(
            f'{path} line {number}: expected key: "value" or key: """ but found {stripped[:60]!r}'
        )
    return result


def read_test_file(path: str | os.PathLike[str]) -> TestFile:
    """Read a ``CONFIG``, ``.test`` or ``.solution`` file into a ``dict[str, str]``."""
    name = os.fspath(path)
    try:
        with open(name, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise TestFileError(f"{name}: no such file") from None
    except UnicodeDecodeError as error:
        raise TestFileError(
            f"{name}: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from None
    except OSError as error:
        raise TestFileError(f"{name}: cannot read ({error.strerror})") from None
    return parse_test_text(text, name)


def format_test_file(
    items: Mapping[str, object] | Iterable[tuple[str, object]], header: str = ""
) -> str:
    """The text of a file holding ``items`` in order; multi-line values become blocks.

    ``header`` lines become ``#`` comments at the top. Values may not contain a
    line that is only ``\"\"\"`` (it would end the block early).
    """
    pairs = items.items() if isinstance(items, Mapping) else items
    out = [f"# {line}".rstrip() for line in header.splitlines()]
    for key, raw in pairs:
        value = str(raw)
        if "\n" in value or '"' in value:
            if any(_BLOCK_END.match(line) for line in value.splitlines()):
                raise TestFileError(f'value of "{key}" holds a line """ and cannot be written')
            out.append(f'{key}: """')
            out.extend(value.splitlines())
            out.append('"""')
        else:
            out.append(f'{key}: "{value}"')
    return "\n".join(out) + "\n"


def write_test_file(
    path: str | os.PathLike[str],
    items: Mapping[str, object] | Iterable[tuple[str, object]],
    header: str = "",
) -> None:
    """Write ``items`` in the format :func:`read_test_file` reads."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(format_test_file(items, header))
