"""What ``--similarity`` adds to a batch, for classes of 100 and 1,000 submissions.

    python benchmarks/bench_similarity.py [--sizes 100 1000] [--copies 0.1] [--seed 1]

A class is made in memory, as the batch holds it (each submission's files read once, for
its grading task): every submission is the course's starter
(tests/fixtures/similarity/starter.py) with code of its own, generated from a seed (random
helper functions, loops and conditions over the game's API, different in shape from any
other's), except a ``--copies`` share that are one of the honest test fixtures under new
names. The timing is :func:`~pacman.grading.similarity_report.flag_similar` whole: reading
the text, fingerprinting, comparing every pair, writing the HTML report; on one core (the
batch's own process), the 2 cores of this machine otherwise free for grading.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pacman.grading.similarity_report import SimilarityRequest, flag_similar  # noqa: E402

STARTER = REPO / "tests" / "fixtures" / "similarity" / "starter.py"
FIXTURES = sorted((REPO / "tests" / "fixtures" / "grading").glob("*/multiAgents.py"))
CALLS = [
    "state.getLegalActions({a})", "state.generateSuccessor({a}, {b})", "state.getScore()",
    "state.getNumAgents()", "state.getPacmanPosition()", "state.getFood().asList()",
    "state.getGhostPositions()", "state.getCapsules()", "manhattanDistance({a}, {b})",
    "len({a})", "min({a}, {b})", "max({a}, {b})", "abs({a} - {b})", "self.depth",
    "self.evaluationFunction({a})", "state.isWin()", "state.isLose()",
]  # fmt: skip
OPERATORS = ["+", "-", "*", "/", "%", "//"]
COMPARISONS = ["<", ">", "<=", ">=", "==", "!="]


@dataclass
class Submission:
    name: str
    files: dict[str, bytes]
    error: str | None = None


def expression(rng: random.Random, names: list[str], depth: int = 0) -> str:
    roll = rng.random()
    if depth > 2 or roll < 0.3:
        return rng.choice(names) if rng.random() < 0.7 else str(rng.randint(0, 99))
    if roll < 0.6:
        a, b = rng.choice(names), rng.choice(names)
        return rng.choice(CALLS).format(a=a, b=b)
    left, right = expression(rng, names, depth + 1), expression(rng, names, depth + 1)
    return f"({left} {rng.choice(OPERATORS)} {right})"


def block(rng: random.Random, names: list[str], indent: int, depth: int = 0) -> list[str]:
    pad = "    " * indent
    lines: list[str] = []
    for _ in range(rng.randint(2, 6)):
        roll = rng.random()
        if depth < 2 and roll < 0.2:
            condition = (
                f"{expression(rng, names)} {rng.choice(COMPARISONS)} {expression(rng, names)}"
            )
            lines += [f"{pad}if {condition}:", *block(rng, names, indent + 1, depth + 1)]
            if rng.random() < 0.5:
                lines += [f"{pad}else:", *block(rng, names, indent + 1, depth + 1)]
        elif depth < 2 and roll < 0.35:
            item = f"item{rng.randint(0, 9)}"
            lines += [f"{pad}for {item} in {rng.choice(names)}:"]
            lines += block(rng, [*names, item], indent + 1, depth + 1)
        else:
            target = f"v{rng.randint(0, 30)}"
            lines.append(f"{pad}{target} = {expression(rng, names)}")
            names = [*names, target]
    return lines


def own_code(rng: random.Random) -> str:
    """A submission's own functions: as long as a CS188 answer, shaped like no other's."""
    lines: list[str] = []
    for number in range(rng.randint(6, 10)):
        lines += [f"def helper{number}(self, state, a, b):", *block(rng, ["a", "b", "state"], 1)]
        lines += [f"    return {expression(rng, ['a', 'b', 'state'])}", ""]
    return "\n".join(lines)


def make_class(size: int, copies: float, seed: int) -> list[Submission]:
    rng = random.Random(seed)
    starter = STARTER.read_text()
    submissions = []
    for index in range(size):
        if rng.random() < copies:
            text = rng.choice(FIXTURES).read_text().replace("state", f"s{index}")
        else:
            text = starter + "\n\n" + own_code(rng)
        submissions.append(Submission(f"student{index:04d}", {"multiAgents.py": text.encode()}))
    return submissions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--copies", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    request = SimilarityRequest(starter=(str(STARTER),))
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            submissions = make_class(size, args.copies, args.seed)
            lines = sum(s.files["multiAgents.py"].count(b"\n") for s in submissions)
            with open("/dev/null", "w") as quiet:
                start = time.perf_counter()
                cells = flag_similar(submissions, request, f"{folder}/grades{size}", quiet)
                seconds = time.perf_counter() - start
            flagged = (
                Path(f"{folder}/grades{size}-similarity.html").read_text().count('<h2 id="pair')
            )
            pairs = size * (size - 1) // 2
            print(
                f"{size:5d} submissions ({lines // size} lines each on average, {pairs} pairs): "
                f"{seconds:.1f} s, {flagged} pairs flagged, {len(cells)} cells",
                flush=True,
            )


if __name__ == "__main__":
    main()
