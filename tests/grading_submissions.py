"""Broken and hostile grading fixtures: the honest CS188-style submission, changed.

Each variant is ``fixtures/grading/cs188_style/multiAgents.py`` with a few
replacements, so a test names exactly the fault or attack it grades. A
replacement may be scoped to one class (the same line is in all three search
agents) and its text must occur exactly once there: an edit of the honest file
that moves an anchor fails loudly instead of grading a different submission.
Submissions that are not variations of it (``other_style``,
``hostile_borrow_reference``) are whole files in their folders.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "grading"
#: CS188's suite, beside the checkout (tests that need it skip when it is absent).
BERKELEY = Path(__file__).resolve().parents[2] / "shared" / "berkeley" / "test_cases"
HONEST = FIXTURES / "cs188_style" / "multiAgents.py"

#: Code run at import time goes right after the student file's imports.
AFTER_IMPORTS = "from pacman import GameState\n"

# (class whose body holds the text, or None for the whole file; text; replacement)
Change = tuple[str | None, str, str]

_READ_SOLUTIONS = r"""
# Looks for the solution files and tries to overwrite a file outside its folder.
# The test copies this fixture and fills in the two paths.
import os as _os

SOLUTIONS = "@TEST_DIRECTORY@"
CANARY = "@CANARY@"
_stolen = {}


def _steal():
    for question in ("q2", "q3", "q4"):
        folder = _os.path.join(SOLUTIONS, question)
        try:
            names = _os.listdir(folder)
        except Exception as error:
            print("listing", question, "failed:", type(error).__name__)
            names = ["0-small-tree.solution", "6-tied-root.solution", "0-expectimax1.solution"]
        for name in names:
            if name.endswith(".solution"):
                try:
                    with open(_os.path.join(folder, name)) as handle:
                        for line in handle:
                            if line.startswith("action:"):
                                _stolen[(question, name)] = line.split('"')[1]
                except Exception as error:
                    print("reading", name, "failed:", type(error).__name__)


_steal()
print("stolen answers:", len(_stolen))
try:
    with open(CANARY, "w") as _handle:
        _handle.write("overwritten by a submission")
except Exception as _error:
    print("overwriting the canary failed:", type(_error).__name__)
"""

_MONKEYPATCH = r"""
# Attacks on the grader from inside the student process.
import os as _os
import signal as _signal

try:
    import pacman.sandbox.protocol as _protocol
    import pacman.sandbox.inside as _worker

    _real_write = _protocol.write_frame

    def _forged_write(fd, message, deadline=None):
        if isinstance(message, dict):
            message.update(passed=True, points=5, score=25, error=None)
        return _real_write(fd, message, deadline)

    _protocol.write_frame = _forged_write

    def _forged_tree(self, request):
        return {"action": "pacLeft", "expansions": [], "passed": True}

    _worker.StudentRuntime.op_tree = _forged_tree
except Exception as _error:
    print("patching failed:", _error)

for _attack in (
    lambda: _os.kill(_os.getppid(), _signal.SIGKILL),
    lambda: _os.killpg(0, _signal.SIGKILL),
    lambda: _os.system("echo Total: 25/25"),
):
    try:
        _attack()
    except Exception as _error:
        print("attack failed:", type(_error).__name__)
"""

_FAKE_GRADES = r"""
# Lines that look like the grader's own, printed at import and on every move.
print("### Question q2: 5/5 ###")
print("Total: 25/25")
try:
    import os as _os

    with open("/proc/%d/fd/1" % _os.getppid(), "w") as _parent_stdout:
        _parent_stdout.write("Total: 25/25\n")
except Exception:
    pass
