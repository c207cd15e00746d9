"""Fresh suites (``--generate-suite``): every known mistake is caught, the same seed writes the
same bytes, bad input is one line, and nothing is ever half-written."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.search_config import config_from_test
from pacman.gametree import GameTree
from pacman.grade_cli import main
from pacman.grading import diagnose, suitegen
from pacman.grading.reference import root_values
from pacman.grading.suitegen import KINDS, MARGIN, mistake, question_tests

SHARED = {
    "ghosts treated as MAX",
    "depth counted per agent move instead of per round",
    "a search one round too shallow",
    "a search one round too deep",
    "evaluation before the depth limit",
}
MIXED = {
    "the first ghost {}, later ghosts maximising",
    "the first ghost maximising, later ghosts {}",
}
MINIMISING = {m.format("minimising") for m in MIXED}
AVERAGING = {m.format("averaging") for m in MIXED}
#: Every known mistake of the diagnosis, per question kind.
MISTAKES = {
    "minimax": SHARED | MINIMISING | {"ghosts averaging"},
    "alphabeta": SHARED
    | MINIMISING
    | {
        "alpha-beta pruning on equality",
        "minimax without any pruning",
        "alpha-beta without the root's bound",
    },
    "expectimax": SHARED
    | AVERAGING
    | {
        "ghosts taking the minimum",
        "chance nodes summed instead of averaged",
        "chance nodes divided by the ghost's index instead of by the number of moves",
        "chance nodes divided by the number of agents instead of by the number of moves",
    },
    "weighted": SHARED
    | AVERAGING
    | {
        "ghosts taking the minimum",
        "chance nodes averaged uniformly where the test gives probabilities",
    },
    "expectiminimax": SHARED
    | {
        "chance layers averaged uniformly where the test gives probabilities",
        "every ghost a MIN layer",
        "every ghost a chance layer",
        "MIN and chance swapped",
        "the layers in reverse order",
    },
}


def _caught(kind: str, tests: list) -> tuple[set[str], set[str]]:
    """The mistakes known on ``tests`` and those some test catches, found anew here: each
    variant searched on each tree and compared with the test's solution."""
    alg = KINDS[kind].alg
    known, caught = set(), set()
    for test in tests:
        tree, depth = GameTree.from_fields(test.test), int(test.test["depth"])
        solution = (test.solution["action"], test.solution["generated"].split())
        for variant in diagnose.variants_for(alg, tree):
            known.add(mistake(variant))
            found = diagnose.outcome(tree, depth, variant)
            if found is not None and found != solution:
                caught.add(mistake(variant))
    return known, caught


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_known_mistake_fails_a_generated_test_for_20_seeds(kind):
    for seed in range(20):
        tests, report = question_tests(kind, f"seed {seed}", 2)
        known, caught = _caught(kind, tests)
        assert known == caught == MISTAKES[kind], (kind, seed)
        assert set(report) == caught
        for test in tests:  # each solution is the reference search's
            tree, depth = GameTree.from_fields(test.test), int(test.test["depth"])
            right = diagnose.correct_variant(KINDS[kind].alg, tree)
            action, generated = diagnose.outcome(tree, depth, right)
            assert test.solution == {"action": action, "generated": " ".join(generated)}
            assert_fair(test.test, action)


def assert_fair(test: dict[str, str], action: str) -> None:
    """A tree assumes of an agent no more than CS188's suite does: no move is Stop, and the
    best root move beats every other by more than rounding (exact values, no pruning)."""
    tree = GameTree.from_fields(test)
    assert all(line.split()[1] != "Stop" for line in test["successors"].splitlines())
    values = root_values(tree.start, config_from_test(test["alg"], test["depth"], tree))
    best = values.pop(action)
    assert all(best - value > MARGIN * max(1.0, abs(best)) for value in values.values())


