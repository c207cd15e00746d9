"""The grader's HTML report of a failed tree test: the expected tree with the student's search over it."""

from __future__ import annotations

from pathlib import Path

from grading_submissions import submission_folder
from test_searchtree import LECTURE_FIELDS, NETWORK

from pacman.grade_cli import main
from pacman.grading.tree_report import failure_data, report_page
from pacman.view.html import embedded_data

REPO = Path(__file__).resolve().parents[1]

#: Full-width minimax on the lecture tree: alpha-beta's 11 calls, then min3 Right I.
MINIMAX_CALLS = []
for _number, (_move, _leaves) in enumerate(
    zip(["Left", "Center", "Right"], ["ABC", "DEF", "GHI"], strict=True)
):
    MINIMAX_CALLS.append([0, _move, "max", f"min{_number + 1}"])
    MINIMAX_CALLS += [
        [1, a, f"min{_number + 1}", leaf] for a, leaf in zip("LCR", _leaves, strict=True)
    ]


def test_a_student_who_does_not_prune_gets_the_extra_state_marked():
    data = failure_data(
        LECTURE_FIELDS,
        "AlphaBetaAgent",
        1,
        "Center",
        MINIMAX_CALLS,
        "Center",
        ["Incorrect generated nodes for depth=1", "Diagnosis: no pruning at all."],
    )
    page = report_page(data, "FAIL: lecture")
    tree = embedded_data(page, "tree-data")
    assert len(tree["nodes"]) == 13 and tree["nodes"][12]["state"] == "I"
    assert tree["nodes"][12]["parent"] == 9
    assert tree["compare"]["marks"] == {"extra": [12], "diverge": [12]}
    assert tree["compare"]["summary"] == (
        "Your move: Center (expected Center). Your search made 12 successor calls; the correct "
        "one makes 11. First divergence at successor call 12: expected (nothing), yours min3 "
        "R I. Diagnosis: no pruning at all."
    )
    assert not NETWORK.search(page)


def test_the_autograder_writes_the_report_beside_the_text(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(REPO)
    reports = tmp_path / "reports"
    code = main(
        [
            "-t",
            "test_cases/q3/5-sequence",
            "--code-directory",
            str(submission_folder("broken_ab_equality", tmp_path)),
            "--html-report",
            str(reports),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    page = reports / "q3-5-sequence.html"
    assert out.splitlines()[-1] == f"*** HTML report for test_cases/q3/5-sequence.test: {page}"
    tree = embedded_data(page.read_text(encoding="utf-8"), "tree-data")
    # The student prunes at m2 on C = alpha: D never generated, then root East m3 comes early.
    assert [n["state"] for n in tree["nodes"]] == [
        "root", "m1", "A", "B", "m2", "C", "D", "m3", "E", "F",
    ]  # fmt: skip
    assert tree["compare"]["marks"] == {"missing": [6], "diverge": [6, 7]}
    assert (
        "First divergence at successor call 6: expected m2 South D, yours root East m3."
        in (tree["compare"]["summary"])
    )


def test_html_report_needs_one_submission_and_a_folder(capsys, tmp_path):
    (tmp_path / "file").write_text("")
    assert main(["--submissions", str(tmp_path), "--html-report", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == (
        "autograder: --html-report draws one submission's trees: leave out --submissions\n"
    )
    assert main(["-q", "q3", "--html-report", str(tmp_path / "file")]) == 2
    assert capsys.readouterr().err == (
        f"autograder: --html-report {tmp_path / 'file'}: is a file; give a folder name\n"
    )
