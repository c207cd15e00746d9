"""The autograder end to end: CS188's suite, the project's suite, broken and hostile submissions."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from grading_submissions import (
    BERKELEY,
    FIXTURES,
    SMALL,
    make_mini,
    make_submissions,
    submission_folder,
    submission_text,
)

from pacman.grade_cli import main
from pacman.grading.kind_eval import parse_ghosts
from pacman.testfile import TestFileError

REPO = Path(__file__).resolve().parents[1]


#: The ghosts' secret of the graded games here: the same games on every run of the tests.
SECRET = ("--game-secret", "the tests' own")


def grader(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


needs_berkeley = pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")


def read_grades(prefix: Path) -> tuple[dict[str, dict[str, str]], dict]:
    with open(str(prefix) + ".csv", newline="") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    with open(str(prefix) + ".json") as handle:
        data = json.load(handle)
    return rows, data


def reports(data: dict, submission: str, question: str) -> str:
    """What a submission's report says: on importing its files, then on ``question``'s tests."""
    for record in data["submissions"]:
        if record["submission"] == submission:
            tests = [t["report"] for t in record["questions"][question]["tests"]]
            return "\n".join([record.get("import_report", ""), *tests])
    raise KeyError(submission)


def last_line(text: str) -> str:
    return [line for line in text.splitlines() if line.strip()][-1]


# ------------------------------------------------------------------------------ full suites


@needs_berkeley
def test_cs188_suite_full_marks_for_the_project_agents(capsys, tmp_path):
    results = tmp_path / "results.json"
    code, out, _ = grader(capsys, "--test-directory", BERKELEY, "--results", results, *SECRET)
    assert code == 0
    for question, points in [("q1", 4), ("q2", 5), ("q3", 5), ("q4", 5), ("q5", 6)]:
        assert f"### Question {question}: {points}/{points} ###" in out
    assert last_line(out) == "Total: 25/25"
    assert out.count("*** PASS: ") == 87 and "*** FAIL" not in out
    data = json.loads(results.read_text())
    assert data["score"] == 25 and data["max_score"] == 25
    assert [(t["name"], t["score"]) for t in data["tests"]] == [
        ("Question q1", 4),
        ("Question q2", 5),
        ("Question q3", 5),
        ("Question q4", 5),
        ("Question q5", 6),
    ]


@needs_berkeley
def test_cs188_suite_full_marks_for_a_cs188_style_file(capsys):
    code, out, _ = grader(
        capsys,
        "--test-directory",
        BERKELEY,
        "--code-directory",
        FIXTURES / "cs188_style",
        "--student-code",
        "multiAgents.py",
        *SECRET,
    )
    assert code == 0
    assert last_line(out) == "Total: 25/25"
    assert "*** FAIL" not in out


def test_project_suite_full_marks_for_the_project_agents(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    code, out, _ = grader(capsys, *SECRET)
    assert code == 0
    assert last_line(out) == "Total: 31/31"
    assert "*** PASS: test_cases/q3/5-sequence.test" in out
    assert "### Question q6: 3/3 ###" in out and "### Question q7: 3/3 ###" in out


# ------------------------------------------------------------------------------ chance questions

CHANCE_STYLE = FIXTURES / "chance_style" / "multiAgents.py"
#: Named alone, or among the mistakes the evidence fits equally (on these trees, ghosts as MAX
#: or every ghost a chance layer often choose the same move).
UNIFORM_MISTAKE = "chance {nodes} averaged uniformly where the test gives probabilities"


def grade_project_question(capsys, monkeypatch, code: Path, question: str) -> str:
    monkeypatch.chdir(REPO)
    status, out, _ = grader(capsys, "--code-directory", code, "-q", question)
    assert status == 0
    return out


@pytest.mark.parametrize("question", ["q6", "q7"])
def test_weighted_questions_full_marks_for_a_cs188_style_file(capsys, monkeypatch, question):
    out = grade_project_question(capsys, monkeypatch, CHANCE_STYLE.parent, question)
    assert last_line(out) == "Total: 3/3" and "*** FAIL" not in out


@pytest.mark.parametrize(("question", "tests", "nodes"), [("q6", 4, "nodes"), ("q7", 4, "layers")])
def test_averaging_uniformly_where_the_test_gives_probabilities_is_caught_and_named(
    capsys, monkeypatch, tmp_path, question, tests, nodes
):
    # The mutant takes every child at 1/n, whatever the probabilities say.
    right = "                if p > 0:\n"
    weighted = "total += p * self.value(child, nextAgent, nextDepth)[0]"
    text = CHANCE_STYLE.read_text()
    assert right in text and weighted in text
    text = text.replace(right, "                if True:\n").replace(
        weighted, "total += self.value(child, nextAgent, nextDepth)[0] / len(actions)"
    )
    (tmp_path / "multiAgents.py").write_text(text)
    out = grade_project_question(capsys, monkeypatch, tmp_path, question)
    assert last_line(out) == "Total: 0/3"
    assert out.count("*** FAIL") == tests
    diagnoses = [line for line in out.splitlines() if "Diagnosis: your move and generated" in line]
    assert len(diagnoses) == tests
    assert all(UNIFORM_MISTAKE.format(nodes=nodes) in line for line in diagnoses)


def test_an_agent_without_a_ghost_model_argument_is_told_what_the_test_passes(capsys, monkeypatch):
    out = grade_project_question(capsys, monkeypatch, FIXTURES / "cs188_style", "q6")
    assert out.count("unexpected keyword argument 'ghostModel'") == 4
    assert out.count("so the agent is built with ghostModel=model, where model(state, ") == 4


# ------------------------------------------------------------------------------ broken code


@needs_berkeley
def test_broken_submissions_lose_the_right_question(capsys, tmp_path):
    suite = make_mini(tmp_path)
    names = [
        "cs188_style",
        "other_style",
        "broken_ab_equality",
        "broken_depth_per_agent",
        "broken_expectimax_min",
        "broken_ghost_max",
    ]
    folder = make_submissions(tmp_path, names)
    code, out, _ = grader(
        capsys,
        "--test-directory",
        suite,
        "--submissions",
        folder,
        "-j",
        2,
        "--summary",
        tmp_path / "grades",
    )
    assert code == 0
    # Results never land among the students' folders.
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)
    rows, data = read_grades(tmp_path / "grades")
    grades = {name: (row["q2"], row["q3"], row["q4"], row["total"]) for name, row in rows.items()}
    assert grades == {
        "cs188_style": ("5", "5", "5", "15"),
        "other_style": ("5", "5", "5", "15"),
        "broken_ab_equality": ("5", "0", "5", "10"),
        "broken_depth_per_agent": ("0", "5", "5", "10"),
        "broken_expectimax_min": ("5", "5", "0", "10"),
        "broken_ghost_max": ("0", "5", "5", "10"),
    }
    assert "broken_ab_equality: 10/15" in out
    ab = reports(data, "broken_ab_equality", "q3")
    assert (
        "Diagnosis: your move and generated states are exactly those of alpha-beta pruning on "
        "equality" in ab
    )
    assert "First departure: your search never generated C (reached from min2 by Right)" in ab
    depth = reports(data, "broken_depth_per_agent", "q2")
    # Named alone, or with a mistake that fits the evidence equally (one round too shallow).
    assert "Diagnosis: your move and generated states" in depth
    assert "depth counted per agent move instead of per round" in depth
    assert "Diagnosis: your search asked for the score of a state that is neither" in depth
    expecti = reports(data, "broken_expectimax_min", "q4")
    assert "exactly those of ghosts taking the minimum (minimax) instead of the average" in expecti
    assert "    Student move: Left\n***         Optimal move: Right" in expecti
    ghost = reports(data, "broken_ghost_max", "q2")
    assert "Diagnosis: your move and generated states" in ghost
    assert "ghosts treated as MAX (every agent maximising)" in ghost


def test_sequence_compare_shows_where_the_expansions_part(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(REPO)
    code, out, _ = grader(
        capsys,
        "-t",
        "test_cases/q3/5-sequence",
        "--code-directory",
        submission_folder("broken_ab_equality", tmp_path),
    )
    assert code == 0
    assert "*** FAIL: test_cases/q3/5-sequence.test" in out
    assert "First departure: successor call 6: expected m2 South D, yours root East m3." in out
    assert "***         <> m2 South D" in out


# ------------------------------------------------------------------------------ hostile code


@needs_berkeley
def test_hostile_submissions_cost_only_their_own_points(capsys, tmp_path):
    suite = make_mini(tmp_path, SMALL)
    names = [
        "hostile_infinite_loop",
        "hostile_exit_at_import",
        "hostile_os_exit",
        "hostile_memory_bomb",
        "hostile_fake_grades",
        "hostile_monkeypatch",
        "hostile_borrow_reference",
    ]
    folder = make_submissions(tmp_path, names)
    code, _out, _ = grader(
        capsys,
        "--test-directory",
        suite,
        "--submissions",
        folder,
        "--move-timeout",
        5,
        "--memory-limit",
        512,
        "-j",
        2,
        "--summary",
        tmp_path / "grades",
    )
    assert code == 0
    rows, data = read_grades(tmp_path / "grades")
    grades = {name: (row["q2"], row["q3"], row["q4"], row["total"]) for name, row in rows.items()}
    assert grades == {
        "hostile_infinite_loop": ("5", "0", "5", "10"),
        "hostile_exit_at_import": ("0", "0", "0", "0"),
        "hostile_os_exit": ("0", "5", "5", "10"),
        "hostile_memory_bomb": ("5", "5", "0", "10"),
        "hostile_fake_grades": ("0", "5", "5", "10"),
        # The patches land while it is imported, before any answer: every answer goes
        # through its forged functions and is graded as what it says.
        "hostile_monkeypatch": ("0", "0", "0", "0"),
        "hostile_borrow_reference": ("0", "0", "0", "0"),
    }
    assert (
        "Your code timed out: AlphaBetaAgent.getAction used more than 5.0 s of CPU time "
        "(the per-move limit; 5."
    ) in reports(data, "hostile_infinite_loop", "q3")
    exited = next(s for s in data["submissions"] if s["submission"] == "hostile_exit_at_import")
    assert exited["error"] == (
        "Your code could not be imported: importing multiAgents.py: the code called sys.exit(0)"
    )
    assert "Not graded: the student's file does not import" in reports(
        data, "hostile_exit_at_import", "q4"
    )
    assert "Your code's process exited with status 3 (os._exit or a fatal error)." in reports(
        data, "hostile_os_exit", "q2"
    )
    assert "ExpectimaxAgent.getAction: ran out of memory (the limit is 512 MB of" in reports(
        data, "hostile_memory_bomb", "q4"
    )
    fake = reports(data, "hostile_fake_grades", "q2")
    assert "***     | Total: 25/25" in fake
    assert "\nTotal: 25/25" not in fake
    patched = reports(data, "hostile_monkeypatch", "q3")
    assert "Incorrect generated nodes for depth=3" in patched
    assert "Student generated nodes: max\n" in patched
    assert "attack failed: SandboxViolation" in reports(data, "hostile_monkeypatch", "q2")
    borrowed = reports(data, "hostile_borrow_reference", "q2")
    assert "import agents: HiddenModule" in borrowed
    assert "import pacman.grading.diagnose: HiddenModule" in borrowed


@needs_berkeley
def test_fake_grade_lines_never_reach_the_report(capsys, tmp_path):
    suite = make_mini(tmp_path)
    results = tmp_path / "results.json"
    code, out, _ = grader(
        capsys,
        "--test-directory",
        suite,
        "--code-directory",
        submission_folder("hostile_fake_grades", tmp_path),
        "--results",
        results,
    )
    assert code == 0
    assert json.loads(results.read_text())["score"] == 10
    starts = [line for line in out.splitlines() if line.startswith(("Total:", "###", "*** PASS"))]
    assert [line for line in starts if line.startswith("Total:")] == ["Total: 10/15"]
    assert "### Question q2: 0/5 ###" in starts
    assert "### Question q2: 5/5 ###" not in starts
    assert "***     | ### Question q2: 5/5 ###" in out


@needs_berkeley
@pytest.mark.parametrize("isolation", ["auto", "process"])
def test_solution_files_are_out_of_reach(capsys, tmp_path, isolation):
    suite = make_mini(tmp_path)
    canary = tmp_path / "canary.txt"
    canary.write_text("original")
    spy = tmp_path / "spy"
    spy.mkdir()
    text = submission_text("hostile_read_solutions")
    text = text.replace("@TEST_DIRECTORY@", str(suite)).replace("@CANARY@", str(canary))
    (spy / "multiAgents.py").write_text(text)
    results = tmp_path / "r.json"
    code, out, _ = grader(
        capsys,
        "--test-directory",
        suite,
        "--code-directory",
        spy,
        "-q",
        "q2",
        "--isolation",
        isolation,
        "--results",
        results,
    )
    assert code == 0
    assert last_line(out) == "Total: 0/5"
    assert "***     | stolen answers: 0" in out
    assert canary.read_text() == "original"
    assert json.loads(results.read_text())["score"] == 0


# ------------------------------------------------------------------------------ the command line


@needs_berkeley
def test_single_test_print_tests_and_gradescope_file(capsys, tmp_path, monkeypatch):
    suite = make_mini(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, _ = grader(
        capsys, "-t", suite / "q2" / "0-small-tree", "-p", "--gradescope-output", "--mute"
    )
    assert code == 0
    assert "*** Test suite/q2/0-small-tree.test:" in out
    assert '***     alg: "MinimaxAgent"' in out
    assert "***     root pacLeft minLeft" in out
    assert "*** PASS: suite/q2/0-small-tree.test" in out
    data = json.loads((tmp_path / "gradescope_response.json").read_text())
    assert (
        data["score"] == 0 and data["tests"][0]["output"] == "*** PASS: suite/q2/0-small-tree.test"
    )


def test_cs188_s_edx_output_graphics_and_test_classes_flags(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = submission_folder("broken_ab_equality", tmp_path)
    suite = str(Path(__file__).parents[1] / "test_cases")
    code, out, err = grader(
        capsys, "--test-directory", suite, "--code-directory", folder, "-q", "q3", "--mute",
        "--edx-output", "--graphics", "--test-case-code", "multiagentTestClasses.py",
    )  # fmt: skip
    assert code == 0 and "Total: 0/5" in out
    assert err == (
        "autograder: --graphics: graded games play in sandboxed workers, without a window; "
        "watch an agent with: pacman -p ReflexAgent -l testClassic\n"
    )
    assert (tmp_path / "edx_grade").read_text() == "0"
    page = (tmp_path / "edx_response.html").read_text()
    assert '<h3>Total score (0 / 5) <span class="incorrect"/></h3>' in page
    assert '<div class="shortform">Question q3 (0/5) <span class="incorrect"/></div>' in page
    assert "*** FAIL: " in page and page.count('<div class="test">') == 1
    code, out, err = grader(capsys, "--test-case-code", "myTestClasses.py")
    assert (code, out) == (2, "") and err.startswith(
        "autograder: --test-case-code myTestClasses.py: the test classes are built in"
    )


@pytest.mark.parametrize(
    "flags", [["--results", "r.json"], ["--gradescope-output"], ["--edx-output"], ["-p"]]
)
def test_one_submission_outputs_are_refused_with_a_batch(capsys, tmp_path, monkeypatch, flags):
    monkeypatch.chdir(tmp_path)
    submission_folder("cs188_style", tmp_path / "class")
    code, out, err = grader(capsys, "--submissions", tmp_path / "class", *flags)
    assert (code, out) == (2, "")
    assert err == (
        f"autograder: {flags[0]} is for one submission; a batch writes grades.csv and "
        "grades.json (--summary PREFIX): leave out one or the other\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["class"]  # nothing written


def test_user_mistakes_are_one_line_and_exit_2(capsys, tmp_path):
    code, _out, err = grader(capsys, "--no-such-flag")
    assert code == 2 and err.count("\n") == 1 and err.startswith("autograder: ")
    code, _out, err = grader(capsys, "--test-directory", tmp_path / "missing")
    assert (code, err) == (2, f"autograder: {tmp_path / 'missing'}: no such test directory\n")
    suite = tmp_path / "suite"
    (suite / "q2").mkdir(parents=True)
    (suite / "CONFIG").write_text('order: "q2"\n')
    (suite / "q2" / "CONFIG").write_text('max_points: "5"\nclass: "PassAllTestsQuestion"\n')
    (suite / "q2" / "bad.test").write_text('class: "GraphGameTreeTest"\nalg: MinimaxAgent\n')
    code, _out, err = grader(capsys, "--test-directory", suite)
    assert code == 2
    assert err == (
        f'autograder: {suite / "q2" / "bad.test"} line 2: expected key: "value" or '
        'key: """ but found \'alg: MinimaxAgent\'\n'
    )
    assert "Traceback" not in err