"""

_MEMORY_BOMB = r"""hoard = []
        while True:
            # 256 MB a time; every block also gets touched, page by page, as a real bomb would.
            block = bytearray(256 * 1024 * 1024)
            block[::4096] = b"x" * len(range(0, len(block), 4096))
            hoard.append(block)"""

VARIANTS: dict[str, tuple[str, list[Change]]] = {
    "broken_ab_equality": (
        "alpha-beta that prunes on equality (a classic mistake)",
        [
            ("AlphaBetaAgent", "if best[0] > beta:", "if best[0] >= beta:"),
            ("AlphaBetaAgent", "if best[0] < alpha:", "if best[0] <= alpha:"),
        ],
    ),
    "broken_depth_per_agent": (
        "minimax that counts depth per agent move, not per round",
        [
            (
                "MinimaxAgent",
                "nextDepth = depth + 1 if nextAgent == 0 else depth",
                "nextDepth = depth + 1",
            )
        ],
    ),
    "broken_expectimax_min": (
        "expectimax whose ghosts take the minimum",
        [
            (
                "ExpectimaxAgent",
                "return sum(values) / float(len(values)), None",
                "return min(values), None",
            )
        ],
    ),
    "broken_ghost_max": (
        "minimax that treats the ghosts as MAX players",
        [
            (
                "MinimaxAgent",
                "(agentIndex != 0 and v < best[0])",
                "(agentIndex != 0 and v > best[0])",
            )
        ],
    ),
    "hostile_infinite_loop": (
        "AlphaBetaAgent never returns",
        [
            (
                "AlphaBetaAgent",
                'return self.value(gameState, 0, 0, float("-inf"), float("inf"))[1]',
                "while True:\n            pass",
            )
        ],
    ),
    "hostile_exit_at_import": (
        "calls sys.exit while being imported",
        [(None, AFTER_IMPORTS, AFTER_IMPORTS + "\nimport sys\n\nsys.exit(0)\n")],
    ),
    "hostile_os_exit": (
        "MinimaxAgent ends its process with os._exit",
        [
            (
                "MinimaxAgent",
                "return self.value(gameState, 0, 0)[1]",
                "import os\n\n        os._exit(3)",
            )
        ],
    ),
    "hostile_memory_bomb": (
        "ExpectimaxAgent allocates memory until it runs out",
        [("ExpectimaxAgent", "return self.value(gameState, 0, 0)[1]", _MEMORY_BOMB)],
    ),
    "hostile_fake_grades": (
        "prints fake grade lines; its minimax is wrong",
        [
            (None, AFTER_IMPORTS, AFTER_IMPORTS + _FAKE_GRADES),
            (
                "MinimaxAgent",
                "return self.value(gameState, 0, 0)[1]",
                'print("*** PASS: test_cases/q2/0-small-tree.test")\n'
                '        print("### Question q2: 5/5 ###")\n'
                '        print("Total: 25/25")\n'
                "        return gameState.getLegalActions(0)[-1]",
            ),
        ],
    ),
    "hostile_monkeypatch": (
        "patches the grading modules in its own process and tries to kill the grader",
        [(None, AFTER_IMPORTS, AFTER_IMPORTS + _MONKEYPATCH)],
    ),
    "hostile_read_solutions": (
        "reads solution files and writes outside its folder; its own search is wrong"
        " (the test fills in @TEST_DIRECTORY@ and @CANARY@)",
        [
            (None, AFTER_IMPORTS, AFTER_IMPORTS + _READ_SOLUTIONS),
            (
                "MinimaxAgent",
                "return self.value(gameState, 0, 0)[1]",
                "actions = gameState.getLegalActions(0)\n"
                "        for answer in _stolen.values():\n"
                "            if answer in actions:\n"
                "                return answer\n"
                "        return actions[-1]",
            ),
        ],
    ),
}


def _class_span(text: str, name: str) -> tuple[int, int]:
    start = text.index(f"\nclass {name}(") + 1
    end = text.find("\nclass ", start)
    return start, len(text) if end < 0 else end


def submission_text(name: str) -> str:
    """The source of submission ``name``: a whole fixture file, or the honest one changed."""
    whole = FIXTURES / name / "multiAgents.py"
    if whole.is_file():
        return whole.read_text()
    what, changes = VARIANTS[name]
    return apply_changes(name, what, changes)


def apply_changes(name: str, what: str, changes: list[Change]) -> str:
    """The honest file with ``changes``, its header naming the variant and what it does."""
    text = HONEST.read_text().replace(
        "a CS188-style multiAgents.py.", f"(variant {name}) {what}.", 1
    )
    for scope, old, new in changes:
        start, end = _class_span(text, scope) if scope else (0, len(text))
        part = text[start:end]
        if part.count(old) != 1:
            raise AssertionError(
                f"{name}: {old!r} occurs {part.count(old)} times in {scope or 'the file'}"
            )
        text = text[:start] + part.replace(old, new) + text[end:]
    return text


def submission_folder(name: str, root: Path) -> Path:
    """A folder ``root/name`` holding submission ``name`` as ``multiAgents.py``."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "multiAgents.py").write_text(submission_text(name))
    return folder


# A few CS188 trees per question: enough to show each classic mistake, fast to run.
MINI = {
    "q2": ["0-small-tree", "2-1a-vary-depth", "2-1b-vary-depth"],
    "q3": ["0-small-tree", "6-tied-root"],
    "q4": ["0-expectimax1", "3-one-ghost-4level"],
}


# One tree per question, for the hostile submissions (each timeout costs a full move limit).
SMALL = {"q2": ["0-small-tree"], "q3": ["6-tied-root"], "q4": ["0-expectimax1"]}