def _generate(capsys, folder: Path, *flags: str) -> tuple[int, str, str]:
    code = main(["--generate-suite", str(folder), *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_the_same_seed_writes_the_same_suite_byte_for_byte(capsys, tmp_path):
    code, out, err = _generate(capsys, tmp_path / "a", "--seed", "term", "--trees", "3")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith(f"Wrote {tmp_path / 'a'}: 5 questions, ")
    assert lines[0].endswith(" trees, seed term (keep the seed as secret as the solutions)")
    assert lines[1].startswith("q2 (minimax, MinimaxAgent): ")
    assert "    alpha-beta pruning on equality: " in out
    assert _generate(capsys, tmp_path / "b", "--seed", "term", "--trees", "3")[0] == 0
    first, second = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert first == second
    assert first["CONFIG"] == b'order: "q2 q3 q4 q6 q7"\n'
    assert first["q3/CONFIG"] == b'max_points: "5"\nclass: "PassAllTestsQuestion"\n'
    assert first["q7/CONFIG"] == b'max_points: "3"\nclass: "PassAllTestsQuestion"\n'
    assert _generate(capsys, tmp_path / "c", "--seed", "other", "--trees", "3")[0] == 0
    assert _files(tmp_path / "c") != first
    # A seed from a file, and only the questions asked.
    (tmp_path / "seed").write_text("term\n")
    flags = ("--seed", f"@{tmp_path / 'seed'}", "--trees", "3", "--kinds", "alphabeta,minimax")
    assert _generate(capsys, tmp_path / "d", *flags)[0] == 0
    assert _files(tmp_path / "d")["CONFIG"] == b'order: "q3 q2"\n'
    q3 = {name: text for name, text in first.items() if name.startswith("q3/")}
    assert {n: t for n, t in _files(tmp_path / "d").items() if n.startswith("q3/")} == q3


def test_a_generated_suite_gets_full_marks_from_right_searches(capsys, tmp_path):
    assert _generate(capsys, tmp_path / "suite", "--seed", "marks", "--trees", "3")[0] == 0
    assert main(["--test-directory", str(tmp_path / "suite"), "--game-secret", "s"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("Total: 21/21") and "FAIL" not in out
    chance = Path(__file__).parent / "fixtures" / "grading" / "chance_style"
    flags = ["--code-directory", str(chance), "--game-secret", "s"]
    for question in ("q6", "q7"):
        assert main(["--test-directory", str(tmp_path / "suite"), "-q", question, *flags]) == 0
        assert capsys.readouterr().out.rstrip().endswith("Total: 3/3")


@pytest.mark.parametrize(
    ("flags", "line"),
    [
        (["--kinds", "chess"], "--kinds chess: unknown; choose among minimax,alphabeta,"),
        (["--trees", "0"], "--trees 0: a whole number of trees from 1 to 1000"),
        (["--trees", "many"], "--trees many: a whole number of trees from 1 to 1000"),
        (["-q", "q2"], "--generate-suite writes a suite and grades nothing: leave out the rest"),
        (["--seed", "@/no/such/seed"], "--seed @/no/such/seed: cannot read /no/such/seed"),
    ],
)
def test_bad_generation_flags_are_one_line_and_exit_2(capsys, tmp_path, flags, line):
    code, out, err = _generate(capsys, tmp_path / "suite", *flags)
    assert code == 2 and out == ""
    assert err.startswith(f"autograder: {line}") and err.count("\n") == 1
    assert not (tmp_path / "suite").exists()


def test_a_suite_is_never_written_over_something_or_half(capsys, tmp_path, monkeypatch):
    assert main(["--seed", "x"]) == 2
    err = capsys.readouterr().err
    assert err == "autograder: --kinds, --trees and --seed go with --generate-suite DIR\n"
    full = tmp_path / "full"
    (full / "q2").mkdir(parents=True)
    code, _, err = _generate(capsys, full)
    assert (code, err) == (
        2,
        f"autograder: --generate-suite {full}: not empty; give a new folder\n",
    )
    (tmp_path / "file").write_text("")
    code, _, err = _generate(capsys, tmp_path / "file" / "suite")
    assert code == 2 and err.startswith(f"autograder: --generate-suite {tmp_path}/file/suite: ")
    # An empty folder is filled; a suite a known mistake would pass is refused, whole.
    (tmp_path / "empty").mkdir()
    assert _generate(capsys, tmp_path / "empty", "--trees", "1", "--kinds", "minimax")[0] == 0
    monkeypatch.setattr(suitegen, "SPARE_TREES", 0)
    flags = ("--seed", "x", "--trees", "1", "--kinds", "alphabeta")
    code, out, err = _generate(capsys, tmp_path / "refused", *flags)
    assert code == 2 and out == ""
    assert err.startswith("autograder: fresh trees for q3 (alphabeta): none of 1 drawn catches ")
    assert err.endswith("; no suite is written that a known mistake passes\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "file", "full"]


def test_each_known_mistake_of_cs188s_questions_has_a_cs188_style_file():
    from grading_submissions import MISTAKES as FILES

    assert set(FILES) == MISTAKES["minimax"] | MISTAKES["alphabeta"] | MISTAKES["expectimax"]
