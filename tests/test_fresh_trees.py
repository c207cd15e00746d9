"""Fresh trees are fair to every right agent and catch every known mistake; trees drawn for
each submission (``--fresh-trees``); and what a table of CS188's public answers is worth once
the trees are fresh."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path

import pytest
from grading_submissions import (
    BERKELEY,
    CORRECT,
    FIXTURES,
    MISTAKES,
    QUESTION_OF,
    ask_tree,
    cs188_questions,
    make_mini,
    make_submissions,
    mistake_text,
    mistaken_questions,
    student_runtime,
    submission_folder,
    tree_passes,
)

from pacman.gametree import GameTree
from pacman.grade_cli import main
from pacman.grading import diagnose
from pacman.grading.report import test_listing as printed_listing
from pacman.grading.suite import load_suite
from pacman.grading.suitegen import KINDS, FreshTest, fresh_questions, mistake, question_tests
from pacman.testfile import parse_test_text, read_test_file

needs_berkeley = pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")
LOOKUP = FIXTURES / "lookup_style" / "multiAgents.py"
FRESH = ("--fresh-trees", "q2,q3,q4", "--game-secret", "the course's own")
#: Ten seeds, each a suite of every question (``--trees 8``, as by default).
SEEDS = tuple(f"corpus {number}" for number in range(10))
CS188_KINDS = ("minimax", "alphabeta", "expectimax")


@functools.cache
def fresh_suites(kind: str) -> dict[str, list[FreshTest]]:
    """The tests of question ``kind`` for each of :data:`SEEDS`, as ``--generate-suite``
    writes them (drawn once for the whole module)."""
    return {seed: question_tests(kind, seed, 8)[0] for seed in SEEDS}


def lost_seeds(path: Path, kinds: tuple[str, ...] = tuple(KINDS)) -> dict[str, list[str]]:
    """For each question of ``kinds``, the seeds whose suite the submission at ``path`` fails
    in some test: graded in this process, each tree asked as a worker asks it."""
    lost: dict[str, list[str]] = {}
    with student_runtime(path) as runtime:
        for kind in kinds:
            for seed, tests in fresh_suites(kind).items():
                if not all(tree_passes(runtime, t.test, t.solution) for t in tests):
                    lost.setdefault(KINDS[kind].question, []).append(seed)
    return lost


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_right_agents_written_differently_get_full_marks_on_10_fresh_suites(name):
    """Last of equal moves, max over (value, action) pairs, random among equal moves, Stop
    left out, moves walked in reverse, the snake_case API, values remembered: CS188's suite
    gives each full marks, and so does every fresh suite, question by question. Walking the
    moves in reverse changes which states alpha-beta generates, so q3 fails it, as CS188's
    q3 does; q2, q4, q6 and q7 do not."""
    lost = lost_seeds(FIXTURES / name / "multiAgents.py")
    assert not set(lost) & set(CORRECT[name])
    if name == "reversed_order":
        assert lost == {"q3": list(SEEDS)}


@needs_berkeley
def test_cs188s_public_suite_gives_the_right_files_what_fresh_trees_give(capsys, tmp_path):
    """The right files of the corpus answering CS188's questions, on CS188's public q2-q4
    (recorded games included), graded here: the points every fresh suite gives them."""
    names = [name for name, questions in CORRECT.items() if "q2" in questions]
    submissions = make_submissions(tmp_path, names)
    rows = _batch(capsys, tmp_path, submissions, cs188_questions(tmp_path), "--game-secret", "s")
    points = {
        name: {q: row["points"] for q, row in rows[name]["questions"].items()} for name in rows
    }
    assert points == {
        name: {q: 5.0 if q in CORRECT[name] else 0.0 for q in ("q2", "q3", "q4")} for name in names
    }


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_every_known_mistake_loses_its_question_on_10_fresh_suites(name, tmp_path):
    path = tmp_path / "multiAgents.py"
    path.write_text(mistake_text(name))
    lost = lost_seeds(path, CS188_KINDS)
    assert lost == {question: list(SEEDS) for question in mistaken_questions(name)}


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_a_failed_fresh_tree_is_diagnosed_with_the_mistake_made(name, tmp_path):
    """Wherever a mistake fails a tree and its search runs to the end, the diagnosis names
    it, alone or among every mistake its evidence fits equally; where the tree cannot tell it
    from another (a mix of MIN and MAX with one ghost is every ghost MAX), it names that one."""
    path = tmp_path / "multiAgents.py"
    path.write_text(mistake_text(name))
    named = 0
    with student_runtime(path) as runtime:
        for kind in CS188_KINDS:
            for test in (t for tests in fresh_suites(kind).values() for t in tests):
                action, generated, error = ask_tree(runtime, test.test)
                gold = (test.solution["action"], sorted(test.solution["generated"].split()))
                if error is not None or (action, generated) == gold:
                    continue
                tree, depth = GameTree.from_fields(test.test), int(test.test["depth"])
                (said,) = diagnose.diagnose(tree, depth, test.test["alg"], action, generated)
                known = {mistake(v) for v in diagnose.variants_for(test.test["alg"], tree)}
                assert name in said or (name not in known and "ghosts treated as MAX" in said)
                named += name in said
    assert named > 0


def _trees(questions: list) -> dict[str, dict]:
    """Each question's tests, by name, as fields (the tree tests' and their solutions')."""
    found = {}
    for question in questions:
        for test, path in question.tests:
            solution = question.solutions.get(path, {})
            found[test.display_path] = {
                **test.test,
                **{f"solution {k}": v for k, v in solution.items()},
            }
    return found


