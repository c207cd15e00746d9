"""A class ranked against fixed baseline agents: ``--submissions DIR --leaderboard
--baseline-agents ... --baseline-code staff.py``.

Three submissions (a strong expectimax, a weak agent, one that crashes) and three baselines
(the staff's expectimax as the contest plays it, the staff's reflex agent, and the weak
file given as a file) play the same seeded games. The order is checked exactly, and each
submission's ``beats``: a tie beats nothing, and a crash loses to every agent that plays.
"""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

from grading_submissions import HONEST, apply_changes
from test_grading_leaderboard import ANCHOR, class_leaderboard, contest_suite

from pacman.grade_cli import main

WEAK = [("ExpectimaxAgent", ANCHOR, "return gameState.getLegalActions(0)[0]")]
CRASH = [("ExpectimaxAgent", ANCHOR, "return 1 / 0")]


def test_submissions_are_ranked_against_fixed_baselines(tmp_path):
    suite = contest_suite(tmp_path / "suite")
    hand_ins = tmp_path / "submissions"
    texts = {
        "strong": HONEST.read_text(),
        "weak": apply_changes("weak", "weak", WEAK),
        "crasher": apply_changes("crasher", "crashes", CRASH),
    }
    for name, text in texts.items():
        (hand_ins / name).mkdir(parents=True)
        (hand_ins / name / "multiAgents.py").write_text(text)
    staff = tmp_path / "staff" / "multiAgents.py"
    staff.parent.mkdir()
    staff.write_text(HONEST.read_text())
    weak_file = tmp_path / "staff" / "first_legal.py"
    weak_file.write_text(texts["weak"])
    prefix = tmp_path / "out" / "grades"
    command = [
        *class_leaderboard(suite, hand_ins, prefix),
        "--baseline-agents",
        f"ExpectimaxAgent:evalFn=better:depth=1,ReflexAgent,{weak_file}",
        "--baseline-code",
        str(staff),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    # The baselines are not graded submissions: grades.csv has the class alone.
    with open(f"{prefix}.csv", newline="") as handle:
        assert [row[0] for row in csv.reader(handle)] == [
            "submission",
            "crasher",
            "strong",
            "weak",
        ]
    rows = json.loads(Path(f"{prefix}-leaderboard.json").read_text())["submissions"]
    expectimax = "baseline/ExpectimaxAgent:evalFn=better:depth=1"
    reflex, first_legal = "baseline/ReflexAgent", "baseline/first_legal.py"
    assert [r["submission"] for r in rows] == [
        expectimax,
        "strong",
        reflex,
        first_legal,
        "weak",
        "crasher",
    ]
    beats = {r["submission"]: r["beats"] for r in rows}
    assert beats == {
        expectimax: [],
        "strong": [reflex, first_legal],  # the same games as the staff's expectimax: a tie
        reflex: [],
        first_legal: [],
        "weak": [],  # the same games as the file baseline: a tie
        "crasher": [],
    }
    assert [r["baseline"] for r in rows] == [True, False, True, True, False, False]
    with open(f"{prefix}-leaderboard.csv", newline="") as handle:
        table = list(csv.reader(handle))
    assert table[0][-2:] == ["baseline", "beats"]
    assert table[2][1] == "strong" and table[2][-2:] == ["no", f"{reflex}; {first_legal}"]
    notes = {r["submission"]: r["note"] for r in rows}
    assert notes["strong"] == f"beats 2 of 3 baselines: {reflex}, {first_legal}"
    assert notes["crasher"].startswith("beats 0 of 3 baselines; best and worst games: Error")


def test_baselines_are_checked_before_anything_runs(tmp_path, capsys):
    staff = tmp_path / "staff.py"
    staff.write_text(HONEST.read_text())
    flags = ["--submissions", str(tmp_path), "-q", "q5", "--leaderboard"]
    cases = {
        ("--baseline-agents", "NoSuchAgent", "--baseline-code", str(staff)): (
            "autograder: --baseline-agents NoSuchAgent: --baseline-code defines no class "
            "NoSuchAgent\n"
        ),
        ("--baseline-agents", "ReflexAgent"): (
            "autograder: --baseline-agents ReflexAgent: name the file of its class "
            "(--baseline-code)\n"
        ),
        ("--baseline-agents", "Reflex Agent!"): (
            "autograder: --baseline-agents Reflex Agent!: write a class with its arguments "
            "(AlphaBetaAgent:depth=2) or a student file or folder\n"
        ),
    }
    for extra, said in cases.items():
        assert main([*flags, *extra]) == 2
        assert capsys.readouterr().err == said
    assert main(["--platform-time-limit", "60"]) == 2
    assert capsys.readouterr().err == (
        "autograder: --platform-time-limit goes with --gradescope-bundle ZIP\n"
    )
    assert main(["--gradescope-bundle", "x.zip", "--platform-time-limit", "0"]) == 2
    assert capsys.readouterr().err == ("autograder: --platform-time-limit 0: must be positive\n")
    assert main(["--baseline-agents", "ReflexAgent"]) == 2
    assert capsys.readouterr().err == (
        "autograder: --baseline-agents and --baseline-code go with --submissions --leaderboard\n"
    )
