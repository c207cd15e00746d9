"""Every output the grader writes is bounded and honest: HTML reports, file names, results."""

from __future__ import annotations

import html
import json
from pathlib import Path

from grading_submissions import AFTER_IMPORTS, apply_changes, submission_folder
from test_marks import play
from test_searchtree import LECTURE_FIELDS

from agents import GreedyAgent
from pacman import untrusted
from pacman.ghosts import RandomGhost
from pacman.grade_cli import main, parse
from pacman.grading.gradescope import gradescope_results
from pacman.grading.leaderboard import write_leaderboard
from pacman.grading.session import RunResult
from pacman.grading.suite import QuestionResult
from pacman.grading.testcase import TestResult, worker_problem
from pacman.grading.tree_report import DRAWN_CALLS, failure_data, report_name, report_page
from pacman.layout import load_layout
from pacman.records import game_record
from pacman.sandbox.config import WorkerTimeout
from pacman.state import GameState
from pacman.view.html import embedded_data
from pacman.view.html_replay import HtmlReplay, ending, write_replay

REPO = Path(__file__).resolve().parents[1]

#: The honest search's reply with 130,000 forged successor calls after it (a 3.6 MB reply),
#: each generating a state of its own: drawn whole, one page was 24 MB.
_PADDING = r"""
import pacman.sandbox.inside as _worker

_honest_tree = _worker.StudentRuntime.op_tree


def _padded_tree(self, request):
    reply = _honest_tree(self, request)
    start = request["fields"]["start_state"].strip()
    reply["expansions"] += [[1, "x", start, "n%d" % i] for i in range(130_000)]
    return reply


_worker.StudentRuntime.op_tree = _padded_tree
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


def _timed_out_record() -> dict:
    """A game of 4 moves, recorded as the grader records a game its agent timed out in."""
    layout = load_layout("minimaxClassic")
    result = play(GameState.initial(layout, 1), [GreedyAgent(), RandomGhost(1)],
                  max_moves=2, seed=1)  # fmt: skip
    record = game_record(result, layout, 1)
    record.update(
        truncated=False,
        crash=worker_problem(WorkerTimeout("the 1 s of CPU time was used up before getAction")),
        game=1,
    )
    return record


def _live_crash(**limits: float) -> str:
    """The crash reason of a game whose time limit (0 s: any move is over it) ends it."""
    state = GameState.initial(load_layout("minimaxClassic"), 1)
    result = play(state, [GreedyAgent(), RandomGhost(1)], seed=1, catch_exceptions=True, **limits)
    assert result.crashed
    return result.crash


def test_a_game_a_time_limit_ended_is_said_to_have_timed_out(tmp_path):
    per_move, per_game = _live_crash(move_timeout=0.0), _live_crash(game_timeout=0.0)
    assert per_move.startswith("Pac-Man (GreedyAgent) timed out on move 1: ")
    assert per_game.startswith("Pac-Man (GreedyAgent) ran out of time on move 1: ")
    sandboxed = "Pac-Man (SandboxedAgent) crashed on move 3: timed out in its sandbox: 1 s"
    for reason in (per_move, per_game, sandboxed, _timed_out_record()["crash"]):
        assert ending(False, False, reason) == "timed out", reason
    # The agent's own words come after the leading clauses: they never make a timeout.
    for reason in (
        "Pac-Man (X) crashed on move 3: TimeoutError: timed out",
        "Error in your code: ValueError: ran out of time",
    ):
        assert ending(False, False, reason) == "crash"
    assert [ending(True, False, None), ending(False, True, None), ending(False, False, None)] == [
        "win", "lose", "stop",
    ]  # fmt: skip
    # A live game's page, and a record's page (which replays to its last move and stops there).
    out = tmp_path / "live.html"
    state = GameState.initial(load_layout("minimaxClassic"), 1)
    play(state, [GreedyAgent(), RandomGhost(1)], seed=1, move_timeout=0.0,
         catch_exceptions=True, observers=[HtmlReplay(out)])  # fmt: skip
    assert embedded_data(out.read_text(), "replay-data")["end"] == "timed out"
    page = write_replay(_timed_out_record(), tmp_path / "record.html")
    assert embedded_data(page.read_text(), "replay-data")["end"] == "timed out"
    untimed = {**_timed_out_record(), "crash": None, "truncated": True}
    page = write_replay(untimed, tmp_path / "cut.html")
    assert embedded_data(page.read_text(), "replay-data")["end"] == "stop"


def test_the_leaderboard_note_says_why_games_ended_early(tmp_path):
    timed_out = _timed_out_record()
    won = {**timed_out, "crash": None, "score": 500.0}
    games = {"games": 2, "wins": 0, "scores": [500.0, timed_out["score"]], "crashes": 0,
             "timeouts": 1, "best": won, "worst": timed_out}  # fmt: skip
    tests = [{"test": "t", "passed": False, "report": "", "games": games}]
    both = {**games, "best": timed_out, "scores": [timed_out["score"]] * 2}
    records = [
        {"submission": "slow", "error": None, "questions": {"q5": {"tests": tests}}},
        {"submission": "broken", "error": "does not import", "questions": {}},
        {"submission": "slower", "error": None,
         "questions": {"q5": {"tests": [{**tests[0], "games": both}]}}},
    ]  # fmt: skip
    write_leaderboard(records, str(tmp_path / "grades"))
    data = json.loads((tmp_path / "grades-leaderboard.json").read_text())
    reason = timed_out["crash"]
    assert {row["submission"]: row["note"] for row in data["submissions"]} == {
        "slow": f"worst game: {reason}",
        "slower": f"best and worst games: {reason}",
        "broken": "does not import",
    }
    page = (tmp_path / "grades-leaderboard.html").read_text()
    assert f"<td>worst game: {html.escape(reason)}</td></tr>" in page
    slow = next(row for row in data["submissions"] if row["submission"] == "slow")
    replay_page = tmp_path / slow["replays"]["worst"]["html"]
    assert embedded_data(replay_page.read_text(), "replay-data")["end"] == "timed out"


def test_parsing_makes_no_folder_and_the_run_makes_them(capsys, tmp_path: Path) -> None:
    """The command line only checks its flags: the output folders appear when the job runs."""
    report, suite = tmp_path / "out" / "pages", tmp_path / "new" / "suite"
    parse(["--html-report", str(report), "-q", "q2"])
    job, _ = parse(["--generate-suite", str(suite), "--kinds", "minimax", "--trees", "1"])
    assert sorted(tmp_path.iterdir()) == []
    assert job.new_suite is not None and job.new_suite.folder == str(suite)
    assert main(["--generate-suite", str(suite), "--kinds", "minimax", "--trees", "1"]) == 0
    capsys.readouterr()
    assert sorted(path.name for path in suite.iterdir()) == ["CONFIG", "q2"]
