"""Strings are data: whatever a submission or a folder name holds, every report is written.

Lone surrogates, bytes that are not UTF-8, terminal escapes and spreadsheet formulas come
from exception messages, printed output, actions and folder names; each grading run still
writes its JSON and every submission gets exactly one CSV row, shown escaped.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from grading_submissions import (
    AFTER_IMPORTS,
    BERKELEY,
    HONEST,
    SMALL,
    apply_changes,
    make_mini,
)

from pacman import untrusted
from pacman.grading.report import PREFIX, format_test

REPO = Path(__file__).resolve().parents[1]

needs_berkeley = pytest.mark.skipif(
    not BERKELEY.is_dir(), reason="CS188's suite is not beside the checkout"
)


def test_text_escapes_controls_surrogates_and_undecodable_bytes_and_keeps_lines():
    raw = "ok\tline\n\x1b[31mred\x07 \ud800 \udce9 caf\xe9 \x9b"
    assert untrusted.text(raw) == "ok\tline\n\\x1b[31mred\\x07 \\ud800 \\xe9 caf\xe9 \\x9b"
    assert untrusted.line("two\nlines\r") == "two\\x0alines\\x0d"
    assert untrusted.name(b"a_Jos\xe9") == "a_Jos\\xe9"
    assert untrusted.name(os.fsdecode(b"a_Jos\xe9")) == "a_Jos\\xe9"
    # What comes out always encodes.
    untrusted.text(raw).encode("utf-8")


def test_json_replies_are_cleaned_everywhere_keys_included():
    reply = {"id": 3, "msg\ud800": ["\x1b]0;pwned\x07", {"action": "\udcff"}], "n": 1.5}
    assert untrusted.data(reply) == {
        "id": 3,
        "msg\\ud800": ["\\x1b]0;pwned\\x07", {"action": "\\xff"}],
        "n": 1.5,
    }


@pytest.mark.parametrize(
    ("cell", "shown"),
    [
        ("=cmd|' -C calc'!A0", "'=cmd|' -C calc'!A0"),
        ("+1", "'+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "\\x09x"),
        ("plain", "plain"),
        (25.0, "25.0"),
    ],
)
def test_spreadsheet_cells_never_start_a_formula(cell, shown):
    assert untrusted.spreadsheet_cell(cell) == shown


def test_the_text_a_test_adds_to_a_report_is_capped():
    padded = "\n".join(f"{index:>6} " + "x" * 2000 for index in range(36_000))  # ~72 MB
    result = SimpleNamespace(
        passed=False, messages=[padded], output="y" * 3_000_000, max_points=0, path="q2/t.test"
    )
    lines = format_test(result, mute=False)
    assert len("\n".join(lines)) < 2 * untrusted.REPORT_CHARS + 2_000
    assert lines[0] == "*** FAIL: q2/t.test"
    assert any(
        line.startswith(PREFIX + "[... ") and "more characters cut]" in line for line in lines
    )


# Submissions whose text is hostile, and folders whose names are.
_SURROGATE_IMPORT = AFTER_IMPORTS + "raise ValueError('bad \\ud800 name \\x1b[2J')\n"
_SURROGATE_PRINT = (
    AFTER_IMPORTS
    + "import os as _os\n_os.write(1, b'raw \\xff\\xfe \\x1b[2J gone\\n')\nprint('esc \\x1b]0;title\\x07')\n"
)


def _hostile_files() -> dict[str, str]:
    honest = HONEST.read_text()
    return {
        "surrogate_import": apply_changes(
            "surrogate_import",
            "raises with a lone surrogate",
            [(None, AFTER_IMPORTS, _SURROGATE_IMPORT)],
        ),
        "surrogate_print": apply_changes(
            "surrogate_print",
            "prints bytes that are not UTF-8",
            [(None, AFTER_IMPORTS, _SURROGATE_PRINT)],
        ),
        "surrogate_action": apply_changes(
            "surrogate_action",
            "returns a lone surrogate as its action",
            [("MinimaxAgent", "return self.value(gameState, 0, 0)[1]", "return 'West\\ud800'")],
        ),
        "honest": honest,
    }


#: Folder names (bytes: one is not UTF-8) holding the honest file, and how each is shown.
_ODD_NAMES = {
    b"a_Jos\xe9": "a_Jos\\xe9",
    b".dot": ".dot",
    b"=cmd|' -C calc'!A0": "'=cmd|' -C calc'!A0",
    b"\x1b[31mred": "\\x1b[31mred",
}


@needs_berkeley
def test_every_folder_of_a_hostile_batch_gets_its_row(tmp_path):
    suite = make_mini(tmp_path, SMALL)
    root = tmp_path / "submissions"
    root.mkdir()
    files = _hostile_files()
    for name, text in files.items():
        (root / name).mkdir()
        (root / name / "multiAgents.py").write_text(text)
    for raw in _ODD_NAMES:
        folder = os.path.join(os.fsencode(root), raw)
        os.mkdir(folder)
        with open(os.path.join(folder, b"multiAgents.py"), "w") as handle:
            handle.write(files["honest"])
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "autograder.py"),
            "--test-directory",
            str(suite),
            "--submissions",
            str(root),
            "--summary",
            str(tmp_path / "grades"),
            "--jobs",
            "2",
        ],
        capture_output=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"\x1b" not in done.stdout and b"\x1b" not in done.stderr
    raw_csv = (tmp_path / "grades.csv").read_bytes()
    assert b"\x1b" not in raw_csv
    rows = list(csv.DictReader(raw_csv.decode("utf-8").splitlines()))
    totals = {row["submission"]: row["total"] for row in rows}
    # Exactly one row per folder, named as shown; honest files get full marks wherever they are.
    assert sorted(totals) == sorted([*files, *_ODD_NAMES.values()])
    full = rows[0]["max_total"]
    for shown in [*_ODD_NAMES.values(), "honest", "surrogate_print"]:
        assert totals[shown] == full, shown
    assert totals["surrogate_import"] == "0"
    # The surrogate action loses q2 only (its one tree), which the other agents pass.
    by_name = {row["submission"]: row for row in rows}
    assert by_name["surrogate_action"]["q2"] == "0" and by_name["surrogate_action"]["q3"] != "0"
    assert "\\ud800" in by_name["surrogate_import"]["error"]
    for row in rows:
        assert not any(cell.startswith(("=", "+", "-", "@")) for cell in row.values()), row
    report = json.loads((tmp_path / "grades.json").read_text(encoding="utf-8"))
    assert len(report["submissions"]) == len(totals)
    printed = next(s for s in report["submissions"] if s["submission"] == "surrogate_print")
    assert "raw \\xff\\xfe \\x1b[2J gone" in printed["import_report"]
    # The terminal gets the names escaped, not neutralised for a spreadsheet (after the
    # lines naming what is graded and how many were).
    shown = sorted(line.rsplit(": ", 1)[0] for line in done.stdout.decode().splitlines()[2:])
    assert shown == sorted([*files, *(untrusted.name(raw) for raw in _ODD_NAMES)])


@needs_berkeley
@pytest.mark.parametrize("variant", ["surrogate_import", "surrogate_print", "surrogate_action"])
def test_a_single_run_writes_its_results_whatever_the_student_says(tmp_path, variant):
    suite = make_mini(tmp_path, SMALL)
    code = tmp_path / "student"
    code.mkdir()
    (code / "multiAgents.py").write_text(_hostile_files()[variant])
    results = tmp_path / "out" / "results.json"
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "autograder.py"),
            "--test-directory",
            str(suite),
            "--code-directory",
            str(code),
            "--results",
            str(results),
            "--gradescope-output",
        ],
        capture_output=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"\x1b" not in done.stdout
    data = json.loads(results.read_text(encoding="utf-8"))
    gradescope = json.loads((tmp_path / "gradescope_response.json").read_text(encoding="utf-8"))
    assert data["score"] == gradescope["score"]
    expected = {"surrogate_import": 0, "surrogate_print": 15, "surrogate_action": 10}[variant]
    assert data["score"] == expected
