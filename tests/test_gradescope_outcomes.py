"""results.json whatever happens, and a leaderboard of pseudonyms: ``run_autograder`` run as
Gradescope runs it, on a fake ``/autograder`` tree (``source/`` with the bundle's
configuration and suite, ``submission/``, ``submission_metadata.json`` naming the student).

Each outcome a run can meet is caused here, and results.json is then valid JSON that says
why: graded (with the leaderboard), the platform's time limit (a tiny one, so the timer
fires), a refusal (a sandbox that cannot hide the answers), a missing file, a student who
prints JSON and grader lines, and a grader crash (a corrupted suite file in the bundle).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from grading_submissions import AFTER_IMPORTS, HONEST, apply_changes
from test_grading_leaderboard import ANCHOR, CONTEST, contest_suite

from pacman.grading.bundle_safety import (
    derived_pseudonym,
    firing_time,
    leaderboard_name,
    pseudonym_problem,
    stopped_results,
)

REPO = Path(__file__).resolve().parents[1]
SECRET = "the course's own"
LOGIN = "ada.lovelace@example.edu"

needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="grading as Gradescope does (namespaces, a worker uid) needs root",
)


def _tree(base: Path, text: str | None, **config_changes) -> Path:
    """``base``/autograder as Gradescope lays it out, the student's file ``text`` (None:
    not handed in)."""
    root = base / "autograder"
    contest_suite(root / "source" / "test_cases")
    config = {
        "format": "pacman-gradescope-bundle",
        "version": 2,
        "student_code": ["multiAgents.py"],
        "options": {"limits": {"move_seconds": 10.0}},
        "hidden": [],
        "leaderboard": True,
        "game_secret": SECRET,
        **config_changes,
    }
    (root / "source" / "pacman-bundle.json").write_text(json.dumps(config))
    (root / "submission").mkdir()
    (root / "results").mkdir()
    if text is not None:
        (root / "submission" / "multiAgents.py").write_text(text)
    metadata = {"id": 123456789, "users": [{"email": LOGIN, "id": 42, "name": "Ada Lovelace"}]}
    (root / "submission_metadata.json").write_text(json.dumps(metadata))
    return root


def _run(root: Path, status: int = 0) -> tuple[dict, subprocess.CompletedProcess]:
    done = subprocess.run(
        [sys.executable, "-I", "-m", "pacman.grading.gradescope", str(root)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=root.parent,
    )
    assert done.returncode == status, done.stderr[-3000:]
    return json.loads((root / "results" / "results.json").read_text()), done


@needs_root
def test_the_leaderboard_shows_a_pseudonym_never_the_login(arena):
    root = _tree(arena / "derived", HONEST.read_text())
    results, _ = _run(root)
    player = derived_pseudonym(SECRET, "42")  # the user's number: the same on every resubmission
    assert player.startswith("player-") and len(player) == len("player-") + 8
    # The games (their outcome follows the secret) as the test's own report counts them.
    said = re.search(
        r"2 games: average score (\S+), (\d+) wins, 0 timeouts, 0 crashes",
        results["tests"][1]["output"],
    )
    assert said is not None, results["tests"][1]["output"]
    assert results["leaderboard"] == [
        {"name": "Player", "value": player},
        {"name": "Score", "value": results["score"]},
        {"name": "Wins", "value": int(said[2])},
        {"name": "Average score", "value": float(said[1])},
        {"name": "Crashes", "value": 0, "order": "asc"},
        {"name": "Timeouts", "value": 0, "order": "asc"},
    ]
    text = json.dumps(results)
    assert "lovelace" not in text.lower() and "Ada" not in text

    # Handed in as a folder: the name is found beside the student's file.
    chosen = _tree(arena / "chosen", None)
    (chosen / "submission" / "project").mkdir()
    shutil.copy(HONEST, chosen / "submission" / "project" / "multiAgents.py")
    (chosen / "submission" / "project" / "pseudonym.txt").write_text("  Pac Sprinter 9\n")
    results, _ = _run(chosen)
    assert results["leaderboard"][0] == {"name": "Player", "value": "Pac Sprinter 9"}

    refused = _tree(arena / "refused", HONEST.read_text())
    (refused / "submission" / "pseudonym.txt").write_text("\x1b[31m" + LOGIN)
    results, _ = _run(refused)
    assert results["leaderboard"][0] == {"name": "Player", "value": player}
    assert results["output"].splitlines()[-1] == (
        "pseudonym.txt was not used (it is 29 characters long (at most 24)): the "
        f"leaderboard shows you as {player}"
    )


def test_pseudonyms_are_checked_and_derived_from_the_secret():
    assert pseudonym_problem("Pac Sprinter 9") is None
    assert pseudonym_problem("") == "it is empty"
    assert pseudonym_problem("a\tb") == (
        "it holds characters that do not print (write letters, digits, spaces)"
    )
    assert pseudonym_problem("x" * 25) == "it is 25 characters long (at most 24)"
    assert derived_pseudonym("s", "1") == derived_pseudonym("s", "1")
    assert derived_pseudonym("s", "1") != derived_pseudonym("t", "1")
    assert derived_pseudonym("s", "1") != derived_pseudonym("s", "2")


def test_a_pseudonym_is_read_only_from_a_plain_file_of_its_own(tmp_path):
    """pseudonym.txt is read as a student's files are: a link, a hard link, a FIFO or a file
    over 4,096 bytes is not read (whatever it names), and the derived name stands."""
    fallback = derived_pseudonym(SECRET, "no student id")
    folder = tmp_path / "submission"
    folder.mkdir()
    elsewhere = tmp_path / "grader-secret.txt"
    elsewhere.write_text("Hidden Answer\n")
    pseudonym = folder / "pseudonym.txt"
    pseudonym.write_text("Pac Sprinter 9\n")
    assert leaderboard_name(str(tmp_path), SECRET) == ("Pac Sprinter 9", None)
    pseudonym.unlink()
    pseudonym.symlink_to(elsewhere)
    assert leaderboard_name(str(tmp_path), SECRET) == (fallback, None)
    pseudonym.unlink()
    os.link(elsewhere, pseudonym)
    assert leaderboard_name(str(tmp_path), SECRET) == (fallback, None)
    pseudonym.unlink()
    os.mkfifo(pseudonym)  # opened without blocking, then refused as no plain file
    assert leaderboard_name(str(tmp_path), SECRET) == (fallback, None)
    pseudonym.unlink()
    pseudonym.write_text("Pac Sprinter 9\n" + "x" * 4096)
    assert leaderboard_name(str(tmp_path), SECRET) == (fallback, None)


@needs_root
def test_the_platform_time_limit_still_leaves_results(arena):
    """A student whose agent loops, and a platform limit (3 s) far shorter than its games:
    the timer writes results.json before the limit and stops the grading."""
    loops = apply_changes("sleeper", "loops", [("ExpectimaxAgent", ANCHOR, "while True: pass")])
    root = _tree(arena, loops, platform_time_limit=3)
    test = root / "source" / "test_cases" / "contest" / "grade-agent.test"
    # 20 games each timed out after a second: far longer than the limit, however loaded.
    test.write_text(CONTEST.replace('numGames: "2"', 'numGames: "20"'))
    results, done = _run(root, status=143)  # a game held the first SIGTERM back
    assert results["score"] == 0 and results["tests"] == []
    assert results["output"] == (
        "autograder: grading stopped at the platform's time limit (3 s): the questions "
        "finished below kept their points, the others got none. Your agents took too long: "
        "make them faster (a smaller depth, a cheaper evaluation) and submit again"
    )
    assert results["extra_data"] == {"stopped": results["output"]}
    assert "Traceback" not in done.stderr


def test_a_stopped_run_keeps_the_questions_finished():
    report = (
        "### Question q2: 5/5 ###\n"
        "***     | ### Question q3: 5/5 ###\n"  # a student's print: never counted
        "### Question q3: 2.5/5 ###\n"
    )
    results = stopped_results(report, "why")
    assert results["score"] == 7.5
    assert results["output"] == "why\nFinished: Question q2: 5/5\nFinished: Question q3: 2.5/5"
    assert [t["name"] for t in results["tests"]] == ["Question q2", "Question q3"]
    # A hidden question (or one of its tests hidden) counts, and is shown as a finished run
    # shows it: in its own entry, with the bundle's visibility; never in the output.
    hidden = stopped_results(report, "why", ["q3/1-some-test"], "after_due_date")
    assert hidden["score"] == 7.5 and hidden["output"] == "why\nFinished: Question q2: 5/5"
    assert [t["visibility"] for t in hidden["tests"]] == ["visible", "after_due_date"]
    assert (firing_time(600), firing_time(3)) == (570, 2.7)


@needs_root
def test_a_missing_file_and_a_refusal_say_why(arena):
    results, _ = _run(_tree(arena / "missing", None))
    assert results == {
        "score": 0.0,
        "output": "autograder: multiAgents.py was not handed in: hand in multiAgents.py",
        "visibility": "visible",
        "tests": [],
        "execution_time": results["execution_time"],
    }
    refused = _tree(
        arena / "refused",
        HONEST.read_text(),
        options={"isolation": "process", "landlock_abi_cap": 0},
    )
    results, _ = _run(refused)
    assert results["score"] == 0.0 and results["tests"] == []
    assert results["output"].startswith(
        "autograder: refusing to grade with Gradescope: student code could "
    )
    assert results["output"].endswith(
        "; run where namespaces or Landlock and a separate uid work (docs/grading.md), "
        "or pass --unsafe-weak-sandbox"
    )


@needs_root
def test_a_corrupted_suite_in_the_bundle_still_leaves_results(arena):
    root = _tree(arena, HONEST.read_text())
    (root / "source" / "test_cases" / "contest" / "grade-agent.test").write_bytes(b"\xff\xfe\0")
    results, _ = _run(root)
    assert results["score"] == 0.0 and results["tests"] == []
    test = root / "source" / "test_cases" / "contest" / "grade-agent.test"
    assert results["output"] == (
        f"autograder: the course's autograder is broken, not your code ({test}: not UTF-8 "
        "text (invalid start byte at byte 0)): nothing was graded; please tell the course staff"
    )


@needs_root
def test_what_a_student_prints_stays_in_its_own_section(arena):
    forged = (
        'print(\'{"score": 100, "leaderboard": []}\')\n'
        "print('Total: 25/25')\n"
        "print('### Question contest: 4/4 ###')\n"
    )
    text = HONEST.read_text().replace(AFTER_IMPORTS, AFTER_IMPORTS + forged, 1)
    assert text != HONEST.read_text()
    results, done = _run(_tree(arena, text))
    assert set(results) == {
        "score",
        "execution_time",
        "output",
        "visibility",
        "stdout_visibility",
        "tests",
        "extra_data",
        "leaderboard",
    }
    assert results["tests"][0]["name"] == "Question contest"
    lines = results["output"].splitlines()
    assert "***     | Total: 25/25" in lines and "Total: 25/25" not in lines
    assert '***     | {"score": 100, "leaderboard": []}' in lines
    assert not any(line.startswith(("### ", "{")) for line in lines)
    assert "\nTotal: 25/25\n" not in done.stdout
