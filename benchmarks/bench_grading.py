"""Wall and CPU time of the autograder on a whole suite, as a course runs it, where a grade's
seconds go, and one worker's start.

    python benchmarks/bench_grading.py [--test-directory ../shared/berkeley/test_cases] [--runs 5]
        [--profile] [--baseline OTHER_CHECKOUT] [--cs188 CS188_MULTIAGENT_FOLDER]

Prints the median (and range) of whole-process wall time for the project's agents and for a
CS188-style ``multiAgents.py`` (the honest fixture), each run a fresh ``autograder.py``
process, with the CPU seconds of the whole process tree (grader, workers and the tools that
build their walls: ``perf stat``'s task-clock, which does not change with the machine's load;
"n/a" where perf cannot count), and the median time to start one student worker and have it
prove its walls. Each figure is printed with the load average it was measured at. With
``--cs188`` (or ``$PACMAN_CS188_DIR``), CS188's own autograder grades the same file and suite
in a copy of that folder, in turn with this one's.

``--profile`` adds where the seconds of the CS188-style grade go (worker starts and proofs,
each move's round trip, the tests by kind, report writing), from fresh instrumented processes.
``--baseline DIR`` (another checkout of this project, e.g. ``git archive``'d from an older
commit) runs its grader in turn with this one's, so the two are measured under the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
HONEST = REPO / "tests" / "fixtures" / "grading" / "cs188_style" / "multiAgents.py"

#: The rows of the profile: (row, what is timed), in the order a grade meets them.
PHASES = [
    ("reading the suite", "load_suite"),
    ("worker start and proof", "worker start"),
    ("importing the student's file", "call load"),
    ("game start and end (requests)", "call game"),
    ("each move's round trip", "call act"),
    ("tree requests", "call tree"),
    ("tree tests (whole)", "test GraphGameTreeTest"),
    ("recorded-game tests (whole)", "test PacmanGameTreeTest"),
    ("evaluation tests (whole)", "test EvalAgentTest"),
    ("report writing", "report"),
    ("closing the workers", "pool close"),
]


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def _perf() -> list[str]:
    """The prefix counting a command's CPU time, children included ([] where perf cannot)."""
    perf = shutil.which("perf")
    if perf is None:
        return []
    probe = subprocess.run([perf, "stat", "-x,", "-e", "task-clock", "true"], capture_output=True)
    return [perf, "stat", "-x,", "-e", "task-clock"] if probe.returncode == 0 else []


def _timed(
    command: list[str], perf: list[str], cwd: str | None = None
) -> tuple[float, float | None, str]:
    """Wall seconds, CPU seconds (None where perf cannot count) and the ``Total:`` line."""
    started = time.perf_counter()
    done = subprocess.run([*perf, *command], capture_output=True, text=True, check=False, cwd=cwd)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"bench_grading: {' '.join(command)} exited {done.returncode}: {done.stderr}")
    total = [line for line in done.stdout.splitlines() if line.startswith("Total:")]
    cpu = None
    for line in done.stderr.splitlines():
        if "task-clock" in line:
            cpu = float(line.split(",")[0]) / 1000
    return elapsed, cpu, total[-1] if total else "?"


def _spread(values: list[float], unit: str = "s") -> str:
    values = sorted(values)
    middle = statistics.median(values)
    return f"median {middle:.2f} {unit} (range {values[0]:.2f}-{values[-1]:.2f})"


def _whole_runs(
    cases: dict[str, list[str]], runs: int, folders: dict[str, str] | None = None
) -> None:
    """Each case's whole-process figures, the cases taken in turn so they share the load
    (``folders``: where a case runs, when not here)."""
    perf = _perf()
    results: dict[str, list[tuple[float, float | None, str, str]]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, command in cases.items():
            load = _load()
            results[name].append((*_timed(command, perf, (folders or {}).get(name)), load))
    for name, rows in results.items():
        walls = [wall for wall, _, _, _ in rows]
        cpus = [cpu for _, cpu, _, _ in rows if cpu is not None]
        cpu = _spread(cpus) if cpus else "n/a (perf stat cannot count here)"
        loads = ", ".join(load.split()[1] for _, _, _, load in rows)
        print(f"{name:30} wall {_spread(walls)}; CPU {cpu}; {rows[-1][2]} (loads {loads})")


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


# -- the profile: one instrumented grade per process ---------------------------------------------


def _timer(record: Callable[[str, float], None], key: Any, function: Callable) -> Callable:
    """``function``, its calls timed under ``key`` (a name, or a function of the arguments)."""

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            record(key(*args, **kwargs) if callable(key) else key, time.perf_counter() - started)

    return timed


def _instrument(record: Callable[[str, float], None]) -> None:
    """Time the grade's phases by wrapping the functions that do them (the names exist in
    every version of the grader this benchmark compares)."""
    from pacman.grading import job, kind_eval, kind_games, kind_trees
    from pacman.sandbox import pool, process

    worker = process.WorkerProcess
    worker._start = _timer(record, "worker start", worker._start)

    def request(self: Any, op: str, *args: Any, **kwargs: Any) -> str:
        return "call game" if op.startswith("game_") else f"call {op}"

    worker.call = _timer(record, request, worker.call)
    job.load_suite = _timer(record, "load_suite", job.load_suite)
    for name in ("heading", "question_block", "summary_block", "import_report"):
        setattr(job, name, _timer(record, "report", getattr(job, name)))
    pool.WorkerPool.close = _timer(record, "pool close", pool.WorkerPool.close)
    for kind in (
        kind_eval.EvalAgentTest,
        kind_games.PacmanGameTreeTest,
        kind_trees.GraphGameTreeTest,
    ):
        kind.run = _timer(record, f"test {kind.__name__}", kind.run)


def _phases_child(argv: list[str]) -> None:
    """Run in a fresh process with the checkout to profile first on sys.path: grade once,
    print the phases as JSON."""
    import contextlib
    import io
    import threading

    from pacman.grade_cli import main

    totals: dict[str, list[float]] = {}
    lock = threading.Lock()

    def record(key: str, seconds: float) -> None:
        with lock:
            count, total = totals.get(key, [0, 0.0])
            totals[key] = [count + 1, total + seconds]

    _instrument(record)
    began = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()) as report:
        main(argv)
    totals["main"] = [1, time.perf_counter() - began]
    own = os.times()
    totals["grader CPU"] = [1, own.user + own.system]
    if "Total: " not in report.getvalue():
        sys.exit(f"bench_grading: no total in the report:\n{report.getvalue()[-2000:]}")
    print(json.dumps(totals))


