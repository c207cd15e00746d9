"""Grades that hold whatever the machine is doing, and reports staff and students can read."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from grading_submissions import (
    BERKELEY,
    HONEST,
    SMALL,
    make_mini,
    one_game_question,
    submission_text,
)

from pacman.grade_cli import main
from pacman.grading.diagnose import ROOT_SCORED_HINT

REPO = Path(__file__).resolve().parents[1]
needs_berkeley = pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")

#: A legal but slow reflex agent: it spends ``BURN`` CPU seconds on each game's first move,
#: most of the test's ``maxTime`` (2 s per move and per game), then plays greedily.
SLOW_AGENT = """
import time
from game import Agent

BURN = 1.2


class ReflexAgent(Agent):
    def registerInitialState(self, state):
        self.first = True

    def getAction(self, state):
        if self.first:
            self.first = False
            start = time.process_time()
            while time.process_time() - start < BURN:
                pass
        actions = [a for a in state.getLegalActions() if a != "Stop"]
        return max(actions, key=lambda a: state.generateSuccessor(0, a).getScore())
"""

SLOW_TEST = """class: "EvalAgentTest"
agentName: "ReflexAgent"
layoutName: "testClassic"
maxTime: "2"
numGames: "2"
randomSeed: "0"
ghosts: "[RandomGhost(1)]"
nonTimeoutMinimum: "2"
nonTimeoutThresholds: "2"
scoreThresholds: "300 400"
"""


def _grade(suite: Path, code: Path) -> tuple[int, str]:
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "autograder.py"),
            "--test-directory",
            str(suite),
            "--code-directory",
            str(code),
            "--mute",
            # The same ghosts every run (a greedy agent may dither for ever against others).
            "--game-secret",
            "truth",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout


def test_a_slow_legal_agent_gets_the_same_grade_on_a_busy_machine(tmp_path):
    suite = one_game_question(tmp_path, SLOW_TEST, 3)
    code = tmp_path / "student"
    code.mkdir()
    (code / "multiAgents.py").write_text(SLOW_AGENT)
    quiet_code, quiet = _grade(suite, code)
    # Three busy loops on two cores: the grader's workers get well under a core each.
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        busy_code, busy = _grade(suite, code)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    for exit_code, report in ((quiet_code, quiet), (busy_code, busy)):
        assert exit_code == 0
        assert "2 games: average score" in report and "0 timeouts" in report, report
        assert "2 games not timed out (1 of 1 points)" in report
        assert "### Question q1: 3/3 ###" in report


def test_a_game_over_its_cpu_limit_is_a_timeout_named_with_the_limit(tmp_path):
    # The same agent burning 3 s: over the 2 s the test allows per move and per game.
    suite = one_game_question(tmp_path, SLOW_TEST, 3)
    code = tmp_path / "student"
    code.mkdir()
    (code / "multiAgents.py").write_text(SLOW_AGENT.replace("BURN = 1.2", "BURN = 3"))
    exit_code, report = _grade(suite, code)
    assert exit_code == 0
    # The minimum of 2 games without a timeout is lost after the first: the second is not played.
    assert "1 of 2 games (stopped: 2 games without a timeout can no longer be reached)" in report
    assert (
        "Problem (1 game): Your code timed out: ReflexAgent.getAction used more than 2.0 s "
        "of CPU time (the test's maxTime (per move and per game); 2."
    ) in report
    assert "### Question q1: 0/3 ###" in report


def test_grading_scheme_lines_read_as_cs188s(tmp_path):
    suite = one_game_question(tmp_path, SLOW_TEST.replace('maxTime: "2"', 'maxTime: "20"'), 3)
    code = tmp_path / "student"
    code.mkdir()
    (code / "multiAgents.py").write_text(SLOW_AGENT.replace("BURN = 1.2", "BURN = 0"))
    exit_code, report = _grade(suite, code)
    assert exit_code == 0
    scheme = "***         Grading scheme:\n"
    # With a minimum, below it fails; without one, below the first threshold earns nothing.
    assert scheme + "***          < 2:  fail\n***         >= 2:  1 points\n" in report
    assert (
        scheme + "***          < 300:  0 points\n***         >= 300:  1 points\n"
        "***         >= 400:  2 points\n"
    ) in report
    assert ">= 0:" not in report


def test_a_file_that_does_not_import_is_reported_once_with_its_line(tmp_path, capsys):
    code = tmp_path / "student"
    code.mkdir()
    broken = HONEST.read_text().replace(
        "        return self.value(gameState, 0, 0)[1]",
        '        print "Python 2"\n        return self.value(gameState, 0, 0)[1]',
        1,
    )
    (code / "multiAgents.py").write_text(broken)
    line = broken.splitlines().index('        print "Python 2"') + 1
    assert main(["--code-directory", str(code), "--test-directory", str(REPO / "test_cases")]) == 0
    out = capsys.readouterr().out
    assert out.count("SyntaxError") == 1, out
    assert (
        f"***     Your code could not be imported: multiAgents.py line {line}: SyntaxError" in out
    )
    assert '***         print "Python 2"' in out
    assert "<frozen" not in out
    not_graded = out.count("Not graded: the student's file does not import")
    assert not_graded == sum(1 for _ in (REPO / "test_cases").rglob("*.test"))
    assert out.rstrip().endswith("Total: 0/31")


@needs_berkeley
def test_scoring_the_root_instead_of_the_leaf_has_its_own_diagnosis(tmp_path, capsys):
    suite = make_mini(tmp_path, {"q2": SMALL["q2"]})
    code = tmp_path / "student"
    code.mkdir()
    text = submission_text("cs188_style").replace(
        "        return self.value(gameState, 0, 0)[1]\n\n    def value(self, state, agentIndex, depth):\n"
        "        if depth == self.depth or state.isWin() or state.isLose():\n"
        "            return self.evaluationFunction(state), None",
        "        self.root = gameState\n        return self.value(gameState, 0, 0)[1]\n\n"
        "    def value(self, state, agentIndex, depth):\n"
        "        if depth == self.depth or state.isWin() or state.isLose():\n"
        "            return self.evaluationFunction(self.root), None",
        1,
    )
    assert "self.root = gameState" in text
    (code / "multiAgents.py").write_text(text)
    assert main(["--test-directory", str(suite), "--code-directory", str(code), "-q", "q2"]) == 0
    out = capsys.readouterr().out
    assert ROOT_SCORED_HINT in out
    assert "stopped too early" not in out


@needs_berkeley
def test_where_answers_cannot_be_hidden_batches_are_refused_unless_told(tmp_path, capsys):
    suite = make_mini(tmp_path, {"q2": SMALL["q2"]})
    submissions = tmp_path / "submissions"
    (submissions / "one").mkdir(parents=True)
    (submissions / "one" / "multiAgents.py").write_text(HONEST.read_text())
    # As on a kernel without Landlock and without namespaces.
    weak = ["--isolation", "process", "--no-landlock", "--test-directory", str(suite)]
    batch = [*weak, "--submissions", str(submissions), "--summary", str(tmp_path / "grades")]
    assert main(batch) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("autograder: refusing to grade with --submissions: ")
    assert "read the test answers (process isolation" in captured.err
    assert captured.err.rstrip().endswith("or pass --unsafe-weak-sandbox")
    assert not (tmp_path / "grades.csv").exists()
    # The older spelling of the flag still works.
    assert main([*batch, "--unsafe-readable-answers"]) == 0
    # The report names what it grades first; the warning comes next.
    heading, warning = capsys.readouterr().out.splitlines()[:2]
    assert (
        heading
        == f"Grading multiAgents.py ({submissions}/*/multiAgents.py) against suite ({suite})"
    )
    assert warning.startswith("WARNING: student code could ")
    assert "read the test answers" in warning
    data = json.loads((tmp_path / "grades.json").read_text())
    record = data["submissions"][0]
    assert record["protections"]["answers_hidden"] is False
    assert "read the test answers" in record["warning"]
    os.remove(tmp_path / "grades.json")


@needs_berkeley
def test_every_way_grades_leave_a_weak_grader_is_refused_unless_told(tmp_path, capsys, monkeypatch):
    """--results, --gradescope-output and --edx-output are refused as --submissions is; a local run for a
    student's own eyes is graded, with the warning in the report's first line."""
    monkeypatch.chdir(tmp_path)
    suite = make_mini(tmp_path, {"q2": SMALL["q2"]})
    (tmp_path / "multiAgents.py").write_text(HONEST.read_text())
    weak = ["--isolation", "process", "--no-landlock", "--test-directory", str(suite)]
    weak += ["--student-code", "multiAgents.py"]
    results = tmp_path / "results" / "results.json"
    for leaving, flag in (
        (["--results", str(results)], "--results"),
        (["--gradescope-output"], "--gradescope-output"),
        (["--edx-output"], "--edx-output"),
    ):
        assert main([*weak, *leaving]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1
        assert captured.err.startswith(f"autograder: refusing to grade with {flag}: ")
        assert not results.exists() and not (tmp_path / "gradescope_response.json").exists()
        assert not (tmp_path / "edx_grade").exists()
    assert main(weak) == 0
    out = capsys.readouterr().out
    heading = f"Grading multiAgents.py ({tmp_path}/multiAgents.py) against suite ({suite})"
    assert out.startswith(f"{heading}\nWARNING: student code could ") and "Total: 5/5" in out
    assert main([*weak, "--results", str(results), "--unsafe-weak-sandbox"]) == 0
    second = capsys.readouterr().out.splitlines()[1]
    data = json.loads(results.read_text())
    assert data["warning"] == second and data["output"].startswith(f"{heading}\n{second}\n")
    assert "read the test answers" in second and data["score"] == 5
    assert data["protections"]["answers_hidden"] is False


def test_a_worker_that_cannot_hide_the_answers_refuses_the_submission():
    # On a Dask worker the grader's own check does not apply: the task checks where it runs.
    from pacman.grading.submission import (
        GradingOptions,
        SubmissionTask,
        grade_submission,
        read_suite,
    )

    suite = read_suite(str(REPO / "test_cases"))
    files = {"multiAgents.py": HONEST.read_bytes()}
    weak = GradingOptions(isolation="process", landlock_abi_cap=0, question="q2")
    record = grade_submission(SubmissionTask("weak", files, suite, weak))
    assert record["total"] == 0 and record["isolation"] is None
    assert record["error"].startswith(f"not graded on {socket.gethostname()}: refusing to grade")
    assert "read the test answers (process isolation" in record["error"]