@needs_berkeley
def test_two_submissions_get_different_trees_and_a_regrade_the_same(tmp_path):
    questions = load_suite(str(make_mini(tmp_path)))
    files = {"multiAgents.py": (FIXTURES / "cs188_style" / "multiAgents.py").read_bytes()}
    other = {"multiAgents.py": (FIXTURES / "other_style" / "multiAgents.py").read_bytes()}
    names = ("q2", "q3", "q4")
    mine = _trees(fresh_questions(questions, names, "secret", files))
    assert mine == _trees(fresh_questions(questions, names, "secret", dict(files)))
    theirs = _trees(fresh_questions(questions, names, "secret", other))
    assert _trees(fresh_questions(questions, names, "another secret", files)) != mine
    # At least as many trees as each question had, of its agent (more where one more catches
    # a known mistake), all of them others for another submission; the other tests stay.
    for fresh in (mine, theirs):
        kinds = [n.rsplit("/", 1)[1].split("-")[1:3] for n in fresh if "/fresh-" in n]
        for kind, least in (("minimax", 3), ("alphabeta", 2), ("expectimax", 2)):
            numbers = [int(number) for name, number in kinds if name == kind]
            assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= least
    trees = [fields for fields in theirs.values() if "num_agents" in fields]
    assert trees and not any(tree in mine.values() for tree in trees)
    kept = {name: fields for name, fields in _trees(questions).items() if "/fresh-" not in name}
    assert {name: mine[name] for name in mine if "/fresh-" not in name} == {
        name: fields for name, fields in kept.items() if fields["class"] != "GraphGameTreeTest"
    }


@needs_berkeley
def test_print_tests_lists_each_fresh_tree_as_drawn(tmp_path):
    questions = load_suite(str(make_mini(tmp_path)))
    files = {"multiAgents.py": (FIXTURES / "cs188_style" / "multiAgents.py").read_bytes()}
    fresh = [t for q in fresh_questions(questions, ("q2",), "s", files) for t, _ in q.tests]
    fresh = [test for test in fresh if "/fresh-" in test.display_path]
    assert fresh
    for test in fresh:  # -p prints what is graded, though no file holds it
        listing = printed_listing(test)
        assert listing[0] == f"*** Test {test.display_path}:"
        assert parse_test_text("\n".join(line[8:] for line in listing[1:])) == test.test


def _batch(capsys, tmp_path: Path, submissions: Path, suite: Path, *flags: str) -> dict:
    """A ``--submissions`` batch's rows by submission (its summary named by ``flags``)."""
    prefix = tmp_path / "-".join(["grades", *flags]).replace("/", "_")
    batch = ["--submissions", str(submissions), "--test-directory", str(suite)]
    code = main([*batch, "--summary", str(prefix), "-j", "2", *flags])
    capsys.readouterr()
    assert code == 0
    rows = json.loads(prefix.with_suffix(".json").read_text())["submissions"]
    return {row["submission"]: row for row in rows}


