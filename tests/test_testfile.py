"""The CS188 test-file reader: values, blocks, comments, errors with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pacman.errors import PacmanError
from pacman.testfile import (
    TestFileError,
    format_test_file,
    parse_test_text,
    read_test_file,
    write_test_file,
)

BERKELEY = Path(__file__).resolve().parents[2] / "shared" / "berkeley" / "test_cases"


def test_values_blocks_and_comments():
    text = (
        "# a comment\n"
        'class: "GraphGameTreeTest"\n'
        '  depth:   "3"   # trailing comment\n'
        "\n"
        'quote: "say "hi" # not a comment"\n'
        'diagram: """\n'
        "   root\n"
        "  /    \\\n"
        "# kept: inside a block\n"
        "\n"
        " A   B\n"
        '"""\n'
        'empty: ""\n'
    )
    parsed = parse_test_text(text, "x.test")
    assert dict(parsed) == {
        "class": "GraphGameTreeTest",
        "depth": "3",
        "quote": 'say "hi" # not a comment',
        "diagram": "   root\n  /    \\\n# kept: inside a block\n\n A   B",
        "empty": "",
    }
    assert parsed.line_of("diagram") == 6
    assert parsed.where("depth") == "x.test line 3"


def test_repeated_key_keeps_last_value():
    assert parse_test_text('a: "1"\na: "2"\n')["a"] == "2"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('a: "1"\nb: 2\n', 'x.test line 2: expected key: "value" or key: """ but found \'b: 2\''),
        (
            'a: "1"\n\nb: """\nline\n',
            'x.test line 3: block "b" is never closed (expected a line """)',
        ),
        (
            "just words\n",
            'x.test line 1: expected key: "value" or key: """ but found \'just words\'',
        ),
        (
            'a: "unclosed\n',
            'x.test line 1: expected key: "value" or key: """ but found \'a: "unclosed\'',
        ),
    ],
)
def test_errors_name_file_and_line(text, message):
    with pytest.raises(TestFileError) as caught:
        parse_test_text(text, "x.test")
    assert str(caught.value) == message
    assert isinstance(caught.value, PacmanError)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(TestFileError, match=r"nope\.test: no such file$"):
        read_test_file(tmp_path / "nope.test")
    binary = tmp_path / "bin.test"
    binary.write_bytes(b'a: "\xff"\n')
    with pytest.raises(TestFileError, match=r"bin\.test: not UTF-8 text"):
        read_test_file(binary)


def test_round_trip(tmp_path):
    items = {"action": "pacLeft", "generated": "A B", "block": "x\n  y", "q": 'a "b" # c'}
    path = tmp_path / "out.solution"
    write_test_file(path, items, header="Generated.\nSecond line.")
    text = path.read_text()
    assert text.startswith('# Generated.\n# Second line.\naction: "pacLeft"\n')
    assert dict(read_test_file(path)) == items
    with pytest.raises(TestFileError):
        format_test_file({"bad": 'a\n"""\nb'})


@pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")
def test_reads_every_cs188_file():
    files = [p for p in BERKELEY.rglob("*") if p.is_file()]
    assert len(files) == 182
    for path in files:
        read_test_file(path)
    tree = read_test_file(BERKELEY / "q2" / "0-small-tree.test")
    assert tree["successors"].splitlines()[0] == "root pacLeft minLeft"
    assert tree["diagram"].splitlines()[1] == "       /    \\"
    assert read_test_file(BERKELEY / "CONFIG") == {"order": "q1 q2 q3 q4 q5"}
    assert read_test_file(BERKELEY / "q1" / "grade-agent.solution") == {}
    game = read_test_file(BERKELEY / "q2" / "8-pacman-game.solution")
    assert (
        game["optimalActions"].splitlines()[0] == '[[["West", "East"], 59], [["West", "East"], 35]]'
    )
