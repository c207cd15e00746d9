"""Every output the grader writes is bounded and honest: HTML reports, file names, results."""

from __future__ import annotations

from pathlib import Path

from grading_submissions import AFTER_IMPORTS, apply_changes, submission_folder
from test_searchtree import LECTURE_FIELDS

from pacman.grading import main, untrusted
from pacman.grading.gradescope import gradescope_results
from pacman.grading.kinds import TestResult
from pacman.grading.runner import QuestionResult, RunResult
from pacman.grading.tree_report import DRAWN_CALLS, failure_data, report_name, report_page
from pacman.view.html import embedded_data

REPO = Path(__file__).resolve().parents[1]

#: The honest search's reply with 130,000 forged successor calls after it (a 3.6 MB reply),
#: each generating a state of its own: drawn whole, one page was 24 MB.
_PADDING = r"""
import pacman.grading.worker as _worker

_honest_tree = _worker.Worker.op_tree


def _padded_tree(self, request):
    reply = _honest_tree(self, request)
    start = request["fields"]["start_state"].strip()
    reply["expansions"] += [[1, "x", start, "n%d" % i] for i in range(130_000)]
    return reply


_worker.Worker.op_tree = _padded_tree
"""


def _padded_folder(root: Path) -> Path:
    folder = root / "padded"
    folder.mkdir()
    text = apply_changes(
        "padded",
        "pads its successor calls with 130,000 forged ones",
        [(None, AFTER_IMPORTS, AFTER_IMPORTS + _PADDING)],
    )
    (folder / "multiAgents.py").write_text(text)
    return folder


def test_a_padded_submission_gets_a_small_report_page_that_says_what_was_cut(
    capsys, monkeypatch, tmp_path
):
    monkeypatch.chdir(REPO)
    reports = tmp_path / "reports"
    code = main(
        [
            "-t",
            "test_cases/q3/1-prune-at-min",
            "--code-directory",
            str(_padded_folder(tmp_path)),
            "--html-report",
            str(reports),
        ]
    )
    assert code == 0
    page = reports / "q3-1-prune-at-min.html"
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"*** HTML report for test_cases/q3/1-prune-at-min.test: {page}"
    )
    assert page.stat().st_size < 2_000_000  # 24,032,420 bytes before the cap
    tree = embedded_data(page.read_text(encoding="utf-8"), "tree-data")
    # The expected tree's 10 nodes, and the student's first 1,000 calls of which the first
    # 9 are the correct ones: 991 extra states.
    assert len(tree["nodes"]) == 1 + 9 + DRAWN_CALLS - 9
    assert len(tree["compare"]["marks"]["extra"]) == DRAWN_CALLS - 9
    assert tree["compare"]["summary"] == (
        "Your move: West (expected West). Your search made 130009 successor calls; the correct "
        "one makes 9. Only your first 1000 calls are drawn: 129009 more were cut (a report "
        "draws at most 1000 calls and 100000 characters of them). First divergence at "
        "successor call 10: expected (nothing), yours root x n0."
    )


def _lecture_calls(children: list[str]) -> list[list[object]]:
    return [[0, "Left", "max", "min1"], *([1, "x", "min1", child] for child in children)]


def test_failure_data_keeps_the_calls_it_draws_and_no_more():
    padded = _lecture_calls([f"n{number}" for number in range(130_000)] + ["A"])
    data = failure_data(LECTURE_FIELDS, "MinimaxAgent", 1, "Left", padded, "Center", [])
    assert len(data["expansions"]) == DRAWN_CALLS
    assert data["calls"] == 130_002
    # The tree's own states the whole search generated, found past the cut too.
    assert data["reached"] == ["A", "min1"]
    page = report_page(data, "FAIL: padded")
    tree = embedded_data(page, "tree-data")
    assert "missing" in tree["compare"]["marks"]
    assert not any(tree["nodes"][n]["state"] == "A" for n in tree["compare"]["marks"]["missing"])


def test_long_names_are_cut_by_characters_before_the_count():
    long = [f"{number:0>200}" for number in range(1_000)]
    data = failure_data(LECTURE_FIELDS, "MinimaxAgent", 1, "Left", _lecture_calls(long), "C", [])
    # The first call's names ("Left", "max", "min1") are 11 characters; each padded one's 205.
    assert len(data["expansions"]) == 1 + (untrusted.REPORT_CHARS - 11) // 205 == 488
    summary = embedded_data(report_page(data, "FAIL: long"), "tree-data")["compare"]["summary"]
    assert "Only your first 488 calls are drawn: 513 more were cut" in summary


def test_report_names_are_visible_and_safe_whatever_the_test_directory():
    assert report_name("q3", "../suite/q3/5-sequence.test") == "q3-5-sequence.html"
    assert report_name("..", "../../x y;rm.test") == "x-y-rm.html"
    assert report_name("q\udce9", "/abs/q/t\n.test") == "q-t.html"


def test_reports_from_a_relative_test_directory_are_named_by_question(
    capsys, monkeypatch, tmp_path
):
    suite = tmp_path / "suite" / "q3"
    suite.mkdir(parents=True)
    for name in ("5-sequence.test", "5-sequence.solution", "CONFIG"):
        (suite / name).write_text((REPO / "test_cases" / "q3" / name).read_text())
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    student = submission_folder("broken_ab_equality", tmp_path)
    assert main(["--test-directory", "../suite", "--code-directory", str(student),
                 "--html-report", "reports"]) == 0  # fmt: skip
    assert sorted(path.name for path in (work / "reports").iterdir()) == ["q3-5-sequence.html"]
    assert capsys.readouterr().out.splitlines()[-1] == (
        "*** HTML report for ../suite/q3/5-sequence.test: reports/q3-5-sequence.html"
    )


def _run_of(points: dict[str, tuple[float, int]]) -> RunResult:
    questions = [
        QuestionResult(name, got, most, [TestResult(f"test_cases/{name}/1-a.test", got == most)])
        for name, (got, most) in points.items()
    ]
    return RunResult(questions, 1.0, "process", {"separate_uid": True, "uid": 2100000001})


def test_the_visible_output_tells_nothing_of_hidden_questions():
    run = _run_of({"q2": (5, 5), "q3": (0, 5), "q4": (5, 5), "q5": (5, 10)})
    config = {"hidden": ["q4", "q3/1-a"], "hidden_visibility": "after_due_date"}
    results = gradescope_results(run, None, config, mute=False)
    assert results["output"] == (
        "Total of the visible questions: 10/15 (isolation: process, uid 2100000001)\n"
        "The results of 2 more questions appear after the due date."
    )
    hidden = {t["name"] for t in results["tests"] if t["visibility"] != "visible"}
    assert hidden == {"Question q3", "q3/1-a", "Question q4", "q4/1-a"}
    config = {"hidden": ["q5"], "hidden_visibility": "hidden"}
    assert gradescope_results(run, "weak", config, mute=False)["output"] == (
        "weak\nTotal of the visible questions: 10/15 (isolation: process, uid 2100000001)\n"
        "The results of 1 more question are for the course staff only."
    )
    # Nothing hidden: CS188's total, as before.
    assert gradescope_results(run, None, {}, mute=False)["output"] == (
        "Total: 15/25 (isolation: process, uid 2100000001)"
    )
