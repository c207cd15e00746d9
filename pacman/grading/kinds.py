"""The test kinds: GraphGameTreeTest, PacmanGameTreeTest, EvalAgentTest.

Each kind runs in the grader (the parent) and asks a student worker for
observations only; the solution stays here and the verdict is made here.
"""

from __future__ import annotations

import ast
import json
import os
import random
import threading
from dataclasses import dataclass, field
from typing import Any, NoReturn

from pacman.grading import diagnose
from pacman.grading.testfile import TestFile, TestFileError
from pacman.sandbox.config import Limits, WorkerDied, WorkerTimeout, seconds
from pacman.sandbox.pool import WorkerPool
from pacman.sandbox.process import WorkerProcess
from pacman.sandbox.remote import RemoteAgent, RemoteFailure

MAX_NAME = 200
MAX_EXPANSIONS = 2_000_000


class ReplyError(Exception):
    """A worker reply that does not have the expected shape."""


@dataclass
class TestResult:
    """The verdict on one test, decided by the grader."""

    path: str
    passed: bool
    points: float = 0.0  # points earned (tests of partial-credit questions)
    max_points: float = 0.0
    messages: list[str] = field(default_factory=list)
    output: str = ""
    timed_out: bool = False  # a time limit ended it (later tests of its question may be moot)
    #: A failed tree test's data for its HTML report (:mod:`pacman.grading.tree_report`).
    tree_report: dict[str, Any] | None = None
    #: The games an EvalAgentTest played (see :func:`game_stats`), for leaderboards.
    games: dict[str, Any] | None = None

    __test__ = False


class Budget:
    """CPU seconds left for a whole submission, shared by the tests running in parallel."""

    def __init__(self, seconds: float | None) -> None:
        self.total = seconds
        self.left = float("inf") if seconds is None else seconds
        self._lock = threading.Lock()

    def charge(self, used: float) -> None:
        with self._lock:
            self.left -= used


