"""Trees drawn for each submission (``--fresh-trees``), and what a table of CS188's public
answers is worth once the trees are fresh."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from grading_submissions import (
    BERKELEY,
    FIXTURES,
    MISTAKES,
    QUESTION_OF,
    cs188_questions,
    make_mini,
    make_submissions,
    mistake_text,
    mistaken_questions,
    submission_folder,
)

from pacman.grading import main
from pacman.grading.report import test_listing as printed_listing
from pacman.grading.suite import load_suite
from pacman.grading.suitegen import fresh_questions
from pacman.testfile import parse_test_text, read_test_file

needs_berkeley = pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")
LOOKUP = FIXTURES / "lookup_style" / "multiAgents.py"
FRESH = ("--fresh-trees", "q2,q3,q4", "--game-secret", "the course's own")


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
    submissions = make_submissions(tmp_path, ["cs188_style", "other_style", "broken_ghost_max"])
    first = _batch(capsys, tmp_path, submissions, suite, *FRESH)
    assert {name: row["total"] for name, row in first.items()} == {
        "broken_ghost_max": 10.0,
        "cs188_style": 15.0,
        "other_style": 15.0,
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


def test_every_mistake_file_loses_exactly_its_questions_on_a_generated_suite(capsys, tmp_path):
    suite = tmp_path / "suite"
    kinds = ("--kinds", "minimax,alphabeta,expectimax", "--seed", "mistakes", "--trees", "4")
    assert main(["--generate-suite", str(suite), *kinds]) == 0
    submissions = tmp_path / "submissions"
    for name in MISTAKES:
        (submissions / name.replace(" ", "_")).mkdir(parents=True)
        (submissions / name.replace(" ", "_") / "multiAgents.py").write_text(mistake_text(name))
    rows = _batch(capsys, tmp_path, submissions, suite)
    for name in MISTAKES:
        questions = rows[name.replace(" ", "_")]["questions"]
        lost = {q for q, row in questions.items() if row["points"] < row["max_points"]}
        assert lost == mistaken_questions(name)


@needs_berkeley
def test_a_bundle_draws_each_submission_its_trees_from_its_secret_and_files(tmp_path):
    from pacman.grading.gradescope import main as run_autograder
    from pacman.grading.options import GradingOptions
    from pacman.seeding import mixed_secret

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
        # The submission's secret (the bundle's mixed with its files), then its files again.
        secret, files = mixed_secret("the course's", text), {"multiAgents.py": text}
        drawn = _trees(fresh_questions(load_suite(str(suite)), ("q2", "q3", "q4"), secret, files))
        seen.append(drawn)
        names = [t["name"] for t in results["tests"] if "/" in t["name"]]
        assert names == [n.split("/test_cases/")[1].removesuffix(".test") for n in drawn]
    assert seen[0] == seen[2] != seen[1]
