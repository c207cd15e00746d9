"""Wall time of the autograder on a whole suite, as a course runs it, and of one worker start.

    python benchmarks/bench_grading.py [--test-directory ../shared/berkeley/test_cases] [--runs 5]

Prints the median (and range) of whole-process wall time for the project's agents and for a
CS188-style ``multiAgents.py`` (the honest fixture), each run a fresh ``autograder.py``
process, and the median time to start one student worker and have it prove its walls.
Takes about 30 s with CS188's suite.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HONEST = REPO / "tests" / "fixtures" / "grading" / "cs188_style" / "multiAgents.py"


def _timed(command: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"bench_grading: {' '.join(command)} exited {done.returncode}: {done.stderr}")
    total = [line for line in done.stdout.splitlines() if line.startswith("Total:")]
    return elapsed, total[-1] if total else "?"


def _worker_start_seconds(runs: int) -> list[float]:
    sys.path.insert(0, str(REPO))
    from pacman.sandbox.config import SandboxConfig
    from pacman.sandbox.process import WorkerProcess
    from pacman.sandbox.staging import stage_files

    times = []
    with tempfile.TemporaryDirectory() as private:
        stage, staged = stage_files(private, {"multiAgents.py": HONEST.read_bytes()}, None)
        config = SandboxConfig(student_files=staged, code_dir=stage, allow_weak=True)
        for _ in range(runs):
            started = time.perf_counter()
            worker = WorkerProcess(config)
            times.append(time.perf_counter() - started)
            worker.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_suite = REPO.parent / "shared" / "berkeley" / "test_cases"
    parser.add_argument("--test-directory", default=str(default_suite))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    base = [sys.executable, str(REPO / "autograder.py"), "--test-directory", args.test_directory]
    cases = {
        "project agents": base,
        "CS188-style file": [*base, "--code-directory", str(HONEST.parent)],
    }
    print(f"suite: {args.test_directory}; {args.runs} runs each; {os.cpu_count()} cores")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for name, command in cases.items():
        results = [_timed(command) for _ in range(args.runs)]
        times = sorted(t for t, _ in results)
        print(
            f"{name:18} median {statistics.median(times):.2f} s "
            f"(range {times[0]:.2f}-{times[-1]:.2f} s), {results[-1][1]}"
        )
    starts = sorted(_worker_start_seconds(args.runs))
    print(f"{'worker start':18} median {statistics.median(starts) * 1000:.0f} ms (with its proof)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
