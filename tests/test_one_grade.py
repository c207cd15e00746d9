"""One file, one suite: one grade.

A submission that draws from ``random`` (``tests/fixtures/grading/random_draws``: at import,
when built, before each search, and to pick among moves of equal value) gets the same grade
on every run: alone, in a batch, on fresh trees and through a Gradescope bundle. Its
worker seeds ``random`` (and NumPy's generator) as CS188 does, and the ghosts of evaluation
games draw with the course's secret or, without one, the test's own: never one drawn per run
or mixed with the submission's bytes, so a regrade and a resubmission meet the same games.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import BERKELEY
from grading_submissions import make_mini

from pacman.grade_cli import main

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "grading"
RANDOM_DRAWS = FIXTURES / "random_draws" / "multiAgents.py"
HONEST = FIXTURES / "cs188_style" / "multiAgents.py"
RUNS = 5

needs_berkeley = pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")

GAMES = """class: "EvalAgentTest"
agentName: "ReflexAgent"
layoutName: "openClassic"
maxTime: "60"
numGames: "3"
randomSeed: "11"
ghosts: "[RandomGhost(1)]"
scoreThresholds: "500 1000 1200"
winsThresholds: "1 2 3"
"""

#: Trees whose root moves all have one value (their moves, the solution's move): CS188
#: leaves the choice free, so an agent picking at random passes or fails each by its draws.
TIED_TREES = (
    ("Left Right", "Left"),
    ("Left Center Right", "Right"),
    ("North South East West", "North"),
)


def _tied_tree(moves: str, chosen: str) -> tuple[str, str]:
    """A depth-1 tree (Pac-Man, one ghost) whose root ``moves`` are all worth 5, and whose
    solution's move is ``chosen``; its test and solution texts."""
    children = [f"m{i}" for i, _ in enumerate(moves.split())]
    successors = [f"root {move} m{i}" for i, move in enumerate(moves.split())]
    successors += [f"{child} Down {child}x" for child in children]
    test = "\n".join(
        [
            'class: "GraphGameTreeTest"',
            'alg: "MinimaxAgent"',
            'depth: "1"',
            'num_agents: "2"',
            'start_state: "root"',
            'win_states: ""',
            'lose_states: ""',
            'successors: """',
            *successors,
            '"""',
            'evaluation: """',
            *(f"{child}x 5.0" for child in children),
            '"""',
        ]
    )
    generated = sorted(["root", *children, *(f"{child}x" for child in children)])
    solution = f'action: "{chosen}"\ngenerated: "{" ".join(generated)}"\n'
    return test + "\n", solution


def _suite(root: Path) -> Path:
    """q1: evaluation games (partial credit); q2: CS188's small tree and the tied trees."""
    suite = make_mini(root, {"q2": ["0-small-tree"]})
    (suite / "CONFIG").write_text('order: "q1 q2"\n')
    (suite / "q1").mkdir()
    (suite / "q1" / "CONFIG").write_text('max_points: "6"\nclass: "PartialCreditQuestion"\n')
    (suite / "q1" / "grade-agent.test").write_text(GAMES)
    for number, (moves, chosen) in enumerate(TIED_TREES, start=1):
        test, solution = _tied_tree(moves, chosen)
        (suite / "q2" / f"{number}-tied-root.test").write_text(test)
        (suite / "q2" / f"{number}-tied-root.solution").write_text(solution)
    return suite


def _hand_in(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "multiAgents.py").write_text(text)
    return folder


def _graded(results: dict) -> list[tuple[str, float, str]]:
    """What a results JSON says of each question (name, points, the tests' report): every
    verdict and every game's score, and nothing of the run (its time, its uid)."""
    return [(t["name"], t["score"], t["output"]) for t in results["tests"]]


def _scores(graded: list[tuple[str, float, str]]) -> list[str]:
    """The ``Scores: ...`` lines of a report: each game's score."""
    return [line for _, _, text in graded for line in text.splitlines() if "Scores: " in line]


def _single(suite: Path, code: Path, results: Path, *flags: str) -> list[tuple[str, float, str]]:
    flags = ("--test-directory", str(suite), "--code-directory", str(code), *flags)
    assert main([*flags, "--mute", "--results", str(results)]) == 0
    return _graded(json.loads(results.read_text()))


@needs_berkeley
def test_single_runs_of_a_file_that_draws_from_random_give_one_grade(tmp_path, capsys):
    suite = _suite(tmp_path)
    code = _hand_in(tmp_path / "hand-in", RANDOM_DRAWS.read_text())
    runs = [_single(suite, code, tmp_path / f"{run}.json") for run in range(RUNS)]
    assert all(run == runs[0] for run in runs), runs
    # The draws decide the tied trees, and repeat: random seeded 0 before each tree test (as
    # CS188 seeds it before a test run alone) picks the first of the tied moves.
    verdicts = [line.split("/q2/")[-1] for line in runs[0][1][2].splitlines() if "/q2/" in line]
    assert verdicts == [
        "0-small-tree.test",
        "1-tied-root.test",
        "2-tied-root.test",
        "3-tied-root.test",
    ]
    passed = [line.startswith("*** PASS") for line in runs[0][1][2].splitlines() if "/q2/" in line]
    assert passed == [True, True, False, True]
    assert len(_scores(runs[0])) == 1