@needs_berkeley
def test_full_marks_on_fresh_trees_and_the_same_report_on_a_regrade(capsys, tmp_path):
    suite = make_mini(tmp_path)
    # Right files (two that break ties their own way among them) meet their own trees.
    right = ["cs188_style", "other_style", "last_of_equal", "random_ties"]
    submissions = make_submissions(tmp_path, [*right, "broken_ghost_max"])
    first = _batch(capsys, tmp_path, submissions, suite, *FRESH)
    assert {name: row["total"] for name, row in first.items()} == {
        "broken_ghost_max": 10.0,
        **dict.fromkeys(right, 15.0),
    }
    again = _batch(capsys, tmp_path, submissions, suite, *FRESH, "--mute")
    for name, row in first.items():
        assert row["questions"] == again[name]["questions"], name
    failed = [t for t in first["broken_ghost_max"]["questions"]["q2"]["tests"] if not t["passed"]]
    assert failed and all("/fresh-minimax-" in t["test"] for t in failed)
    assert all("Tree:" in t["report"] and "Diagnosis: " in t["report"] for t in failed)


@needs_berkeley
def test_a_fresh_tree_gets_its_diagnosis_and_its_html_page(capsys, tmp_path):
    folder = submission_folder("broken_ghost_max", tmp_path)
    pages = tmp_path / "pages"
    code = main([
        "--test-directory", str(make_mini(tmp_path)), "--code-directory", str(folder),
        "-q", "q2", "--html-report", str(pages), *FRESH,
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "### Question q2: 0/5 ###" in out
    assert "*** FAIL: " in out and "fresh-minimax-" in out
    assert "ghosts treated as MAX" in "".join(x for x in out.splitlines() if "Diagnosis" in x)
    assert sorted(p.name for p in pages.iterdir())[0].startswith("q2-fresh-minimax-0")


@pytest.mark.parametrize(
    ("flags", "line"),
    [
        (["--fresh-trees", "q2"], "--fresh-trees needs --game-secret (a regrade draws the same"),
        (
            ["--fresh-trees", "q9", "--game-secret", "s"],
            "--fresh-trees q9: no such question (q1 q2 q3 q4 q5 q6 q7)",
        ),
        (["--fresh-trees", "q1", "--game-secret", "s"], "--fresh-trees q1: fresh trees replace"),
        (["--fresh-trees", "q2", "-t", "x"], "--fresh-trees grades whole questions: leave out -t"),
    ],
)
def test_bad_fresh_tree_flags_are_one_line_and_exit_2(capsys, flags, line):
    code = main(["--test-directory", str(Path(__file__).parents[1] / "test_cases"), *flags])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"autograder: {line}") and err.count("\n") == 1


def lookup_table() -> str:
    """The lookup submission, its tables filled from CS188's public q2-q4 solutions."""
    trees, games = {}, {}
    for question in QUESTION_OF.values():
        for path in sorted((BERKELEY / question).glob("*.test")):
            test = read_test_file(path)
            solution = read_test_file(path.with_suffix(".solution"))
            if test["class"] == "GraphGameTreeTest":
                lines = (line.split() for line in test["evaluation"].splitlines() if line.strip())
                values = sorted((name, float(value)) for name, value in lines)
                edges = sorted(tuple(line.split()) for line in test["successors"].splitlines())
                shape = (int(test["num_agents"]), test["start_state"], values, edges)
                key = repr((test["alg"], int(test["depth"]), *shape))
                trees[key] = (solution["action"], solution["generated"].split())
            elif test["alg"] != "MinimaxAgent":  # the honest part plays its own games
                turns = [json.loads(line)[0] for line in solution["optimalActions"].splitlines()]
                games[test["alg"]] = [(actions[0], count) for actions, count in turns]
    text = LOOKUP.read_text()
    return text.replace("TREES = {}", f"TREES = {trees!r}").replace(
        "GAMES = {}", f"GAMES = {games!r}"
    )


def _total(capsys, suite: Path, folder: Path) -> str:
    code = main(
        ["--test-directory", str(suite), "--code-directory", str(folder), "--game-secret", "s"]
    )
    out = capsys.readouterr().out
    assert code == 0
    return out.rstrip().splitlines()[-1]


@needs_berkeley
def test_a_lookup_table_of_public_answers_is_worth_nothing_on_fresh_trees(capsys, tmp_path):
    cs188 = cs188_questions(tmp_path)
    fresh = tmp_path / "fresh"
    kinds = ("--kinds", "minimax,alphabeta,expectimax", "--seed", "lookup", "--trees", "6")
    assert main(["--generate-suite", str(fresh), *kinds]) == 0
    lookup, honest = tmp_path / "lookup", tmp_path / "honest"
    for folder, text in ((lookup, lookup_table()), (honest, LOOKUP.read_text())):
        folder.mkdir()
        (folder / "multiAgents.py").write_text(text)
    capsys.readouterr()
    assert _total(capsys, cs188, lookup) == "Total: 15/15"
    # Fresh trees: the table answers nothing; only its honest part (minimax, q2) scores.
    assert _total(capsys, fresh, lookup) == _total(capsys, fresh, honest) == "Total: 5/15"


def test_graded_sandboxed_right_files_get_full_marks_and_mistakes_lose_their_questions(
    capsys, tmp_path
):
    """The end-to-end check of the in-process grading above: one generated suite, every right
    file and every mistake file in one sandboxed ``--submissions`` batch."""
    suite = tmp_path / "suite"
    assert main(["--generate-suite", str(suite), "--seed", "mistakes", "--trees", "2"]) == 0
    submissions = tmp_path / "submissions"
    for name in CORRECT:
        submission_folder(name, submissions)
    for name in MISTAKES:
        (submissions / name.replace(" ", "_")).mkdir(parents=True)
        (submissions / name.replace(" ", "_") / "multiAgents.py").write_text(mistake_text(name))
    rows = _batch(capsys, tmp_path, submissions, suite)
    lost = {
        name: {q for q, row in rows[name]["questions"].items() if row["points"] < row["max_points"]}
        for name in rows
    }
    for name, questions in CORRECT.items():
        assert not lost[name] & set(questions), name
    for name in MISTAKES:
        assert lost[name.replace(" ", "_")] & {"q2", "q3", "q4"} == mistaken_questions(name)


@needs_berkeley
def test_a_bundle_draws_each_submission_its_trees_from_its_secret_and_files(tmp_path):
    from pacman.grading.gradescope import main as run_autograder
    from pacman.grading.options import GradingOptions

    root = tmp_path / "autograder"
    suite = shutil.copytree(make_mini(tmp_path), root / "source" / "test_cases")
    config = {
        "format": "pacman-gradescope-bundle",
        "version": 2,
        "student_code": ["multiAgents.py"],
        "options": GradingOptions(fresh_trees=("q2", "q3", "q4")).to_json(),
        "hidden": [],
        "leaderboard": False,
        "game_secret": "the course's",
    }
    (root / "source" / "pacman-bundle.json").write_text(json.dumps(config))
    seen = []
    for fixture in ("cs188_style", "other_style", "cs188_style"):
        shutil.rmtree(root / "submission", ignore_errors=True)
        (root / "submission").mkdir()
        text = (FIXTURES / fixture / "multiAgents.py").read_bytes()
        (root / "submission" / "multiAgents.py").write_bytes(text)
        assert run_autograder([str(root)]) == 0
        results = json.loads((root / "results" / "results.json").read_text())
        assert results["score"] == 15.0
        # The bundle's secret (never mixed with a submission's files) and the files.
        files = {"multiAgents.py": text}
        drawn = _trees(
            fresh_questions(load_suite(str(suite)), ("q2", "q3", "q4"), "the course's", files)
        )
        seen.append(drawn)
        names = [t["name"] for t in results["tests"] if "/" in t["name"]]
        assert names == [n.split("/test_cases/")[1].removesuffix(".test") for n in drawn]
    assert seen[0] == seen[2] != seen[1]
