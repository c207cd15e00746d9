"""Graded games: the student's agent playing from its worker (:class:`GradedAgent`, over a
:class:`GradingLink` that charges the test's budgets), and ``PacmanGameTreeTest``, CS188's
recorded game, where each move and explored-state count is checked against the recording.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any, NoReturn

from pacman.grading.testcase import (
    Context,
    ReplyError,
    TestCase,
    TestResult,
    int_field,
    required,
    short_name,
    worker_problem,
)
from pacman.sandbox.config import Limits, WorkerDied, WorkerTimeout
from pacman.sandbox.process import WorkerProcess
from pacman.sandbox.remote import RemoteAgent, RemoteFailure
from pacman.testfile import TestFile, TestFileError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from pacman.game import GameResult
    from pacman.layout import Layout
    from pacman.state import GameState, Position

    #: A recorded game's referee at each of Pac-Man's turns: (step, state, the student's
    #: action, its explored count, the link) -> the move played.
    Ask = Callable[[int, GameState, str, int, "GradingLink"], str]

# The worker's requests and replies are JSON: their fields stay untyped here.


class CountingRandom(random.Random):
    """A generator that counts ``random()`` draws since it was last seeded."""

    # (The ignore: the stub of random.Random's C base declares seed(self, object, /).)
    def seed(  # type: ignore[override]
        self, a: int | float | str | bytes | bytearray | None = None, version: int = 2
    ) -> None:
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
            return short_name(reply.get("action"), "the action")
        except ReplyError as error:
            self.link.fail(worker_problem(error))


class RecordedGameAgent(GradedAgent):
    """The student's agent in a recorded game (CS188's PacmanGameTreeTest): its random is
    re-seeded and advanced as CS188's global one is, its search's explored states are
    counted, and ``ask(step, state, action, explored, link)`` decides the move played."""

    def __init__(
        self, test: PacmanGameTreeTest, link: GradingLink, rng: CountingRandom, ask: Ask
    ) -> None:
        super().__init__(0, test.alg, {"depth": test.depth}, link, record=True)
        self.test = test
        self.rng = rng
        self.ask = ask
        self.step = 0

    def start_fields(self) -> dict[str, Any]:
        return {"seed": self.test.seed, "reseed_after_register": True}

    def register_initial_state(self, state: GameState) -> None:
        super().register_initial_state(state)
        self.rng.seed(self.test.seed)

    def move_fields(self) -> dict[str, Any]:
        first = self.step == 0
        return {
            "reseed": None if first else self.test.seed + self.step,
            "burn": 0 if first else self.rng.draws,
        }

    def choose(self, state: GameState, reply: dict[str, Any]) -> str:
        action = self.action(reply)
        explored = reply.get("explored")
        if not isinstance(explored, int) or isinstance(explored, bool):
            self.link.fail("Your code's process sent no explored-state count.")
        move = self.ask(self.step, state, action, explored, self.link)
        self.step += 1
        self.rng.seed(self.test.seed + self.step)
        return move


def play_graded(
    layout: Layout,
    pacman: GradedAgent,
    ghosts: Sequence[object],
    seed: int | None,
    secret: str = "",
) -> GameResult:
    """A graded game, played as every game is (:func:`pacman.runner.play`): here, against
    ``ghosts``, an agent's crash ending the game (its link keeps the student's failure),
    with no time limit of the game's own (the link charges the move's and the game's)."""
    from pacman.runner import GameSpec, play

    spec = GameSpec(
        layout=layout.name,
        loaded_layout=layout,
        num_ghosts=len(ghosts),
        seed=seed,
        secret=secret,
        catch_exceptions=True,
    )
    return play(spec, pacman=pacman, ghosts=ghosts)


def _layout_from_text(test: TestFile) -> Layout:
    from pacman.layout import parse_layout

    try:
        return parse_layout(required(test, "layout"), test.get("layoutName", "layout").strip())
    except Exception as error:
        raise TestFileError(f"{test.where('layout')}: {error}") from None