@dataclass
class Context:
    """What a test needs to run: the student's workers, the limits, the time left."""

    pool: WorkerPool
    limits: Limits
    budget: Budget = field(default_factory=lambda: Budget(None))
    test_left: float = float("inf")
    #: What the ghosts' streams of graded games are derived with (:mod:`pacman.seeding`);
    #: it never reaches the student's worker.
    game_secret: str = ""

    def for_test(self) -> Context:
        """A copy for one test, with the test's own CPU allowance (``--test-timeout``)."""
        allowed = self.limits.test_seconds
        return Context(
            self.pool,
            self.limits,
            self.budget,
            float("inf") if allowed is None else allowed,
            self.game_secret,
        )

    def call(
        self,
        worker: Any,
        op: str,
        what: str,
        move_seconds: float | None = None,
        game_left: float | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """One request, limited by the tightest of the move's (or game's), test's and
        submission's CPU allowances, each charged with the CPU time the request used.

        ``game_left`` is what is left of a game's ``maxTime``, which CS188 applies to each
        move and to the whole game alike.
        """
        if game_left is not None:
            own = (game_left, "test's maxTime (per move and per game)", move_seconds)
        elif move_seconds is not None:
            own = (move_seconds, "test's maxTime (per move)", move_seconds)
        else:
            own = (self.limits.move_seconds, "per-move limit", self.limits.move_seconds)
        allowances = [
            own,
            (self.test_left, "test's limit", self.limits.test_seconds),
            (self.budget.left, "submission's time budget", self.budget.total),
        ]
        limit, name, total = min(allowances, key=lambda entry: entry[0])
        worker.last_cpu = 0.0
        if limit <= 0:
            of = f" of {seconds(total)}" if total is not None else ""
            raise WorkerTimeout(f"the {name}{of} of CPU time was used up before {what}")
        try:
            return worker.call(op, limit, what, f"the {name}", **fields)
        finally:
            self.test_left -= worker.last_cpu
            self.budget.charge(worker.last_cpu)


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_NAME:
        raise ReplyError(f"{what} is not a short string")
    return value


def _int_field(test: TestFile, key: str, default: int | None = None) -> int:
    raw = test.get(key)
    if raw is None:
        if default is None:
            raise TestFileError(f"{test.path}: field {key!r} is missing")
        return default
    try:
        return int(raw.strip())
    except ValueError:
        raise TestFileError(
            f"{test.where(key)}: {key} must be a whole number, got {raw!r}"
        ) from None


def _require(test: TestFile, key: str) -> str:
    value = test.get(key)
    if value is None:
        raise TestFileError(f"{test.path}: field {key!r} is missing")
    return value


def worker_problem(error: Exception) -> str:
    if isinstance(error, WorkerTimeout):
        return f"Your code timed out: {error}."
    if isinstance(error, WorkerDied):
        return f"Your code's process {error}."
    return f"Your code's process sent an unusable reply ({error})."


class TestCase:
    """Base class of the test kinds."""

    kind = "TestCase"
    #: Whether a missing .solution file is an error (EvalAgentTest needs none).
    needs_solution = True

    def __init__(self, path: str, test: TestFile, display_path: str) -> None:
        self.path = path
        self.test = test
        self.display_path = display_path
        self.check()

    def check(self) -> None:
        """Raise TestFileError if the test's fields are unusable (before anything runs)."""

    def cost(self) -> float:
        """Rough relative cost, so long tests start first."""
        return 1.0

    def max_seconds(self, limits: Limits, solution: TestFile) -> float:
        """The most CPU time this test lets the student's code use (one move, by default)."""
        return limits.move_seconds

    def run(self, ctx: Context, solution: TestFile) -> TestResult:
        raise NotImplementedError

    def generate(self, ctx: Context) -> dict[str, str]:
        """The solution fields, computed with the code under test (``--generate-solutions``)."""
        raise NotImplementedError

    def result(
        self,
        passed: bool,
        messages: list[str],
        output: str = "",
        points: float = 0.0,
        max_points: float = 0.0,
        timed_out: bool = False,
    ) -> TestResult:
        return TestResult(
            self.display_path, passed, points, max_points, messages, output, timed_out
        )


# ------------------------------------------------------------------------------ game trees


class GraphGameTreeTest(TestCase):
    """A search agent on an explicit tree: its move and the states it generated."""

    kind = "GraphGameTreeTest"

    def check(self) -> None:
        from pacman.gametree import GameTree

        self.alg = _require(self.test, "alg").strip()
        self.depth = _int_field(self.test, "depth")
        self.compare = self.test.get("compare", "set").strip()
        if self.compare not in ("set", "sequence"):
            raise TestFileError(
                f'{self.test.where("compare")}: compare must be "set" or "sequence", got {self.compare!r}'
            )
        try:
            self.tree = GameTree.from_fields(self.test)
        except Exception as error:  # GameTreeError and friends
            raise TestFileError(f"{self.test.path}: {error}") from None
        self.diagram = self.test.get("diagram", "")

    def _observe(
        self, ctx: Context
    ) -> tuple[str | None, list[tuple[int, str, str, str]], str | None, str]:
        fields = {k: v for k, v in self.test.items() if k != "diagram"}
        kwargs = self._agent_kwargs()  # its ghostModel is made in the worker, from the tree
        worker = ctx.pool.get()
        worker.mark_output()
        try:
            reply = ctx.call(
                worker,
                "tree",
                f"{self.alg}.getAction",
                fields=fields,
                agent=self.alg,
                kwargs={k: v for k, v in kwargs.items() if k != "ghostModel"},
                ghost_model="ghostModel" in kwargs,
            )
        except (WorkerDied, WorkerTimeout) as error:
            self._timed_out = isinstance(error, WorkerTimeout)
            return None, [], worker_problem(error), worker.output()
        output = worker.output()
        try:
            action = reply.get("action")
            if action is not None:
                action = _name(action, "the action")
            raw = reply.get("expansions", [])
            if not isinstance(raw, list) or len(raw) > MAX_EXPANSIONS:
                raise ReplyError("the expansion log is not a list")
            expansions = []
            for entry in raw:
                if not (isinstance(entry, list) and len(entry) == 4 and isinstance(entry[0], int)):
                    raise ReplyError("an expansion is malformed")
                expansions.append(
                    (
                        entry[0],
                        _name(entry[1], "an action"),
                        _name(entry[2], "a state"),
                        _name(entry[3], "a state"),
                    )
                )
            error = reply.get("error")
            if error is not None:
                error = f"Error in your code: {str(error)[:2000]}"
        except ReplyError as problem:
            worker.kill()
            return None, [], worker_problem(problem), output
        return action, expansions, error, output

    def _agent_kwargs(self) -> dict[str, Any]:
        """The test's search (``config_from_test``) as ``alg(depth=..., layers=..., ghostModel=...)``."""
        from agents.search_config import config_from_test

        return config_from_test(self.alg, self.depth, self.tree).agent_args()

    def generate(self, ctx: Context) -> dict[str, str]:
        action, expansions, error, _ = self._observe(ctx)
        if error is not None or action is None:
            raise TestFileError(f"{self.path}: cannot generate a solution: {error}")
        fields = {
            "action": action,
            "generated": " ".join(diagnose.generated_names(self.tree.start.name, expansions)),
        }
        if self.compare == "sequence":
            fields["expansions"] = "\n".join(f"{p} {a} {c}" for _, a, p, c in expansions)
        return fields

    def run(self, ctx: Context, solution: TestFile) -> TestResult:
        gold_action = _require(solution, "action").strip()
        gold_generated = _require(solution, "generated").split()
        self._timed_out = False
        action, expansions, error, output = self._observe(ctx)
        messages: list[str] = []
        if error is not None:
            messages.append(error)
            messages += diagnose.unscorable_hints(error, self.tree)
            messages += diagnose.argument_hints(error)
            messages += self._tree_lines()
            return self.result(False, messages, output, timed_out=self._timed_out)
        generated = diagnose.generated_names(self.tree.start.name, expansions)
        fail = False
        if action != gold_action:
            fail = True
            messages += [
                f"Incorrect move for depth={self.depth}",
                f"    Student move: {action}",
                f"    Optimal move: {gold_action}",
            ]
        if self.compare == "sequence":
            gold_sequence = [
                line.split()
                for line in _require(solution, "expansions").splitlines()
                if line.strip()
            ]
            mine = [[p, a, c] for _, a, p, c in expansions]
            if mine != gold_sequence:
                fail = True
                messages += self._sequence_report(gold_sequence, mine)
        elif generated != sorted(gold_generated):
            fail = True
            messages += self._set_report(sorted(gold_generated), generated, expansions)
        if fail:
            messages += diagnose.diagnose(self.tree, self.depth, self.alg, action, generated)
            from pacman.grading.tree_report import failure_data

            failed = self.result(False, [*messages, *self._tree_lines()], output)
            failed.tree_report = failure_data(
                self.test, self.alg, self.depth, action, expansions, gold_action, messages
            )
            return failed
        return self.result(True, messages, output)

    def _tree_lines(self) -> list[str]:
        if not self.diagram:
            return []
        return ["Tree:", *self.diagram.splitlines()]

    def _set_report(
        self, gold: list[str], mine: list[str], expansions: list[tuple[int, str, str, str]]
    ) -> list[str]:
        lines = [
            f"Incorrect generated nodes for depth={self.depth}",
            f"    Student generated nodes: {' '.join(mine)}",
            f"    Correct generated nodes: {' '.join(gold)}",
            "Expected and generated states, side by side (<> marks a difference):",
        ]
        left, right = diagnose.aligned_sets(gold, mine)
        lines += ["    " + line for line in diagnose.side_by_side("expected", left, "yours", right)]
        gold_set = set(gold)
        for number, (agent, action, parent, child) in enumerate(expansions, start=1):
            if child not in gold_set:
                lines.append(
                    f"First departure: successor call {number} (agent {agent} plays {action} in "
                    f"{parent}) generated {child}, which the correct search never generates."
                )
                break
        else:
            missing = [name for name in gold if name not in set(mine)]
            if missing:
                # The first missing state in the order the correct search would reach it.
                found = diagnose.parent_of(self.tree, missing[0])
                where = f" (reached from {found[0]} by {found[1]})" if found else ""
                lines.append(
                    f"First departure: your search never generated {missing[0]}{where}; "
                    f"{len(missing)} expected state(s) are missing in all."
                )
        return lines

    def _sequence_report(self, gold: list[list[str]], mine: list[list[str]]) -> list[str]:
        left = [" ".join(e) for e in gold]
        right = [" ".join(e) for e in mine]
        lines = ["Incorrect expansion sequence (parent action child, in call order):"]
        lines += ["    " + line for line in diagnose.side_by_side("expected", left, "yours", right)]
        for index in range(max(len(left), len(right))):
            a = left[index] if index < len(left) else "(nothing)"
            b = right[index] if index < len(right) else "(nothing)"
            if a != b:
                lines.append(
                    f"First departure: successor call {index + 1}: expected {a}, yours {b}."
                )
                break
        return lines


# ------------------------------------------------------------------------------ real games


class CountingRandom(random.Random):
    """A generator that counts ``random()`` draws since it was last seeded."""

    def seed(self, a: Any = None, version: int = 2) -> None:  # type: ignore[override]
        super().seed(a, version)
        self.draws = 0

    def random(self) -> float:
        self.draws += 1
        return super().random()


class GradingLink:
    """A graded game's link to the student's worker (:class:`pacman.sandbox.remote.Link`):
    each request is charged to the move's limit (and what is left of the game's, CS188's
    ``maxTime``), the test's and the submission's CPU budgets; the first failure is kept, as
    the test reports it."""

    def __init__(
        self,
        ctx: Context,
        worker: WorkerProcess,
        agent: str,
        game_seconds: float | None = None,
        fresh: bool = True,
    ) -> None:
        self.ctx = ctx
        self._worker = worker
        self.agent = agent
        self.move_seconds = game_seconds
        self.game_left = game_seconds
        self.failure: RemoteFailure | None = None
        self._fresh = fresh  # the worker must build the agent (a new worker, or asked anew)

    def worker(self) -> tuple[WorkerProcess, bool]:
        return self._worker, self._fresh

    def built(self, worker: WorkerProcess) -> None:
        self._fresh = False

    def fail(self, message: str, timeout: bool = False) -> NoReturn:
        error = RemoteFailure(message, timeout)
        if self.failure is None:
            self.failure = error
        raise error

    def call(self, worker: WorkerProcess, op: str, method: str, **fields: Any) -> dict[str, Any]:
        try:
            reply = self.ctx.call(
                worker, op, f"{self.agent}.{method}", self.move_seconds, self.game_left, **fields
            )
        except (WorkerDied, WorkerTimeout) as error:
            self.fail(worker_problem(error), isinstance(error, WorkerTimeout))
        finally:
            if self.game_left is not None:
                self.game_left -= worker.last_cpu
        if reply.get("error") is not None:
            self.fail(f"Error in your code: {str(reply['error'])[:2000]}")
        return reply


class GradedAgent(RemoteAgent):
    """The student's agent in a graded game: a reply that is not an action is the worker's
    unusable reply, reported as the test reports every failure."""

    link: GradingLink

    def action(self, reply: dict[str, Any]) -> str:
        try:
            return _name(reply.get("action"), "the action")
        except ReplyError as error:
            self.link.fail(worker_problem(error))


class RecordedGameAgent(GradedAgent):
    """The student's agent in a recorded game (CS188's PacmanGameTreeTest): its random is
    re-seeded and advanced as CS188's global one is, its search's explored states are
    counted, and ``ask(step, state, action, explored, link)`` decides the move played."""

    def __init__(
        self, test: PacmanGameTreeTest, link: GradingLink, rng: CountingRandom, ask: Any
    ) -> None:
        super().__init__(0, test.alg, {"depth": test.depth}, link, record=True)
        self.test = test
        self.rng = rng
        self.ask = ask
        self.step = 0

    def start_fields(self) -> dict[str, Any]:
        return {"seed": self.test.seed, "reseed_after_register": True}

    def register_initial_state(self, state: Any) -> None:
        super().register_initial_state(state)
        self.rng.seed(self.test.seed)

    def move_fields(self) -> dict[str, Any]:
        first = self.step == 0
        return {
            "reseed": None if first else self.test.seed + self.step,
            "burn": 0 if first else self.rng.draws,
        }

    def choose(self, state: Any, reply: dict[str, Any]) -> str:
        action = self.action(reply)
        explored = reply.get("explored")
        if not isinstance(explored, int) or isinstance(explored, bool):
            self.link.fail("Your code's process sent no explored-state count.")
        move = self.ask(self.step, state, action, explored, self.link)
        self.step += 1
        self.rng.seed(self.test.seed + self.step)
        return move


def _layout_from_text(test: TestFile) -> Any:
    from pacman.layout import parse_layout

    try:
        return parse_layout(_require(test, "layout"), test.get("layoutName", "layout").strip())
    except Exception as error:
        raise TestFileError(f"{test.where('layout')}: {error}") from None


class PacmanGameTreeTest(TestCase):
    """A real game with recorded optimal moves: the agent's choice and explored count each turn."""

    kind = "PacmanGameTreeTest"

    def check(self) -> None:
        self.alg = _require(self.test, "alg").strip()
        self.depth = _int_field(self.test, "depth")
        self.seed = _int_field(self.test, "seed")
        self.layout = _layout_from_text(self.test)
        self.num_ghosts = _int_field(self.test, "numGhosts", 2)

    def cost(self) -> float:
        return 50.0

    def max_seconds(self, limits: Limits, solution: TestFile) -> float:
        moves = len(_require(solution, "optimalActions").splitlines()) if solution else 0
        return limits.move_seconds * (moves + 1)  # every move, and registerInitialState

    def _lines(self, solution: TestFile, key: str) -> list[Any]:
        try:
            return [
                json.loads(line) for line in _require(solution, key).splitlines() if line.strip()
            ]
        except ValueError:
            raise TestFileError(f"{solution.where(key)}: a line of {key} is not JSON") from None

    def _play(
        self, ctx: Context, pacman_moves: list[str] | None, ask: Any
    ) -> tuple[Any, str | None, bool, str]:
        """Play the game; Pac-Man plays ``pacman_moves[k]`` (or what ``ask`` returns).

        ``ask(k, state, action, explored)`` is called with the student's answer at each turn
        and returns the move to play. Returns (result, failure, timed_out, output).
        """
        from pacman.game import run_game
        from pacman.ghosts import DirectionalGhost

        rng = CountingRandom(self.seed)
        worker = ctx.pool.get()
        worker.mark_output()
        link = GradingLink(ctx, worker, self.alg)
        ghosts = [DirectionalGhost(i + 1, rng=rng) for i in range(self.num_ghosts)]
        # Named after the student's class, so the game's own messages name it.
        pacman = type(self.alg, (RecordedGameAgent,), {})(self, link, rng, ask)
        result = run_game(self.layout, pacman, ghosts, catch_exceptions=True)
        if link.failure is not None:
            failure = link.failure
            return result, str(failure), failure.timeout, worker.output()
        if result.crashed:
            # Not the student's fault: the recorded moves did not fit the game.
            message = f"The grader could not replay the recorded game: {result.crash}"
            return result, message, False, worker.output()
        return result, None, False, worker.output()

    def run(self, ctx: Context, solution: TestFile) -> TestResult:
        optimal = self._lines(solution, "optimalActions")
        alt_depth = self._lines(solution, "altDepthActions")
        partial_ply = self._lines(solution, "partialPlyBugActions")
        if not optimal or not (len(optimal) == len(alt_depth) == len(partial_ply)):
            raise TestFileError(
                f"{solution.path}: optimalActions, altDepthActions and partialPlyBugActions must have one line per move"
            )
        consistent_optimal = [True] * len(optimal[0])
        consistent_alt = [True] * len(alt_depth[0])
        consistent_partial = [True] * len(partial_ply[0])
        wrong_count: list[tuple[int, Any, int, list[int]]] = []
        suboptimal: list[tuple[int, Any, str, list[str]]] = []

        def ask(step: int, state: Any, action: str, explored: int, link: GradingLink) -> str:
            if step >= len(optimal):
                # Pac-Man plays recorded moves, so this is the suite's fault, not the student's.
                raise RemoteFailure("the game went on longer than the recorded one")
            right_count = False
            optimal_here = False
            for i, (actions, count) in enumerate(optimal[step]):
                if action in actions:
                    optimal_here = True
                else:
                    consistent_optimal[i] = False
                if explored == int(count):
                    right_count = True
            if not right_count:
                wrong_count.append(
                    (
                        step,
                        state.get_pacman_position(),
                        explored,
                        [int(c) for _, c in optimal[step]],
                    )
                )
            for i, actions in enumerate(alt_depth[step]):
                if action not in actions:
                    consistent_alt[i] = False
            for i, actions in enumerate(partial_ply[step]):
                if action not in actions:
                    consistent_partial[i] = False
            if not optimal_here:
                suboptimal.append((step, state, action, optimal[step][0][0]))
            return optimal[step][0][0][0]

        _result, failure, timed_out, output = self._play(ctx, None, ask)
        moves = f"on {self.layout.name}"
        if failure is not None:
            if timed_out:
                return self.result(
                    False, [f"Agent timed out {moves}. No credit.", failure], output, timed_out=True
                )
            return self.result(False, [f"Agent crashed {moves}. No credit.", failure], output)
        messages: list[str] = []
        if wrong_count:
            step, position, explored, counts = wrong_count[0]
            messages += [
                "Bug: Wrong number of states expanded.",
                f"    First at Pac-Man's move {step + 1} (Pac-Man at {position}): your search explored "
                f"{explored} states; expected {' or '.join(str(c) for c in counts)}.",
                f"    {len(wrong_count)} of {len(optimal)} moves had a wrong count.",
            ]
            return self.result(False, messages, output)
        if any(consistent_optimal):
            return self.result(True, [], output)
        if any(consistent_partial):
            return self.result(
                False,
                [
                    "Bug: Partial Ply Bug",
                    "    Your moves match a search that stops part-way through its last round.",
                ],
                output,
            )
        if any(consistent_alt):
            return self.result(
                False,
                [
                    "Bug: Search depth off by 1",
                    f"    Your moves match a search of depth {self.depth - 1} or {self.depth + 1}, not {self.depth}.",
                ],
                output,
            )
        step, state, action, best = suboptimal[0]
        messages += [
            "Bug: Suboptimal moves",
            f"    {len(suboptimal)} suboptimal move(s); the first, at Pac-Man's move {step + 1}:",
            f"State:\n{state}",
            f"Student Move:{action}",
            f"Optimal Move:{' or '.join(best)}",
        ]
        return self.result(False, messages, output)

    def generate(self, ctx: Context) -> dict[str, str]:
        from pacman.grading.reference import game_solution

        return game_solution(self, ctx)


# ------------------------------------------------------------------------------ evaluation


def parse_ghosts(text: str, where: str) -> list[tuple[str, list[Any], dict[str, Any]]]:
    """``[RandomGhost(1), DirectionalGhost(2, prob_attack=0.5)]`` parsed without eval."""
    from pacman.ghosts import GHOST_TYPES

    def bad(why: str) -> TestFileError:
        return TestFileError(f"{where}: ghosts {text!r}: {why}")

    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise bad("not a list of ghost constructors") from None
    if not isinstance(tree, ast.List):
        raise bad("expected a list such as [RandomGhost(1)]")
    ghosts = []
    for node in tree.elts:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            raise bad("each ghost must be written Name(index)")
        if node.func.id not in GHOST_TYPES:
            raise bad(f"unknown ghost {node.func.id!r} (known: {', '.join(sorted(GHOST_TYPES))})")
        try:
            args = [ast.literal_eval(arg) for arg in node.args]
            kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
        except ValueError:
            raise bad("ghost arguments must be plain numbers") from None
        if not all(isinstance(v, (int, float)) for v in [*args, *kwargs.values()]):
            raise bad("ghost arguments must be plain numbers")
        if kwargs.keys() - {"index", "prob_attack", "prob_scaredFlee"}:
            raise bad("unknown ghost argument")
        ghosts.append((node.func.id, args, kwargs))
    return ghosts


def _thresholds(test: TestFile, key: str) -> list[float]:
    try:
        return [float(x) for x in test.get(key, "").split()]
    except ValueError:
        raise TestFileError(f"{test.where(key)}: {key} must be numbers") from None


def _minimum(test: TestFile, key: str) -> float | None:
    raw = test.get(key)
    if raw is None or not raw.strip():
        return None
    try:
        return float(raw)
    except ValueError:
        raise TestFileError(f"{test.where(key)}: {key} must be a number") from None


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class EvalAgentTest(TestCase):
    """Games with the student's agent; points for average score, games without timeout, wins."""

    kind = "EvalAgentTest"
    needs_solution = False

    def check(self) -> None:
        from pacman.layout import load_layout
        from pacman.loading import parse_agent_args

        test = self.test
        self.agent = _require(test, "agentName").strip()
        try:
            self.kwargs = parse_agent_args(test.get("agentArgs", ""), "agentArgs")
        except Exception as error:
            raise TestFileError(f"{test.where('agentArgs')}: {error}") from None
        name = _require(test, "layoutName").strip()
        try:
            self.layout = load_layout(name)
        except Exception as error:
            raise TestFileError(f"{test.where('layoutName')}: {error}") from None
        self.ghosts = parse_ghosts(test.get("ghosts", "[RandomGhost(1)]"), test.where("ghosts"))
        self.num_games = _int_field(test, "numGames", 1)
        self.max_time = float(_int_field(test, "maxTime", 120))
        self.seed = _int_field(test, "randomSeed", 0)
        self.grading = [
            ("average score", _minimum(test, "scoreMinimum"), _thresholds(test, "scoreThresholds")),
            (
                "games not timed out",
                _minimum(test, "nonTimeoutMinimum"),
                _thresholds(test, "nonTimeoutThresholds"),
            ),
            ("wins", _minimum(test, "winsMinimum"), _thresholds(test, "winsThresholds")),
        ]
        self.max_points = sum(len(t) for _, _, t in self.grading)

    def cost(self) -> float:
        return 100.0 * self.num_games

    def max_seconds(self, limits: Limits, solution: TestFile) -> float:
        return self.num_games * self.max_time

    def generate(self, ctx: Context) -> dict[str, str]:
        return {}

    def _lost_cause(self, played: int, timeouts: int, wins: int) -> str | None:
        """Why the games left cannot save the test (a minimum is out of reach), if they cannot."""
        left = self.num_games - played
        for name, minimum, _ in self.grading:
            if minimum is None:
                continue
            if name == "games not timed out" and played - timeouts + left < minimum:
                return f"{_fmt(minimum)} games without a timeout can no longer be reached"
            if name == "wins" and wins + left < minimum:
                return f"{_fmt(minimum)} wins can no longer be reached"
        return None

    def _play_all(self, ctx: Context) -> tuple[list[Any], int, dict[str, int], str, str | None]:
        results = []
        timeouts = 0
        problems: dict[str, int] = {}
        outputs: list[str] = []
        last_worker = None
        stopped = None
        for game in range(self.num_games):
            worker = ctx.pool.get()
            worker.mark_output()
            # A new worker (the first, or one replacing a dead one) builds the agent afresh.
            result, timed_out = self._play_one(ctx, worker, worker is not last_worker, game)
            last_worker = worker
            results.append(result)
            timeouts += timed_out
            if result.crashed and result.crash:
                problems[result.crash] = problems.get(result.crash, 0) + 1
            outputs.append(worker.output())
            # The test scores 0 once a minimum is out of reach: the other games cannot
            # change that, and a looping agent would cost each of them its full limit.
            stopped = self._lost_cause(len(results), timeouts, sum(r.win for r in results))
            if stopped is not None and len(results) < self.num_games:
                break
            stopped = None
        return results, timeouts, problems, "".join(outputs), stopped

    def _play_one(self, ctx: Context, worker: Any, start_new: bool, game: int) -> tuple[Any, bool]:
        """Game ``game`` of the test, seeded ``randomSeed + game``: the student's agent plays
        from ``worker`` with its own stream, the ghosts here with streams derived from the
        run's secret (:mod:`pacman.seeding`), which the worker is never told."""
        from pacman.game import run_game
        from pacman.ghosts import GHOST_TYPES

        link = GradingLink(ctx, worker, self.agent, self.max_time, fresh=start_new)
        ghosts = [GHOST_TYPES[name](*args, **kwargs) for name, args, kwargs in self.ghosts]
        pacman = type(self.agent, (GradedAgent,), {})(0, self.agent, self.kwargs, link)
        result = run_game(
            self.layout,
            pacman,
            ghosts,
            catch_exceptions=True,
            seed=self.seed + game,
            secret=ctx.game_secret,
        )
        failure = link.failure
        if failure is not None:
            result.crash = str(failure)
        return result, bool(failure is not None and failure.timeout)

    def run(self, ctx: Context, solution: TestFile) -> TestResult:
        results, timeouts, problems, output, stopped = self._play_all(ctx)
        scores = [r.score for r in results]
        wins = sum(1 for r in results if r.win)
        average = sum(scores) / len(scores) if scores else 0.0
        values = {
            "average score": average,
            "games not timed out": len(results) - timeouts,
            "wins": wins,
        }
        played = f"{len(results)} games"
        if stopped is not None:
            played = f"{len(results)} of {self.num_games} games (stopped: {stopped})"
        messages = [
            f"{played}: average score {average:g}, {wins} wins, {timeouts} timeouts, "
            f"{sum(1 for r in results if r.crashed) - timeouts} crashes",
            "Scores: " + ", ".join(f"{s:g}" for s in scores),
        ]
        for problem, games in list(problems.items())[:3]:
            where = "1 game" if games == 1 else f"{games} games"
            messages.append(f"Problem ({where}): {problem}")
        total = 0
        all_passed = True
        for name, minimum, thresholds in self.grading:
            if minimum is None and not thresholds:
                continue
            value = values[name]
            passed = minimum is None or value >= minimum
            points = sum(1 for t in thresholds if value >= t) if passed else 0
            if passed:
                messages.append(f"{_fmt(value)} {name} ({points} of {len(thresholds)} points)")
            else:
                all_passed = False
                messages.append(f"{_fmt(value)} {name} (fail: below minimum value {_fmt(minimum)})")
            total += points
            scheme = ["    Grading scheme:"]
            # CS188's wording: with a minimum, below it fails; without one, below the first
            # threshold earns nothing.
            if minimum is not None:
                scheme.append(f"     < {_fmt(minimum)}:  fail")
                if not thresholds or minimum != thresholds[0]:
                    scheme.append(f"    >= {_fmt(minimum)}:  0 points")
            elif thresholds:
                scheme.append(f"     < {_fmt(thresholds[0])}:  0 points")
            for index, threshold in enumerate(thresholds):
                scheme.append(f"    >= {_fmt(threshold)}:  {index + 1} points")
            messages += scheme
        if not all_passed:
            total = 0
        result = self.result(
            all_passed and total >= self.max_points,
            messages,
            output,
            float(total),
            float(self.max_points),
        )
        result.games = game_stats(results, timeouts, self.layout, len(self.ghosts))
        return result


def game_stats(results: list[Any], timeouts: int, layout: Any, num_ghosts: int) -> dict[str, Any]:
    """What a leaderboard needs of an EvalAgentTest's games: counts, scores, and the best
    and worst game as replayable records (``pacman --replay``)."""
    from pacman.runner import game_record

    scores = [r.score for r in results]
    crashes = sum(1 for r in results if r.crashed) - timeouts
    stats: dict[str, Any] = {
        "games": len(results),
        "wins": sum(1 for r in results if r.win),
        "scores": scores,
        "timeouts": timeouts,
        "crashes": crashes,
        "best": None,
        "worst": None,
    }
    if results:
        # The first game of the highest (lowest) score: ties go to the earlier game.
        best = max(range(len(results)), key=lambda i: (scores[i], -i))
        worst = min(range(len(results)), key=lambda i: (scores[i], i))
        for key, index in (("best", best), ("worst", worst)):
            record = game_record(results[index], layout, num_ghosts)
            record["game"] = index
            stats[key] = record
    return stats


TEST_KINDS: dict[str, type[TestCase]] = {
    "GraphGameTreeTest": GraphGameTreeTest,
    "PacmanGameTreeTest": PacmanGameTreeTest,
    "EvalAgentTest": EvalAgentTest,
}


def make_test(path: str, test: TestFile, display_path: str) -> TestCase:
    kind = _require(test, "class").strip()
    cls = TEST_KINDS.get(kind)
    if cls is None:
        raise TestFileError(
            f"{test.where('class')}: unknown test class {kind!r} (known: {', '.join(sorted(TEST_KINDS))})"
        )
    return cls(path, test, display_path)


def display(path: str) -> str:
    """A test path as CS188 prints it: relative to the working directory when inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative
