"""Fresh tree tests: a term's suite (``--generate-suite``) and trees drawn for each submission
(``--fresh-trees``).

Trees are drawn by :mod:`pacman.treegen`. Each is solved by the one reference search (the
diagnosis's correct variant of :func:`agents.search.search`) and searched by every known wrong
variant of the diagnosis; a question keeps drawing trees until each of its known mistakes fails
at least one of its tests, and a question some known mistake would pass is refused. The same
seed gives the same tests, byte for byte.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pacman.errors import UsageError
from pacman.grading import diagnose
from pacman.grading.options import SuiteRequest
from pacman.grading.suite import Question
from pacman.grading.testcase import TestCase
from pacman.testfile import format_test_file
from pacman.treegen import DrawnTree, TreeSpec, draw_tree


@dataclass(frozen=True)
class Kind:
    """A question of fresh trees: its folder, agent, points (CS188's for q2-q4) and trees."""

    question: str
    alg: str
    points: int
    spec: TreeSpec


KINDS = {
    "minimax": Kind("q2", "MinimaxAgent", 5, TreeSpec((1, 2), "none")),
    "alphabeta": Kind("q3", "AlphaBetaAgent", 5, TreeSpec((1, 2), "none")),
    "expectimax": Kind("q4", "ExpectimaxAgent", 5, TreeSpec((1, 2), "uniform")),
    "weighted": Kind("q6", "ExpectimaxAgent", 3, TreeSpec((1, 2), "weighted")),
    "expectiminimax": Kind("q7", "ExpectiminimaxAgent", 3, TreeSpec((2, 3), "mixed")),
}
SPARE_TREES = 200  # more trees a question may draw for a mistake none of its tests catches
TRIES = 20  # draws for one tree whose solution hangs on no tie
#: How much better than every other root move the best must be, relative to its value: more
#: than a float's rounding (the same average summed in another order), less than any real gap.
MARGIN = 1e-6


@dataclass(frozen=True)
class FreshTest:
    """One test: its name, fields, solution and the known mistakes it catches."""

    name: str
    test: dict[str, str]
    solution: dict[str, str]
    catches: tuple[str, ...]


def mistake(variant: diagnose.Variant) -> str:
    """A known mistake's short name: ``alpha-beta pruning on equality``, whatever the tree."""
    return variant.description.split(", where")[0].split(" (")[0]


#: The kind of a tree test asking for each agent (``weighted``: expectimax with probabilities).
ALGS = {kind.alg: name for name, kind in KINDS.items() if name != "weighted"}


def kind_of(test: TestCase) -> str | None:
    """The fresh-tree kind of a suite's test (``None``: not a tree test of a known agent)."""
    if test.kind != "GraphGameTreeTest":
        return None
    kind = ALGS.get(test.alg)  # type: ignore[attr-defined]
    return "weighted" if kind == "expectimax" and test.tree.probabilities else kind  # type: ignore[attr-defined]


def solved(kind: Kind, drawn: DrawnTree) -> tuple[FreshTest, set[str]] | None:
    """The test of ``drawn`` and every mistake known on it; ``None`` when its answer would
    hang on tie-breaking or rounding: another root move worth the best move's value, exactly
    or within :data:`MARGIN` (an agent may keep the last of equal moves, pick among them at
    random or walk the moves in reverse, and CS188's suite passes it)."""
    from agents.search_config import config_from_test
    from pacman.gametree import GameTree
    from pacman.grading.reference import root_values

    tree = GameTree.from_fields(drawn.fields)
    right = diagnose.outcome(tree, drawn.depth, diagnose.correct_variant(kind.alg, tree))
    if right is None or right[0] is None:
        return None
    action = right[0]
    values = root_values(tree.start, config_from_test(kind.alg, drawn.depth, tree))
    best = values[action]
    if any(best - v <= MARGIN * max(1.0, abs(best)) for m, v in values.items() if m != action):
        return None
    known, catches = set(), []
    for variant in diagnose.variants_for(kind.alg, tree):
        known.add(mistake(variant))
        found = diagnose.outcome(tree, drawn.depth, variant)
        if found is not None and found != right and mistake(variant) not in catches:
            catches.append(mistake(variant))
    test = {"class": "GraphGameTreeTest", "alg": kind.alg, "depth": str(drawn.depth)}
    solution = {"action": action, "generated": " ".join(right[1])}
    return FreshTest(drawn.label, {**test, **drawn.fields}, solution, tuple(catches)), known


def question_tests(
    kind_name: str, seed: str, count: int
) -> tuple[list[FreshTest], dict[str, list[str]]]:
    """At least ``count`` tests of kind ``kind_name`` from ``seed``, more while a known mistake
    passes them all; and for each mistake, the tests that catch it (in the order caught)."""
    kind = KINDS[kind_name]
    rng = random.Random(f"pacman-suite/{seed}/{kind_name}")
    traps, ghosts = kind.spec.traps(), kind.spec.ghosts
    tests: list[FreshTest] = []
    known: set[str] = set()
    caught: dict[str, list[str]] = {}
    drawn = 0
    while len(tests) < count or known - caught.keys():
        if drawn >= count + SPARE_TREES:
            missed = "; ".join(sorted(known - caught.keys()))
            raise UsageError(
                f"fresh trees for {kind.question} ({kind_name}): none of {drawn} drawn catches "
                f"{missed}; no suite is written that a known mistake passes"
            )
        trap, agents = traps[drawn % len(traps)], ghosts[drawn % len(ghosts)]
        drawn += 1
        for _ in range(TRIES):
            found = solved(kind, draw_tree(rng, kind.spec, ghosts=agents, trap=trap))
            if found is not None:
                break
        else:
            continue
        test, mistakes = found
        known |= mistakes
        if len(tests) >= count and not set(test.catches) - caught.keys():
            continue  # a spare tree is kept only for a mistake still uncaught
        name = f"{len(tests) + 1:02d}-{test.name}"
        tests.append(FreshTest(name, test.test, test.solution, test.catches))
        for found_mistake in test.catches:
            caught.setdefault(found_mistake, []).append(name)
    return tests, caught


def files_of(kind_name: str, test: FreshTest) -> tuple[str, str]:
    """The texts of ``test``'s ``.test`` and ``.solution`` files."""
    catches = "; ".join(test.catches) or "no known mistake (it checks the right search)"
    header = f"Fresh tree ({kind_name}), drawn by pacman autograde.\nCatches: {catches}."
    solution = f"Solution of {test.name}.test, from the reference search."
    return format_test_file(test.test, header), format_test_file(test.solution, solution)


def write_suite(request: SuiteRequest) -> list[str]:
    """Write the suite ``request`` asks for, whole or not at all; the report's lines: which
    tests catch which known mistake."""
    from pacman.outputs import write_folder_atomically

    questions = [KINDS[name].question for name in request.kinds]
    files = {"CONFIG": format_test_file({"order": " ".join(questions)})}
    report, total = [], 0
    for name in request.kinds:
        kind = KINDS[name]
        tests, caught = question_tests(name, request.seed, request.trees)
        files[f"{kind.question}/CONFIG"] = format_test_file(
            {"max_points": str(kind.points), "class": "PassAllTestsQuestion"}
        )
        for test in tests:
            text, solution = files_of(name, test)
            files[f"{kind.question}/{test.name}.test"] = text
            files[f"{kind.question}/{test.name}.solution"] = solution
        total += len(tests)
        report.append(f"{kind.question} ({name}, {kind.alg}): {len(tests)} trees; caught by:")
        report += [f"    {m}: {', '.join(names)}" for m, names in caught.items()]
    write_folder_atomically(request.folder, files)
    head = f"Wrote {request.folder}: {len(questions)} questions, {total} trees, seed {request.seed}"
    return [head + " (keep the seed as secret as the solutions)", *report]


def fresh_questions(
    questions: list[Question],
    names: Sequence[str],
    secret: str,
    files: Mapping[str, bytes],
    every: bool = True,
) -> list[Question]:
    """``questions`` with the tree tests of ``names`` replaced by as many trees drawn from
    ``secret`` and the submission's ``files``: a regrade draws the same, another submission
    others. A name that is not a loaded question of tree tests is refused (``every``: all
    the suite's questions are loaded, so an unknown name is a mistake too)."""
    from pacman.grading.kinds import make_test
    from pacman.seeding import mixed_secret
    from pacman.testfile import parse_test_text

    loaded = {q.name for q in questions}
    for name in names:
        if name not in loaded and every:
            known = " ".join(sorted(loaded))
            raise UsageError(f"--fresh-trees {name}: no such question ({known})")
    parts = (name.encode() + b"\0" + data for name, data in sorted(files.items()))
    identity = mixed_secret(secret, b"pacman-fresh-trees", *parts)
    replaced = []
    for question in questions:
        trees = [(t, p) for t, p in question.tests if t.kind == "GraphGameTreeTest"]
        if question.name not in names:
            replaced.append(question)
            continue
        if not trees or any(kind_of(test) is None for test, _ in trees):
            raise UsageError(
                f"--fresh-trees {question.name}: fresh trees replace the tree tests of "
                f"{', '.join(ALGS)}; it has none, or others"
            )
        fresh = Question(question.name, question.kind, question.max_points)
        for kind in dict.fromkeys(kind_of(test) for test, _ in trees):
            count = sum(kind_of(test) == kind for test, _ in trees)
            folder, shown = os.path.dirname(trees[0][1]), os.path.dirname(trees[0][0].display_path)
            for test in question_tests(str(kind), f"{identity}/{question.name}", count)[0]:
                text, solution = files_of(str(kind), test)
                name = f"fresh-{kind}-{test.name}"
                path = os.path.join(folder, f"{name}.test")
                case = make_test(
                    path, parse_test_text(text, path), os.path.join(shown, f"{name}.test")
                )
                case.text = text
                fresh.tests.append((case, f"{path[: -len('.test')]}.solution"))
                fresh.solutions[fresh.tests[-1][1]] = parse_test_text(solution, path)
        fresh.tests += [(t, p) for t, p in question.tests if t.kind != "GraphGameTreeTest"]
        replaced.append(fresh)
    return replaced