class PacmanGameTreeTest(TestCase):
    """A real game with recorded optimal moves: the agent's choice and explored count each turn."""

    kind = "PacmanGameTreeTest"

    def check(self) -> None:
        self.alg = required(self.test, "alg").strip()
        self.depth = int_field(self.test, "depth")
        self.seed = int_field(self.test, "seed")
        self.layout = _layout_from_text(self.test)
        self.num_ghosts = int_field(self.test, "numGhosts", 2)

    def cost(self) -> float:
        return 50.0

    def max_seconds(self, limits: Limits, solution: TestFile) -> float:
        moves = len(required(solution, "optimalActions").splitlines()) if solution else 0
        return limits.move_seconds * (moves + 1)  # every move, and registerInitialState

    def _lines(self, solution: TestFile, key: str) -> list[Any]:  # JSON lines
        try:
            return [
                json.loads(line) for line in required(solution, key).splitlines() if line.strip()
            ]
        except ValueError:
            raise TestFileError(f"{solution.where(key)}: a line of {key} is not JSON") from None

    def _play(
        self, ctx: Context, pacman_moves: list[str] | None, ask: Ask
    ) -> tuple[GameResult, str | None, bool, str]:
        """Play the game; Pac-Man plays ``pacman_moves[k]`` (or what ``ask`` returns).

        ``ask(k, state, action, explored)`` is called with the student's answer at each turn
        and returns the move to play. Returns (result, failure, timed_out, output).
        """
        from pacman.ghosts import DirectionalGhost

        rng = CountingRandom(self.seed)
        worker = ctx.pool.get()
        worker.mark_output()
        link = GradingLink(ctx, worker, self.alg)
        ghosts = [DirectionalGhost(i + 1, rng=rng) for i in range(self.num_ghosts)]
        pacman = RecordedGameAgent(self, link, rng, ask)  # named as the student's class
        # Unseeded by the game: the ghosts draw from ``rng``, the student's agent is re-seeded
        # as CS188's was (RecordedGameAgent).
        result = play_graded(self.layout, pacman, ghosts, seed=None)
        if link.failure is not None:
            failure = link.failure
            return result, str(failure), failure.timeout, worker.output()
        if result.crashed:
            # Not the student's fault: the recorded moves did not fit the game.
            message = f"The grader could not replay the recorded game: {result.crash}"
            return result, message, False, worker.output()
        return result, None, False, worker.output()

    def run(self, ctx: Context, solution: TestFile) -> TestResult:
        recording = _Recording(
            self._lines(solution, "optimalActions"),
            self._lines(solution, "altDepthActions"),
            self._lines(solution, "partialPlyBugActions"),
        )
        if not recording.consistent():
            raise TestFileError(
                f"{solution.path}: optimalActions, altDepthActions and partialPlyBugActions must have one line per move"
            )

        def ask(step: int, state: GameState, action: str, explored: int, link: GradingLink) -> str:
            return recording.check(step, state, action, explored)

        _result, failure, timed_out, output = self._play(ctx, None, ask)
        moves = f"on {self.layout.name}"
        if failure is not None:
            if timed_out:
                return self.result(
                    False, [f"Agent timed out {moves}. No credit.", failure], output, timed_out=True
                )
            return self.result(False, [f"Agent crashed {moves}. No credit.", failure], output)
        messages = recording.bugs(self.depth)
        return self.result(not messages, messages, output)

    def generate(self, ctx: Context) -> dict[str, str]:
        from pacman.grading.reference import game_solution

        return game_solution(self, ctx)


class _Recording:
    """A recorded game's solution: per move, the optimal actions with their explored-state
    counts, and what a search of the wrong depth or stopping part-way would play; which
    of those the student's moves stay consistent with."""

    # The three are a solution file's JSON lines (see :mod:`pacman.grading.reference`).
    def __init__(self, optimal: list[Any], alt_depth: list[Any], partial_ply: list[Any]) -> None:
        self.optimal, self.alt_depth, self.partial_ply = optimal, alt_depth, partial_ply
        self.fits_optimal = [True] * len(optimal[0]) if optimal else []
        self.fits_alt = [True] * len(alt_depth[0]) if alt_depth else []
        self.fits_partial = [True] * len(partial_ply[0]) if partial_ply else []
        self.wrong_count: list[tuple[int, Position, int, list[int]]] = []
        self.suboptimal: list[tuple[int, GameState, str, list[str]]] = []

    def consistent(self) -> bool:
        """Whether the three lists give one line per move."""
        return bool(self.optimal) and len(self.optimal) == len(self.alt_depth) == len(
            self.partial_ply
        )

    def check(self, step: int, state: GameState, action: str, explored: int) -> str:
        """Note what the student's ``action`` and count say at ``step``; the move to play."""
        if step >= len(self.optimal):
            # Pac-Man plays recorded moves, so this is the suite's fault, not the student's.
            raise RemoteFailure("the game went on longer than the recorded one")
        right_count = optimal_here = False
        for i, (actions, count) in enumerate(self.optimal[step]):
            if action in actions:
                optimal_here = True
            else:
                self.fits_optimal[i] = False
            if explored == int(count):
                right_count = True
        if not right_count:
            counts = [int(c) for _, c in self.optimal[step]]
            self.wrong_count.append((step, state.get_pacman_position(), explored, counts))
        for fits, lines in ((self.fits_alt, self.alt_depth), (self.fits_partial, self.partial_ply)):
            for i, actions in enumerate(lines[step]):
                if action not in actions:
                    fits[i] = False
        if not optimal_here:
            self.suboptimal.append((step, state, action, self.optimal[step][0][0]))
        return self.optimal[step][0][0][0]

    def bugs(self, depth: int) -> list[str]:
        """What went wrong, CS188's words first (none: the test passes)."""
        if self.wrong_count:
            step, position, explored, counts = self.wrong_count[0]
            return [
                "Bug: Wrong number of states expanded.",
                f"    First at Pac-Man's move {step + 1} (Pac-Man at {position}): your search explored "
                f"{explored} states; expected {' or '.join(str(c) for c in counts)}.",
                f"    {len(self.wrong_count)} of {len(self.optimal)} moves had a wrong count.",
            ]
        if any(self.fits_optimal):
            return []
        if any(self.fits_partial):
            return [
                "Bug: Partial Ply Bug",
                "    Your moves match a search that stops part-way through its last round.",
            ]
        if any(self.fits_alt):
            return [
                "Bug: Search depth off by 1",
                f"    Your moves match a search of depth {depth - 1} or {depth + 1}, not {depth}.",
            ]
        step, state, action, best = self.suboptimal[0]
        return [
            "Bug: Suboptimal moves",
            f"    {len(self.suboptimal)} suboptimal move(s); the first, at Pac-Man's move {step + 1}:",
            f"State:\n{state}",
            f"Student Move:{action}",
            f"Optimal Move:{' or '.join(best)}",
        ]
