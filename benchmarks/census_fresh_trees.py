"""What fresh tree tests ask of an agent beyond CS188's suite: a census over many seeds.

    python benchmarks/census_fresh_trees.py [--seeds 30] [--trees 8] [--kinds minimax,...]

Draws each seed's suite as ``--generate-suite --seed "census N"`` does (in this process, no
files written) and counts its tree tests, those whose best root move has a rival of equal
value (exact values, no pruning: an agent keeping the last of equal moves would choose
otherwise) and those with a move named Stop (an agent that leaves Stop out would miss it).
"""

from __future__ import annotations

import argparse

from agents.search_config import config_from_test
from pacman.gametree import GameTree
from pacman.grading.reference import root_values
from pacman.grading.suitegen import KINDS, question_tests


def census(seeds: int, trees: int, kinds: list[str]) -> tuple[int, int, int]:
    """(tree tests, root ties, tests with a Stop move) over ``seeds`` suites."""
    total = ties = stops = 0
    for seed in range(seeds):
        for kind in kinds:
            for test in question_tests(kind, f"census {seed}", trees)[0]:
                fields = test.test
                tree = GameTree.from_fields(fields)
                config = config_from_test(fields["alg"], fields["depth"], tree)
                values = sorted(root_values(tree.start, config).values(), reverse=True)
                total += 1
                ties += len(values) > 1 and values[0] - values[1] <= 1e-9
                moves = (line.split()[1] for line in fields["successors"].splitlines())
                stops += "Stop" in moves
    return total, ties, stops


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--trees", type=int, default=8, help="trees per question (8)")
    parser.add_argument("--kinds", default="minimax,alphabeta,expectimax")
    options = parser.parse_args(argv)
    kinds = options.kinds.split(",")
    total, ties, stops = census(options.seeds, options.trees, kinds)
    print(
        f"{total} tree tests over {options.seeds} seeds ({', '.join(KINDS[k].question for k in kinds)}): "
        f"{ties} with a root tie, {stops} with a Stop move"
    )


if __name__ == "__main__":
    main()
