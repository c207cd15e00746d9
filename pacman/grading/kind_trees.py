"""``GraphGameTreeTest``: a search agent on an explicit tree; its move and the states it
generated, against the solution's, with the first departure and the diagnosis.
"""

from __future__ import annotations

from pacman.grading import diagnose
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
from pacman.sandbox.config import WorkerDied, WorkerTimeout
from pacman.seeding import CS188_SEED
from pacman.testfile import TestFile, TestFileError

MAX_EXPANSIONS = 2_000_000


class GraphGameTreeTest(TestCase):
    """A search agent on an explicit tree: its move and the states it generated."""

    kind = "GraphGameTreeTest"

    def check(self) -> None:
        from pacman.gametree import GameTree

        self.alg = required(self.test, "alg").strip()
        self.depth = int_field(self.test, "depth")
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
                seed=CS188_SEED,  # the same draws on every run, whichever worker asks
            )
        except (WorkerDied, WorkerTimeout) as error:
            self._timed_out = isinstance(error, WorkerTimeout)
            return None, [], worker_problem(error), worker.output()
        output = worker.output()
        try:
            action = reply.get("action")
            if action is not None:
                action = short_name(action, "the action")
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
                        short_name(entry[1], "an action"),
                        short_name(entry[2], "a state"),
                        short_name(entry[3], "a state"),
                    )
                )
            # (Not ``error``: the name is unbound when the ``except ... as error`` above ends.)
            raised = reply.get("error")
            if raised is not None:
                raised = f"Error in your code: {str(raised)[:2000]}"
        except ReplyError as problem:
            worker.kill()
            return None, [], worker_problem(problem), output
        return action, expansions, raised, output

    def _agent_kwargs(self) -> dict[str, object]:
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
        gold_action = required(solution, "action").strip()
        gold_generated = required(solution, "generated").split()
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
                for line in required(solution, "expansions").splitlines()
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