@needs_berkeley
def test_generate_solutions_reproduces_cs188s(capsys, tmp_path):
    suite = make_mini(tmp_path)
    originals = {}
    for solution in suite.glob("q*/*.solution"):
        originals[solution.name + solution.parent.name] = solution.read_text()
        solution.unlink()
    code, out, _ = grader(capsys, "--test-directory", suite, "--generate-solutions")
    assert code == 0 and "Wrote 7 solution files." in out
    from pacman.testfile import read_test_file

    for solution in suite.glob("q*/*.solution"):
        mine = read_test_file(solution)
        theirs = originals[solution.name + solution.parent.name]
        assert f'action: "{mine["action"]}"' in theirs
        assert f'generated: "{mine["generated"]}"' in theirs


def test_ghosts_field_is_parsed_without_eval():
    assert parse_ghosts("[RandomGhost(1), DirectionalGhost(2, prob_attack=0.5)]", "x") == [
        ("RandomGhost", [1], {}),
        ("DirectionalGhost", [2], {"prob_attack": 0.5}),
    ]
    for text in ["[__import__('os').system('true')]", "[RandomGhost(open('f'))]", "RandomGhost(1)"]:
        with pytest.raises(TestFileError, match="ghosts"):
            parse_ghosts(text, "t.test line 3")


