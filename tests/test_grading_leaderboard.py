"""The class leaderboard: ``autograder.py --submissions DIR --leaderboard``.

Five submissions play the same seeded EvalAgentTest games, each in its own sandboxed
worker: a strong expectimax, a weak one, one that crashes, one that loops (timeouts), and
one that walks up the call stack to set the game's score (which gets it nothing: the
game is not in its process). The ranking, its files and the replays are checked exactly.
Crashed and timed-out games end at once with the score so far (0 here), above the weak
agents' losses: they rank below them all the same, failed games counting first.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

from grading_submissions import HONEST, apply_changes

from pacman.records import load_record, replay
from pacman.view.html import embedded_data
from pacman.view.html_replay import ending

REPO = Path(__file__).resolve().parents[1]
ANCHOR = "return self.value(gameState, 0, 0)[1]"

#: The contest: expectimax with the better evaluation, two games against a random ghost.
CONTEST = """class: "EvalAgentTest"
agentName: "ExpectimaxAgent"
agentArgs: "evalFn=better,depth=1"
layoutName: "smallClassic"
maxTime: "1"
numGames: "2"
randomSeed: "3"
ghosts: "[RandomGhost(1)]"
scoreThresholds: "500 1000"
winsThresholds: "1 2"
"""

CHEAT = """import sys

        frame = sys._getframe(1)
        while frame is not None:
            for value in list(frame.f_locals.values()):
                if type(value).__name__ == "GameState" and value is not gameState:
                    try:
                        value._score += 100000
                    except Exception:
                        pass
            frame = frame.f_back
        """

SUBMISSIONS = {
    "strong": [],
    "weak": [("ExpectimaxAgent", ANCHOR, "return gameState.getLegalActions(0)[0]")],
    "crasher": [("ExpectimaxAgent", ANCHOR, "return 1 / 0")],
    "sleeper": [("ExpectimaxAgent", ANCHOR, "while True:\n            pass")],
    "cheater": [("ExpectimaxAgent", ANCHOR, CHEAT + "return gameState.getLegalActions(0)[0]")],
}


def contest_suite(suite: Path) -> Path:
    """A suite of one question: the two :data:`CONTEST` games."""
    (suite / "contest").mkdir(parents=True)
    (suite / "CONFIG").write_text('order: "contest"\n')
    (suite / "contest" / "CONFIG").write_text('max_points: "4"\nclass: "PartialCreditQuestion"\n')
    (suite / "contest" / "grade-agent.test").write_text(CONTEST)
    return suite


def class_leaderboard(suite: Path, hand_ins: Path, prefix: Path) -> list[str]:
    """The command that grades and ranks ``hand_ins``, the same ghosts every time."""
    return [
        sys.executable,
        str(REPO / "autograder.py"),
        "--test-directory",
        str(suite),
        "--submissions",
        str(hand_ins),
        "--summary",
        str(prefix),
        "--leaderboard",
        "-j",
        "2",
        "--game-secret",
        "the leaderboard's",  # the same ghosts' streams every time the test runs
    ]


def test_five_submissions_ranked_by_the_same_seeded_games(tmp_path):
    suite = contest_suite(tmp_path / "suite")
    hand_ins = tmp_path / "submissions"
    for name, changes in SUBMISSIONS.items():
        (hand_ins / name).mkdir(parents=True)
        text = apply_changes(name, name, changes) if changes else HONEST.read_text()
        (hand_ins / name / "multiAgents.py").write_text(text)
    prefix = tmp_path / "out" / "grades"
    command = class_leaderboard(suite, hand_ins, prefix)
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    base = f"{prefix}-leaderboard"
    assert done.stdout.splitlines()[-1] == f"Leaderboard: {base}.csv, {base}.json, {base}.html"

    data = json.loads(Path(base + ".json").read_text())
    rows = data["submissions"]
    assert [r["submission"] for r in rows] == ["strong", "cheater", "weak", "crasher", "sleeper"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5]
    by_name = {r["submission"]: r for r in rows}
    assert by_name["strong"]["wins"] == 2 and by_name["strong"]["mean_score"] > 1000
    for name in ("cheater", "weak"):
        assert (by_name[name]["wins"], by_name[name]["crashes"], by_name[name]["timeouts"]) == (
            0,
            0,
            0,
        )
    # The cheater set the score of its worker's own copies: it plays as the weak agent does.
    assert by_name["cheater"]["mean_score"] == by_name["weak"]["mean_score"] < 0
    assert (by_name["sleeper"]["timeouts"], by_name["sleeper"]["crashes"]) == (2, 0)
    assert (by_name["crasher"]["crashes"], by_name["crasher"]["timeouts"]) == (2, 0)
    assert all(r["games"] == 2 and r["error"] == "" for r in rows)
    # Both games of each failed at once (score 0): the first is the best and the worst game.
    notes = {r["submission"]: r["note"] for r in rows}
    assert notes["crasher"].startswith(
        "best and worst games: Error in your code: ExpectimaxAgent.getAction: ZeroDivisionError"
    )
    sleeper = notes["sleeper"].removeprefix("best and worst games: ")
    assert sleeper != notes["sleeper"] and ending(False, False, sleeper) == "timed out"
    for name, end in (("crasher", "crash"), ("sleeper", "timed out"), ("weak", "lose")):
        page = (prefix.parent / by_name[name]["replays"]["worst"]["html"]).read_text()
        assert embedded_data(page, "replay-data")["end"] == end

    with open(base + ".csv", newline="") as handle:
        table = list(csv.reader(handle))
    assert table[0] == [
        "rank",
        "submission",
        "wins",
        "games",
        "mean_score",
        "crashes",
        "timeouts",
        "error",
    ]
    assert table[1:] == [
        ["1", "strong", "2", "2", "1325.0", "0", "0", ""],
        ["2", "cheater", "0", "2", "-544.0", "0", "0", ""],
        ["3", "weak", "0", "2", "-544.0", "0", "0", ""],
        ["4", "crasher", "0", "2", "0.0", "2", "0", ""],
        ["5", "sleeper", "0", "2", "0.0", "0", "2", ""],
    ]

    page = Path(base + ".html").read_text()
    assert page.count("<tr>") == 6
    assert page.index(">strong<") < page.index(">cheater<") < page.index(">crasher<")

    # Each best and worst game is a record `pacman --replay` plays back to its score.
    best = rows[0]["replays"]["best"]
    record = load_record(prefix.parent / best["record"])
    # ... and as an HTML replay of the same game, which the page links.

    replay_page = (prefix.parent / best["html"]).read_text()
    assert f'href="{best["html"]}"' in page
    assert "http" not in replay_page.replace("http-equiv", "")
    grades = json.loads(Path(f"{prefix}.json").read_text())["submissions"]
    strong = next(g for g in grades if g["submission"] == "strong")
    games = strong["questions"]["contest"]["tests"][0]["games"]
    assert record["score"] == max(games["scores"]) == replay(record).score
    assert record["pacman"] == "ExpectimaxAgent" and record["layout"] == "smallClassic"
    assert "ExpectimaxAgent" in replay_page and "smallClassic" in replay_page


def _record(name: str, scores: list[float], crashes: int = 0) -> dict:
    game = {"format": "pacman-game-record", "layout": "smallClassic", "actions": []}
    games = {
        "games": len(scores),
        "wins": sum(1 for s in scores if s > 0),
        "scores": scores,
        "crashes": crashes,
        "timeouts": 0,
        "best": {**game, "score": max(scores)},
        "worst": {**game, "score": min(scores)},
    }
    tests = [{"test": "t", "passed": True, "report": "", "games": games}]
    return {"submission": name, "error": None, "questions": {"q5": {"tests": tests}}}


def test_the_page_links_html_replays_where_the_project_has_them(tmp_path, monkeypatch):
    """``write_replay`` is called for each best and worst game, and the page links its pages;
    names from submissions are escaped."""
    from pacman.grading.leaderboard import write_leaderboard
    from pacman.view import html_replay

    written = []
    monkeypatch.setattr(
        html_replay,
        "write_replay",
        lambda record, path: written.append((record["score"], path)) or Path(path).write_text("x"),
    )
    records = [_record("<b>x</b>", [10.0, -5.0]), _record("=cmd", [20.0, 3.0], crashes=1)]
    prefix = tmp_path / "grades"
    write_leaderboard(records, str(prefix))
    replays = "grades-leaderboard-replays"
    assert sorted(written) == [
        (-5.0, f"{prefix}-leaderboard-replays/002-b_x_b-worst.html"),
        (3.0, f"{prefix}-leaderboard-replays/001-cmd-worst.html"),
        (10.0, f"{prefix}-leaderboard-replays/002-b_x_b-best.html"),
        (20.0, f"{prefix}-leaderboard-replays/001-cmd-best.html"),
    ]
    page = Path(f"{prefix}-leaderboard.html").read_text()
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert f'href="{replays}/002-b_x_b-best.html">10</a>' in page
    with open(f"{prefix}-leaderboard.csv", newline="") as handle:
        table = list(csv.reader(handle))
    assert table[1:] == [
        ["1", "'=cmd", "2", "2", "11.5", "1", "0", ""],  # more wins, though it crashed once
        ["2", "<b>x</b>", "1", "2", "2.5", "0", "0", ""],
    ]
