"""Generating a fresh suite: seconds for a suite of about 200 trees, through the command line.

    python benchmarks/bench_suitegen.py [--trees 40] [--runs 3]

Runs ``pacman autograde --generate-suite DIR --trees N --seed S`` (all five kinds of question,
so 5 x N trees and a few more where a known mistake needs one) in a fresh process per run,
and prints each run's wall-clock seconds (interpreter start-up included) and the trees it
wrote. Speed lives here, never in the tests.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=40, help="trees per question (40)")
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args(argv)
    print(f"{'run':>4}{'trees':>7}{'seconds':>9}")
    with tempfile.TemporaryDirectory() as folder:
        for run in range(options.runs):
            suite = Path(folder) / f"suite{run}"
            command = [sys.executable, "-m", "pacman", "autograde", "--generate-suite", str(suite)]
            command += ["--trees", str(options.trees), "--seed", f"benchmark {run}"]
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            seconds = time.perf_counter() - started
            trees = len(list(suite.glob("q*/*.test")))
            print(f"{run + 1:>4}{trees:>7}{seconds:>9.2f}")


if __name__ == "__main__":
    main()