@needs_berkeley
def test_course_folder_layout(capsys, tmp_path, monkeypatch):
    # CS188's usage: the student's file and test_cases/ side by side, graded from that folder.
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(FIXTURES / "cs188_style" / "multiAgents.py", course / "multiAgents.py")
    shutil.copytree(make_mini(tmp_path), course / "test_cases")
    monkeypatch.chdir(course)
    code, out, _ = grader(capsys, "--code-directory", ".", "--gradescope-output")
    assert code == 0
    assert last_line(out) == "Total: 15/15"
    assert json.loads((course / "gradescope_response.json").read_text())["score"] == 15


@needs_berkeley
def test_numpy_imports_but_ctypes_calls_are_refused(capsys, tmp_path):
    pytest.importorskip("numpy")
    suite = make_mini(tmp_path)
    student = tmp_path / "student"
    student.mkdir()
    text = (FIXTURES / "cs188_style" / "multiAgents.py").read_text()
    probe = (
        "import ctypes\nimport numpy\n"
        "try:\n    ctypes.CDLL(None)\nexcept Exception as error:\n"
        "    print('dlopen:', type(error).__name__)\n"
    )
    (student / "multiAgents.py").write_text(probe + text)
    code, out, _ = grader(
        capsys,
        "--test-directory",
        suite,
        "--code-directory",
        student,
        "-q",
        "q2",
        "--isolation",
        "process",
    )
    assert code == 0
    assert last_line(out) == "Total: 5/5"
    assert "***     | dlopen: SandboxViolation" in out


