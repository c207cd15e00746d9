"""Layouts: the bundled ones parse, and each kind of bad file names its place."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from short_games import ROOT

from pacman.errors import LayoutError
from pacman.layout import bundled_layout_dir, layout_names, load_layout, parse_layout

# name: (width, height, ghosts, food, capsules)
BUNDLED = {
    "capsuleClassic": (19, 7, 3, 23, 3),
    "contestClassic": (20, 9, 3, 69, 6),
    "mediumClassic": (20, 11, 2, 97, 2),
    "minimaxClassic": (9, 5, 3, 2, 0),
    "openClassic": (25, 9, 1, 86, 1),
    "originalClassic": (28, 27, 4, 229, 4),
    "powerClassic": (20, 7, 4, 53, 8),
    "smallClassic": (20, 7, 2, 55, 2),
    "testClassic": (5, 10, 1, 8, 0),
    "trappedClassic": (8, 5, 2, 4, 0),
    "trickyClassic": (20, 13, 4, 114, 6),
}


def test_the_eleven_cs188_layouts_are_bundled():
    assert layout_names() == sorted(BUNDLED)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_layout_parses_with_its_shape(name):
    layout = load_layout(name)
    counts = (
        layout.width,
        layout.height,
        layout.num_ghosts,
        len(layout.food_positions),
        len(layout.capsules),
    )
    assert counts == BUNDLED[name]
    assert layout.name == name


def test_bundled_layouts_match_cs188_data_except_the_fixed_ragged_row(berkeley):
    for name in BUNDLED:
        ours = (bundled_layout_dir() / f"{name}.lay").read_text().splitlines()
        theirs = [
            line.strip() for line in (berkeley / "layouts" / f"{name}.lay").read_text().splitlines()
        ]
        if name == "capsuleClassic":
            assert theirs[-1] == ours[-1] + "%"  # CS188's extra character, ignored by CS188 itself
            theirs[-1] = ours[-1]
        assert ours == theirs


def test_layouts_load_by_path_too(tmp_path):
    path = tmp_path / "tiny.lay"
    path.write_text("%%%%\n%P.%\n%%%%\n")
    assert load_layout(str(path)).food_positions == ((2, 1),)
    assert load_layout(str(tmp_path / "tiny")).width == 4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "%%%%\n%P.\n%%%%",
            r"bad\.lay line 2 column 4: row is 3 wide, shorter than the first row \(4\)$",
        ),
        ("%%%%\n%..%\n%%%%", r"bad\.lay: no Pac-Man"),
        ("%%%%\n%P..\n%%%%", r"bad\.lay line 2 column 4: border cell is '.', must be a wall"),
        ("%%%%\n%PX%\n%%%%", r"bad\.lay line 2 column 3: unknown character 'X'"),
        ("%%%%%\n%P.P%\n%%%%%", r"bad\.lay line 2 column 4: a second Pac-Man"),
        ("\n\n", r"bad\.lay: the layout is empty"),
        ("%%%%\n\n%P.%\n%%%%", r"bad\.lay line 2 column 1: row is 0 wide, shorter"),
    ],
)
def test_bad_layouts_name_file_line_and_column(text, message):
    with pytest.raises(LayoutError, match=message):
        parse_layout(text, "bad.lay")


def test_unreadable_and_unknown_layouts(tmp_path):
    binary = tmp_path / "binary.lay"
    binary.write_bytes(b"\xff\xfe%%%")
    with pytest.raises(LayoutError, match=r"binary\.lay: cannot read layout"):
        load_layout(str(binary))
    with pytest.raises(
        LayoutError, match=r"unknown layout 'mediumClasic'.*did you mean mediumClassic"
    ):
        load_layout("mediumClasic")


def test_lines_are_stripped_as_cs188_does():
    layout = parse_layout("  %%%%  \n%P.%   \n%%%%\n\n")
    assert layout.rows == ("%%%%", "%P.%", "%%%%")


def test_a_row_longer_than_the_first_is_cut_to_it_with_a_warning_as_cs188_reads_it():
    layout = parse_layout("%%%%\n%P.%%.\n%%%%%\n", "wide.lay")
    assert layout.rows == ("%%%%", "%P.%", "%%%%")
    assert layout.width == 4 and layout.food_positions == ((2, 1),)
    assert layout.warnings == (
        "wide.lay line 2: row is 6 wide, longer than the first row (4); "
        "its extra '%.' is ignored, as CS188 ignores it",
        "wide.lay line 3: row is 5 wide, longer than the first row (4); "
        "its extra '%' is ignored, as CS188 ignores it",
    )
    assert parse_layout("%%%%\n%P.%\n%%%%").warnings == ()


def test_messages_name_the_file_a_layout_was_read_from(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "short.lay").write_text("%%%%\n%P%\n%%%%\n")
    with pytest.raises(LayoutError) as error:
        load_layout("short")
    assert str(error.value) == (
        "layouts/short.lay line 2 column 4: row is 3 wide, shorter than the first row (4)"
    )


def test_cs188s_layout_files_load_from_a_course_folder_through_the_cli(berkeley, tmp_path):
    shipped = berkeley / "layouts"
    (tmp_path / "layouts").mkdir()
    names = sorted(path.stem for path in shipped.glob("*.lay"))
    assert len(names) == 11
    for name in names:
        (tmp_path / "layouts" / f"{name}.lay").write_bytes((shipped / f"{name}.lay").read_bytes())
    for name in names:
        quick_game = ("-p", "GreedyAgent", "-q", "-f", "--max-moves", "3", "-r", f"{name}.json")
        done = subprocess.run(
            [sys.executable, "-m", "pacman", "-l", name, *quick_game],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=120,
        )
        assert done.returncode == 0, (name, done.stderr)
        expected = (
            "pacman: warning: layouts/capsuleClassic.lay line 7: row is 20 wide, longer than the "
            "first row (19); its extra '%' is ignored, as CS188 ignores it\n"
            if name == "capsuleClassic"
            else ""
        )
        assert done.stderr == expected, name
        # Read from the course folder, as CS188 reads it: stripped rows, cut to the first row.
        lines = [line.strip() for line in (shipped / f"{name}.lay").read_text().splitlines()]
        rows = [line[: len(lines[0])] for line in lines if line]
        record = json.loads((tmp_path / f"{name}.json").read_text())
        assert record["layout_rows"] == rows, name