@needs_berkeley
def test_the_full_marks_files_games_are_the_same_on_every_run_without_a_secret(tmp_path, capsys):
    suite = _suite(tmp_path)
    code = _hand_in(tmp_path / "hand-in", HONEST.read_text())
    runs = [_single(suite, code, tmp_path / f"{run}.json", "-q", "q1") for run in range(3)]
    assert all(run == runs[0] for run in runs), runs
    scores = _scores(runs[0])
    assert len(scores) == 1 and len(scores[0].split(", ")) == 3
    # A course's own secret gives other games (the ghosts draw with it), again the same on
    # every run.
    secret = ("-q", "q1", "--game-secret", "the course's")
    with_secret = [_single(suite, code, tmp_path / f"s{run}.json", *secret) for run in range(2)]
    assert with_secret[0] == with_secret[1] != runs[0]


@needs_berkeley
def test_batches_give_every_copy_of_the_file_one_grade(tmp_path, capsys):
    suite = _suite(tmp_path)
    text = RANDOM_DRAWS.read_text()
    records = []
    # Two batches (each its own run, as a regrade is): 3 copies, then 2.
    for batch, copies in (("first", 3), ("second", 2)):
        for copy in range(copies):
            _hand_in(tmp_path / batch / f"student{copy}", text)
        prefix = tmp_path / f"{batch}-grades"
        flags = ["--test-directory", str(suite), "--submissions", str(tmp_path / batch)]
        assert main([*flags, "--summary", str(prefix), "-j", "2", "--mute"]) == 0
        records += json.loads(Path(f"{prefix}.json").read_text())["submissions"]
    assert len(records) == RUNS
    graded = [(r["total"], r["questions"]) for r in records]
    assert all(grade == graded[0] for grade in graded), graded
    games = graded[0][1]["q1"]["tests"][0]["games"]
    assert games["games"] == 3 and len(games["scores"]) == 3


@needs_berkeley
def test_fresh_trees_give_a_file_that_draws_from_random_one_grade(tmp_path, capsys):
    suite = _suite(tmp_path)
    code = _hand_in(tmp_path / "hand-in", RANDOM_DRAWS.read_text())
    fresh = ("-q", "q2", "--fresh-trees", "q2", "--game-secret", "the course's")
    runs = [_single(suite, code, tmp_path / f"{run}.json", *fresh) for run in range(RUNS)]
    assert all(run == runs[0] for run in runs), runs
    assert runs[0][0][2].count("fresh-") >= 4  # the trees drawn for this file, not the suite's


def _bundle(tmp_path: Path, suite: Path) -> Path:
    """Gradescope's layout of a bundle (its source folder as ``--gradescope-bundle`` packs
    it) around ``suite``."""
    from pacman.grading.options import GradingOptions

    root = tmp_path / "autograder"
    shutil.copytree(suite, root / "source" / "test_cases")
    config = {
        "format": "pacman-gradescope-bundle",
        "version": 2,
        "student_code": ["multiAgents.py"],
        "options": GradingOptions(mute=True).to_json(),
        "hidden": [],
        "leaderboard": False,
        "game_secret": "the bundle's own",
    }
    (root / "source" / "pacman-bundle.json").write_text(json.dumps(config))
    return root


def _through_bundle(root: Path, text: str) -> list[tuple[str, float, str]]:
    from pacman.grading.gradescope import main as run_autograder

    shutil.rmtree(root / "submission", ignore_errors=True)
    _hand_in(root / "submission", text)
    assert run_autograder([str(root)]) == 0
    return _graded(json.loads((root / "results" / "results.json").read_text()))


@needs_berkeley
def test_a_bundle_gives_one_grade_and_a_resubmission_meets_the_same_games(tmp_path, capsys):
    suite = _suite(tmp_path)
    root = _bundle(tmp_path, suite)
    text = RANDOM_DRAWS.read_text()
    runs = [_through_bundle(root, text) for _ in range(RUNS)]
    assert all(run == runs[0] for run in runs), runs
    # Resubmitted with a changed comment: the same games (and the same grade).
    assert _through_bundle(root, text + "\n# resubmitted after a look at the report\n") == runs[0]
    # The bundle's games are its secret's: a local run given that secret plays them too.
    code = _hand_in(tmp_path / "hand-in", text)
    flags = ("-q", "q1", "--game-secret", "the bundle's own")
    local = _single(suite, code, tmp_path / "local.json", *flags)
    assert _scores(local) == _scores(runs[0]) and len(_scores(local)) == 1


NUMPY_CHOICE = """
def pickAmongBest(scored):
    import numpy  # where the choice is made, as some students import it
    bestValue = max(value for value, _ in scored)
    best = [action for value, action in scored if value == bestValue]
    return best[int(numpy.random.randint(len(best)))]
"""


@needs_berkeley
def test_a_file_that_draws_from_numpy_gets_one_grade(tmp_path, capsys):
    pytest.importorskip("numpy")
    text = RANDOM_DRAWS.read_text() + NUMPY_CHOICE  # the later definition wins
    code = _hand_in(tmp_path / "hand-in", text)
    suite = _suite(tmp_path)
    runs = [_single(suite, code, tmp_path / f"{run}.json", "-q", "q2") for run in range(3)]
    assert all(run == runs[0] for run in runs), runs
    assert "Error" not in runs[0][0][2]