@needs_berkeley
def test_generate_solutions_reproduces_cs188s_recorded_games(capsys, tmp_path):
    # Best actions (ties included), explored counts with and without Stop, depth +-1 and the
    # partial-ply bug, for every one of the 146 turns of each of CS188's three games.
    suite = tmp_path / "games"
    suite.mkdir()
    (suite / "CONFIG").write_text('order: "q2 q3 q4"\n')
    games = {"q2": "8-pacman-game", "q3": "8-pacman-game", "q4": "7-pacman-game"}
    for question, name in games.items():
        (suite / question).mkdir()
        shutil.copy(BERKELEY / question / "CONFIG", suite / question / "CONFIG")
        shutil.copy(BERKELEY / question / f"{name}.test", suite / question / f"{name}.test")
    code, out, _ = grader(capsys, "--test-directory", suite, "--generate-solutions")
    assert code == 0 and "Wrote 3 solution files." in out
    from pacman.testfile import read_test_file

    for question, name in games.items():
        mine = read_test_file(suite / question / f"{name}.solution")
        theirs = read_test_file(BERKELEY / question / f"{name}.solution")
        for key in ("optimalActions", "altDepthActions", "partialPlyBugActions"):
            assert mine[key] == theirs[key], (question, key)


@needs_berkeley
def test_several_student_files_import_each_other_once(capsys, tmp_path):
    suite = make_mini(tmp_path, SMALL)
    student = tmp_path / "student"
    student.mkdir()
    text = (FIXTURES / "cs188_style" / "multiAgents.py").read_text()
    (student / "multiAgents.py").write_text("from helpers import announce\nannounce()\n" + text)
    (student / "helpers.py").write_text(
        "print('helpers imported')\n\n\ndef announce():\n    print('announced')\n"
    )
    code, out, _ = grader(
        capsys,
        "--test-directory",
        suite,
        "--code-directory",
        student,
        "--student-code",
        "multiAgents.py,helpers.py",
        "-j",
        1,
    )
    assert code == 0
    assert last_line(out) == "Total: 15/15"
    assert out.count("***     | helpers imported") == 1
    assert out.count("***     | announced") == 1