def _profile(root: Path, grade_args: list[str], runs: int) -> list[dict[str, Any]]:
    child = [sys.executable, str(Path(__file__).resolve()), "--phases-of", str(root), "--"]
    profiles = []
    for _ in range(runs):
        load = _load()
        started = time.perf_counter()
        done = subprocess.run([*child, *grade_args], capture_output=True, text=True, check=True)
        phases = json.loads(done.stdout.splitlines()[-1])
        phases["process"] = [1, time.perf_counter() - started]
        phases["load"] = [0, float(load.split()[1])]
        profiles.append(phases)
    return profiles


def _print_profile(name: str, profiles: list[dict[str, Any]]) -> None:
    def median(key: str, index: int = 1) -> float:
        return statistics.median(p.get(key, [0, 0.0])[index] for p in profiles)

    loads = ", ".join(f"{p['load'][1]:.1f}" for p in profiles)
    print(f"\n{name}: median of {len(profiles)} fresh processes (loads {loads})")
    print("| phase | calls | seconds (summed over threads) | ms each |")
    print("| --- | ---: | ---: | ---: |")
    for row, key in PHASES:
        calls, seconds = median(key, 0), median(key)
        each = f"{seconds / calls * 1000:.2f}" if calls else "-"
        print(f"| {row} | {calls:.0f} | {seconds:.3f} | {each} |")
    outside = median("process") - median("main")
    print(f"| interpreter start, grader imports, exit | 1 | {outside:.3f} | - |")
    print(f"| whole process (wall) | 1 | {median('process'):.3f} | - |")
    print(f"| the grader's own CPU | 1 | {median('grader CPU'):.3f} | - |")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--phases-of":
        sys.path.insert(0, sys.argv[2])
        _phases_child(sys.argv[4:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_suite = REPO.parent / "shared" / "berkeley" / "test_cases"
    parser.add_argument("--test-directory", default=str(default_suite))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="where a grade's seconds go")
    parser.add_argument("--baseline", help="another checkout, measured in turn with this one")
    parser.add_argument(
        "--cs188",
        default=os.environ.get("PACMAN_CS188_DIR"),
        metavar="DIR",
        help="a CS188 multiagent folder: its own autograder grades the same file and suite, in "
        "turn with this one (default: $PACMAN_CS188_DIR)",
    )
    args = parser.parse_args()
    honest = ["--test-directory", args.test_directory, "--code-directory", str(HONEST.parent)]
    roots = {"this checkout": REPO}
    if args.baseline:
        roots["baseline " + args.baseline] = Path(args.baseline).resolve()
    cases = {}
    for label, root in roots.items():
        grader = [sys.executable, str(root / "autograder.py")]
        if not args.baseline:
            cases[f"project agents ({label})"] = [*grader, "--test-directory", args.test_directory]
        cases[f"CS188-style file ({label})"] = [*grader, *honest]
    print(f"suite: {args.test_directory}; {args.runs} runs each; {os.cpu_count()} cores; {_load()}")
    with tempfile.TemporaryDirectory(prefix="bench-cs188-") as scratch:
        folders = {}
        if args.cs188:  # a copy, so the folder's own multiAgents.py stays as it is
            copy = shutil.copytree(args.cs188, os.path.join(scratch, "multiagent"))
            shutil.copy(HONEST, os.path.join(copy, "multiAgents.py"))
            label = "CS188-style file (CS188's own autograder)"
            suite = os.path.abspath(args.test_directory)
            cases[label] = [
                sys.executable,
                "autograder.py",
                "--no-graphics",
                "--test-directory",
                suite,
            ]
            folders[label] = copy
        _whole_runs(cases, args.runs, folders)
    if args.profile:
        profiles: dict[str, list[dict[str, Any]]] = {label: [] for label in roots}
        for _ in range(args.runs):  # in turn, so both see the same load
            for label, root in roots.items():
                profiles[label] += _profile(root, honest, 1)
        for label, found in profiles.items():
            _print_profile(label, found)
    starts = sorted(_worker_start_seconds(args.runs))
    print(
        f"\nworker start (with its proof): median {statistics.median(starts) * 1000:.0f} ms; {_load()}"
    )


if __name__ == "__main__":
    main()