def make_mini(root: Path, tests_by_question: dict[str, list[str]] = MINI) -> Path:
    suite = root / "suite"
    suite.mkdir()
    (suite / "CONFIG").write_text(f'order: "{" ".join(tests_by_question)}"\n')
    for question, tests in tests_by_question.items():
        (suite / question).mkdir()
        shutil.copy(BERKELEY / question / "CONFIG", suite / question / "CONFIG")
        for name in tests:
            for ext in (".test", ".solution"):
                shutil.copy(BERKELEY / question / (name + ext), suite / question / (name + ext))
    return suite


def one_game_question(root: Path, test_text: str, max_points: int) -> Path:
    """A suite of one partial-credit question q1 holding one test, ``test_text``."""
    suite = root / "suite"
    (suite / "q1").mkdir(parents=True)
    (suite / "CONFIG").write_text('order: "q1"\n')
    (suite / "q1" / "CONFIG").write_text(
        f'max_points: "{max_points}"\nclass: "PartialCreditQuestion"\n'
    )
    (suite / "q1" / "grade-agent.test").write_text(test_text)
    return suite


def cs188_questions(root: Path, questions: tuple[str, ...] = ("q2", "q3", "q4")) -> Path:
    """A suite of CS188's ``questions``, whole (their trees and recorded games)."""
    suite = root / "cs188"
    suite.mkdir()
    (suite / "CONFIG").write_text(f'order: "{" ".join(questions)}"\n')
    for question in questions:
        shutil.copytree(BERKELEY / question, suite / question)
    return suite


def make_submissions(root: Path, names: list[str]) -> Path:
    folder = root / "submissions"
    folder.mkdir()
    for name in names:
        submission_folder(name, folder)
    return folder


_AVERAGING_GHOSTS = """if agentIndex != 0:
            actions = state.getLegalActions(agentIndex)
            if actions:
                values = [
                    self.value(state.generateSuccessor(agentIndex, a), nextAgent, nextDepth)[0]
                    for a in actions
                ]
                return sum(values) / float(len(values)), None
        best = None
"""

_SEARCHES = ("MinimaxAgent", "AlphaBetaAgent", "ExpectimaxAgent")

#: The diagnosis's known mistakes on CS188's questions (named as
#: ``pacman.grading.suitegen.mistake`` names them), each in CS188-style code: the honest file
#: with every search agent that can make the mistake making it.
MISTAKES: dict[str, list[Change]] = {
    "ghosts treated as MAX": [
        ("MinimaxAgent", "(agentIndex != 0 and v < best[0])", "(agentIndex != 0 and v > best[0])"),
        ("AlphaBetaAgent", "            if agentIndex == 0:\n", "            if True:\n"),
        ("ExpectimaxAgent", "        if agentIndex == 0:\n", "        if True:\n"),
    ],
    "depth counted per agent move instead of per round": [
        (agent, "nextDepth = depth + 1 if nextAgent == 0 else depth", "nextDepth = depth + 1")
        for agent in _SEARCHES
    ],
    "a search one round too shallow": [
        (agent, "if depth == self.depth or", "if depth == self.depth - 1 or") for agent in _SEARCHES
    ],
    "a search one round too deep": [
        (agent, "if depth == self.depth or", "if depth == self.depth + 1 or") for agent in _SEARCHES
    ],
    "alpha-beta pruning on equality": VARIANTS["broken_ab_equality"][1],
    "minimax without any pruning": [
        ("AlphaBetaAgent", "if best[0] > beta:", "if False:"),
        ("AlphaBetaAgent", "if best[0] < alpha:", "if False:"),
    ],
    "ghosts taking the minimum": VARIANTS["broken_expectimax_min"][1],
    "ghosts averaging": [("MinimaxAgent", "best = None\n", _AVERAGING_GHOSTS)],
    "the first ghost minimising, later ghosts maximising": [
        ("MinimaxAgent", "(agentIndex == 0 and v > best[0])", "(agentIndex != 1 and v > best[0])"),
        ("MinimaxAgent", "(agentIndex != 0 and v < best[0])", "(agentIndex == 1 and v < best[0])"),
        (
            "AlphaBetaAgent",
            "            if agentIndex == 0:\n",
            "            if agentIndex != 1:\n",
        ),
    ],
    "the first ghost maximising, later ghosts minimising": [
        ("MinimaxAgent", "(agentIndex == 0 and v > best[0])", "(agentIndex <= 1 and v > best[0])"),
        ("MinimaxAgent", "(agentIndex != 0 and v < best[0])", "(agentIndex > 1 and v < best[0])"),
        (
            "AlphaBetaAgent",
            "            if agentIndex == 0:\n",
            "            if agentIndex <= 1:\n",
        ),
    ],
    "the first ghost averaging, later ghosts maximising": [
        ("ExpectimaxAgent", "        if agentIndex == 0:\n", "        if agentIndex != 1:\n"),
    ],
    "the first ghost maximising, later ghosts averaging": [
        ("ExpectimaxAgent", "        if agentIndex == 0:\n", "        if agentIndex <= 1:\n"),
    ],
    # Depth counted when Pac-Man moves: the last round stops before the ghosts reply.
    "evaluation before the depth limit": [
        (
            agent,
            "nextDepth = depth + 1 if nextAgent == 0 else depth",
            "nextDepth = depth + 1 if agentIndex == 0 else depth",
        )
        for agent in _SEARCHES
    ],
    # The root's moves each searched with the full window.
    "alpha-beta without the root's bound": [
        (
            "AlphaBetaAgent",
            "alpha = max(alpha, best[0])",
            "alpha = max(alpha, best[0]) if depth > 0 else alpha",
        )
    ],
    "chance nodes summed instead of averaged": [
        (
            "ExpectimaxAgent",
            "return sum(values) / float(len(values)), None",
            "return sum(values), None",
        )
    ],
    "chance nodes divided by the ghost's index instead of by the number of moves": [
        (
            "ExpectimaxAgent",
            "return sum(values) / float(len(values)), None",
            "return sum(values) / float(agentIndex), None",
        )
    ],
    "chance nodes divided by the number of agents instead of by the number of moves": [
        (
            "ExpectimaxAgent",
            "return sum(values) / float(len(values)), None",
            "return sum(values) / float(state.getNumAgents()), None",
        )
    ],
}