def test_pacman_autograde_subcommand(capsys, monkeypatch):
    from pacman.cli import main as pacman_main

    monkeypatch.chdir(REPO)
    assert pacman_main(["autograde", "-q", "q4", "--mute"]) == 0
    assert last_line(capsys.readouterr().out) == "Total: 5/5"


SYSTEM_PYTHON = Path("/usr/bin/python3")


@needs_berkeley
@pytest.mark.skipif(
    not (hasattr(os, "geteuid") and os.geteuid() == 0 and SYSTEM_PYTHON.exists()),
    reason="needs root and a system Python that an unprivileged user can run",
)
def test_root_process_mode_runs_student_code_as_nobody(tmp_path):
    # Without namespaces or the audit hook, a root grader still keeps 0700 solutions away.
    version = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info >= (3, 10))"],
        capture_output=True,
        text=True,
    )
    if version.stdout.strip() != "True":
        pytest.skip("the system Python is older than 3.10")
    suite = make_mini(tmp_path, SMALL)
    for path in [suite, *suite.rglob("*")]:
        path.chmod(0o700 if path.is_dir() else 0o600)
    tmp_path.chmod(0o755)
    spy = tmp_path / "spy"
    spy.mkdir()
    text = submission_text("hostile_read_solutions")
    canary = tmp_path / "canary.txt"
    canary.write_text("original")
    text = text.replace("@TEST_DIRECTORY@", str(suite)).replace("@CANARY@", str(canary))
    (spy / "multiAgents.py").write_text(text)
    run = subprocess.run(
        [
            SYSTEM_PYTHON,
            REPO / "autograder.py",
            "--test-directory",
            suite,
            "--code-directory",
            spy,
            "-q",
            "q2",
            "--isolation",
            "process",
            "--no-audit-hook",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    if "reading 0-small-tree.solution failed" not in run.stdout:
        pytest.skip("this machine cannot run student code as nobody")
    assert run.returncode == 0
    assert "***     | reading 0-small-tree.solution failed: PermissionError" in run.stdout
    assert "***     | stolen answers: 0" in run.stdout
    assert last_line(run.stdout) == "Total: 0/5"
    assert canary.read_text() == "original"
