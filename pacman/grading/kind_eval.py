"""``EvalAgentTest``: games of the student's agent against the test's ghosts, points for the
average score, the games not timed out and the wins; and what a leaderboard keeps of them.
"""

from __future__ import annotations

import ast
import json
from typing import TYPE_CHECKING, Any

from pacman.grading.kind_games import GradedAgent, GradingLink, play_graded
from pacman.grading.testcase import Context, TestCase, TestResult, int_field, required
from pacman.sandbox.config import Limits
from pacman.seeding import mixed_secret
from pacman.testfile import TestFile, TestFileError

if TYPE_CHECKING:
    from pacman.game import GameResult
    from pacman.layout import Layout
    from pacman.sandbox.process import WorkerProcess


# A ghost's arguments are whatever literals the test file gives (literal_eval), so untyped.
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


#: Where the course gives no ``--game-secret``, a test's ghosts draw with a secret derived
#: from this label and the test's own fields: the same games on every run of the test (alone,
#: in its question, in a batch), whatever else the suite holds; anyone holding the test can
#: derive it, which only a course's own secret prevents.
OWN_SECRET_LABEL = "pacman-eval-games-without-a-course-secret"


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
        self.agent = required(test, "agentName").strip()
        try:
            self.kwargs = parse_agent_args(test.get("agentArgs", ""), "agentArgs")
        except Exception as error:
            raise TestFileError(f"{test.where('agentArgs')}: {error}") from None
        name = required(test, "layoutName").strip()
        try:
            self.layout = load_layout(name)
        except Exception as error:
            raise TestFileError(f"{test.where('layoutName')}: {error}") from None
        self.ghosts = parse_ghosts(test.get("ghosts", "[RandomGhost(1)]"), test.where("ghosts"))
        self.num_games = int_field(test, "numGames", 1)
        self.max_time = float(int_field(test, "maxTime", 120))
        self.seed = int_field(test, "randomSeed", 0)
        self.own_secret = mixed_secret(OWN_SECRET_LABEL, json.dumps(sorted(test.items())).encode())
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

    def _play_all(
        self, ctx: Context
    ) -> tuple[list[GameResult], int, dict[str, int], str, str | None]:
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

    def _play_one(
        self, ctx: Context, worker: WorkerProcess, start_new: bool, game: int
    ) -> tuple[GameResult, bool]:
        """Game ``game`` of the test, seeded ``randomSeed + game``: the student's agent plays
        from ``worker`` with its own stream, the ghosts here with streams derived from the
        course's secret, else the test's own (:mod:`pacman.seeding`), which the worker is
        never told."""
        from pacman.ghosts import GHOST_TYPES

        link = GradingLink(ctx, worker, self.agent, self.max_time, fresh=start_new)
        ghosts = [GHOST_TYPES[name](*args, **kwargs) for name, args, kwargs in self.ghosts]
        pacman = GradedAgent(0, self.agent, self.kwargs, link)
        result = play_graded(
            self.layout, pacman, ghosts, self.seed + game, ctx.game_secret or self.own_secret
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
                # Failed, so a minimum is set (mypy does not see that through ``passed``).
                below = f"below minimum value {_fmt(minimum)}"  # type: ignore[arg-type]
                messages.append(f"{_fmt(value)} {name} (fail: {below})")
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


def game_stats(
    results: list[GameResult], timeouts: int, layout: Layout, num_ghosts: int
) -> dict[str, Any]:  # a leaderboard's JSON: its values are untyped
    """What a leaderboard needs of an EvalAgentTest's games: counts, scores, and the best
    and worst game as replayable records (``pacman --replay``)."""
    from pacman.records import game_record

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