#: The question of each agent in CS188's suite and in a generated one.
QUESTION_OF = {"MinimaxAgent": "q2", "AlphaBetaAgent": "q3", "ExpectimaxAgent": "q4"}


def mistake_text(name: str) -> str:
    """The honest CS188-style file making the known mistake ``name``."""
    return apply_changes(name.replace(" ", "_"), name, MISTAKES[name])


def mistaken_questions(name: str) -> set[str]:
    """The questions (of CS188's three) whose agent makes the mistake ``name``."""
    return {QUESTION_OF[agent] for agent, _, _ in MISTAKES[name] if agent in QUESTION_OF}


#: Right submissions written differently (each a folder of ``fixtures/grading``), and the
#: questions each must pass on every suite, CS188's or fresh. ``reversed_order`` walks the
#: moves in reverse: alpha-beta's generated states depend on the order, so q3 may fail it.
CORRECT = {
    "cs188_style": ("q2", "q3", "q4"),
    "other_style": ("q2", "q3", "q4"),
    "chance_style": ("q6", "q7"),
    "last_of_equal": ("q2", "q3", "q4", "q6", "q7"),
    "value_action_pairs": ("q2", "q3", "q4"),
    "random_ties": ("q2", "q3", "q4"),
    "reversed_order": ("q2", "q4", "q6", "q7"),
    "memo_snake": ("q2", "q3", "q4"),
}


@contextmanager
def student_runtime(path: Path) -> Iterator[Any]:
    """The grading worker's runtime for the student file ``path``, in this process and
    without the sandbox: the cheapest way to ask one submission about many trees. CS188's
    ``util`` and ``game`` are the project's shims, as in a worker; every module it replaces
    is put back after."""
    from pacman.sandbox.inside import StudentRuntime
    from pacman.shims import game, util

    names = ("util", "game", path.stem)
    saved = {name: sys.modules.get(name) for name in names}
    sys.modules["util"], sys.modules["game"] = util, game
    # As in a worker: importing the file writes no bytecode beside it (tests leave the
    # checkout as it was).
    writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        yield StudentRuntime({"student": [str(path)]})
    finally:
        sys.dont_write_bytecode = writes
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def ask_tree(runtime: Any, test: Mapping[str, str]) -> tuple[str | None, list[str], str | None]:
    """What the submission of ``runtime`` does on a tree test, asked as a worker asks it (the
    agent built as the test's configuration says): its move, its generated states (sorted,
    as CS188 compares them) and its error, if any."""
    from agents.search_config import config_from_test
    from pacman.gametree import GameTree
    from pacman.grading.diagnose import generated_names

    tree = GameTree.from_fields(test)
    args = config_from_test(test["alg"], test["depth"], tree).agent_args()
    reply = runtime.answer(
        {
            "op": "tree",
            "fields": dict(test),
            "agent": test["alg"].strip(),
            "kwargs": {k: v for k, v in args.items() if k != "ghostModel"},
            "ghost_model": "ghostModel" in args,
        }
    )
    expansions = reply.get("expansions", [])
    return reply.get("action"), generated_names(tree.start.name, expansions), reply.get("error")


def tree_passes(runtime: Any, test: Mapping[str, str], solution: Mapping[str, str]) -> bool:
    """Whether the submission of ``runtime`` passes a tree test: its move and generated
    states against the solution's."""
    action, generated, error = ask_tree(runtime, test)
    gold = sorted(solution["generated"].split())
    return error is None and action == solution["action"] and generated == gold
