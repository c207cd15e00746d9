"""The test kinds CS188's suites use, by the name a test file's ``class`` gives:
GraphGameTreeTest (:mod:`.kind_trees`), PacmanGameTreeTest (:mod:`.kind_games`) and
EvalAgentTest (:mod:`.kind_eval`), each on :mod:`.testcase`'s base.
"""

from __future__ import annotations

from pacman.grading.kind_eval import EvalAgentTest
from pacman.grading.kind_games import PacmanGameTreeTest
from pacman.grading.kind_trees import GraphGameTreeTest
from pacman.grading.testcase import TestCase, required
from pacman.testfile import TestFile, TestFileError

TEST_KINDS: dict[str, type[TestCase]] = {
    "GraphGameTreeTest": GraphGameTreeTest,
    "PacmanGameTreeTest": PacmanGameTreeTest,
    "EvalAgentTest": EvalAgentTest,
}


def make_test(path: str, test: TestFile, display_path: str) -> TestCase:
    """The test of ``path`` as its kind, its fields checked before anything runs."""
    kind = required(test, "class").strip()
    cls = TEST_KINDS.get(kind)
    if cls is None:
        raise TestFileError(
            f"{test.where('class')}: unknown test class {kind!r} (known: {', '.join(sorted(TEST_KINDS))})"
        )
    return cls(path, test, display_path)
