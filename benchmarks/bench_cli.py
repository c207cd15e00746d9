"""A batch as a user runs it: ``pacman -q -n 300`` with and without ``--json``.

    python benchmarks/bench_cli.py [--games 300] [--layout mediumClassic] [--runs 5]

Each run is a fresh ``pacman`` process (start-up included) playing random Pac-Man
games against random ghosts, seeded; prints the median and range of wall time for
each form of the command. ``--json`` should cost little beyond writing its lines.
Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def _timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--layout", default="mediumClassic")
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    base = [sys.executable, "-m", "pacman", "-q", "-p", "RandomAgent", "-l", options.layout]
    base += ["-n", str(options.games), "--seed", "0"]
    print(f"{options.games} random {options.layout} games; median of {options.runs} runs")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as scratch:
        forms = {
            "pacman -q": base,
            "pacman -q --json": [*base, "--json", os.path.join(scratch, "games.jsonl")],
        }
        for label, command in forms.items():
            times = [_timed(command) for _ in range(options.runs)]
            print(
                f"{label:<20} median {statistics.median(times):.2f} s "
                f"(range {min(times):.2f}-{max(times):.2f} s)"
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
