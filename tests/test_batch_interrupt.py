"""Ctrl-C and SIGTERM sent to real batch runs: quick exit, whole outputs, no process left behind."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from grading_submissions import AFTER_IMPORTS, SMALL, submission_folder, submission_text
from test_grading import needs_berkeley

REPO = Path(__file__).resolve().parents[1]
#: The issue's bound: an interrupted run ends within 2 s of the signal.
EXIT_WITHIN = 2.0

# Alpha-beta games of about 0.1 s each: 200 of them outlast any test, and both workers are
# always in the middle of one.
GAMES = ["-p", "AlphaBetaAgent", "-a", "depth=2", "-l", "mediumClassic", "-q", "-n", "200",
         "--seed", "1", "--max-moves", "300", "--jobs", "2"]  # fmt: skip


def process_table() -> dict[int, tuple[int, str]]:
    """Every live process: pid -> (parent pid, start time), read from /proc."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            table[int(entry)] = (int(fields[1]), fields[19])
    return table


def descendants(pid: int) -> dict[int, str]:
    """The processes under ``pid``, each with its start time (so a reused pid is not mistaken)."""
    table = process_table()
    found: dict[int, str] = {}
    parents = {pid}
    while True:
        children = {p for p, (ppid, _) in table.items() if ppid in parents and p not in found}
        if not children:
            return found
        found.update({p: table[p][1] for p in children})
        parents = children


def command(pid: int) -> str:
    with open(f"/proc/{pid}/cmdline", "rb") as handle:
        return handle.read().replace(b"\0", b" ").decode()


def still_running(processes: dict[int, str]) -> list[int]:
    table = process_table()
    return [pid for pid, start in processes.items() if table.get(pid, (0, ""))[1] == start]


def wait_for_lines(path: Path, count: int, process: subprocess.Popen, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        if path.exists() and len(path.read_text().splitlines()) >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never reached {count} lines")


def interrupt(
    process: subprocess.Popen, signum: int, whole_group: bool, twice: bool = False
) -> tuple[float, str, dict[int, str]]:
    """Send the signal (to the process group, as a terminal's Ctrl-C does, or to the process).

    Returns the seconds until the process ended, its stderr and the processes it had.
    """
    family = descendants(process.pid)
    assert family, "the run has no worker processes"
    sent = time.monotonic()
    for _ in range(2 if twice else 1):
        if whole_group:
            os.killpg(process.pid, signum)
        else:
            os.kill(process.pid, signum)
    _, err = process.communicate(timeout=30)
    return time.monotonic() - sent, err, family


def start(args: list[str], cwd: Path, temporary: Path | None = None) -> subprocess.Popen:
    """``args`` in ``cwd``; with ``temporary``, its temporary files go there (TMPDIR)."""
    env = {**os.environ, "TMPDIR": str(temporary)} if temporary else None
    return subprocess.Popen(
        args,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell gives a command
    )


def assert_gone(family: dict[int, str]) -> None:
    deadline = time.monotonic() + 5  # killed processes are reaped by init
    while still_running(family) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert still_running(family) == []


@pytest.mark.parametrize(
    ("signum", "whole_group", "twice", "code"),
    [
        (signal.SIGINT, True, False, 130),
        (signal.SIGTERM, False, False, 143),
        (signal.SIGINT, True, True, 130),
    ],
    ids=["ctrl-c", "sigterm", "ctrl-c-twice"],
)
def test_an_interrupted_game_batch_keeps_every_finished_game(
    tmp_path, signum, whole_group, twice, code
):
    out = tmp_path / "out.jsonl"
    process = start([sys.executable, "-m", "pacman", *GAMES, "--json", str(out)], tmp_path)
    wait_for_lines(out, 4, process)
    seconds, err, family = interrupt(process, signum, whole_group, twice)
    assert process.returncode == code
    assert seconds < EXIT_WITHIN
    assert "Traceback" not in err
    lines = out.read_text().splitlines()
    assert 4 <= len(lines) < 200
    games = [json.loads(line) for line in lines]  # every line whole
    assert len({game["index"] for game in games}) == len(games)
    assert all(game["seed"] == 1 + game["index"] for game in games)
    if not twice:  # a second Ctrl-C may end the run before the file is put in game order
        assert [game["index"] for game in games] == sorted(game["index"] for game in games)
        assert err == f"pacman: interrupted: {len(lines)} of 200 games; results in {out}\n"
    assert_gone(family)


# Honest, but its import takes a minute: it is still being graded when the signal comes.
SLOW_IMPORT = AFTER_IMPORTS + "import time\n\ntime.sleep(60)\n"


def slow_submissions(root: Path) -> Path:
    folder = root / "submissions"
    folder.mkdir()
    for name in ("a_honest", "b_honest"):
        submission_folder("cs188_style", folder).rename(folder / name)
    for name in ("c_slow", "d_slow", "e_slow"):
        (folder / name).mkdir()
        text = submission_text("cs188_style").replace(AFTER_IMPORTS, SLOW_IMPORT, 1)
        (folder / name / "multiAgents.py").write_text(text)
    return folder


@needs_berkeley
@pytest.mark.parametrize(
    ("signum", "whole_group", "code"),
    [(signal.SIGINT, True, 130), (signal.SIGTERM, False, 143)],
    ids=["ctrl-c", "sigterm"],
)
def test_an_interrupted_grading_batch_keeps_every_graded_submission(
    tmp_path, signum, whole_group, code
):
    from test_grading import make_mini

    suite = make_mini(tmp_path, SMALL)
    folder = slow_submissions(tmp_path)
    prefix = tmp_path / "out" / "grades"
    args = [sys.executable, str(REPO / "autograder.py"), "--test-directory", str(suite)]
    args += ["--submissions", str(folder), "-j", "2", "--summary", str(prefix)]
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    process = start(args, tmp_path, temporary)
    csv_file = Path(str(prefix) + ".csv")
    wait_for_lines(csv_file, 3, process)  # the header and both honest submissions
    time.sleep(0.5)  # both grading processes are now on slow submissions
    seconds, err, family = interrupt(process, signum, whole_group)
    assert process.returncode == code
    assert seconds < EXIT_WITHIN
    assert err.endswith(
        f"autograder: interrupted: 2 of 5 submissions; results in {prefix}.csv, {prefix}.json\n"
    )
    assert "Traceback" not in err
    with open(csv_file, newline="") as handle:
        rows = [(row["submission"], row["total"]) for row in csv.DictReader(handle)]
    assert rows == [("a_honest", "15"), ("b_honest", "15")]
    data = json.loads(Path(str(prefix) + ".json").read_text())
    assert [record["submission"] for record in data["submissions"]] == ["a_honest", "b_honest"]
    # Every process: the grading processes, and the student workers under them (which die
    # with their grading process, by their parent-death signal).
    assert_gone(family)
    # Nor are the staged copies and scratch folders of the stopped submissions left behind.
    assert list(temporary.iterdir()) == []


def test_a_local_worker_lost_mid_run_costs_nothing(tmp_path):
    out = tmp_path / "out.jsonl"
    games = [*GAMES[: GAMES.index("-n") + 1], "12", *GAMES[GAMES.index("-n") + 2 :]]
    process = start([sys.executable, "-m", "pacman", *games, "--json", str(out)], tmp_path)
    wait_for_lines(out, 2, process)
    workers = [pid for pid in descendants(process.pid) if "resource_tracker" not in command(pid)]
    assert len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)  # in the middle of a game
    _, err = process.communicate(timeout=120)
    assert (process.returncode, err) == (0, "")
    lines = out.read_text().splitlines()
    assert [json.loads(line)["index"] for line in lines] == list(range(12))


# Stands for a run whose clean-up after the first signal is slow (closing a cluster).
SLOW_CLEAN_UP = """\
import sys, time
from pathlib import Path
from pacman import execution

execution._kill_on_second_signal.append(lambda: Path(sys.argv[1]).write_text("killed"))
with execution.interruption_handled():
    try:
        print("running", flush=True)
        time.sleep(60)
    except execution.Interrupted:
        print("cleaning up", flush=True)
        time.sleep(60)
"""


def test_a_second_ctrl_c_ends_a_slow_clean_up_at_once_after_killing_the_workers(tmp_path):
    marker = tmp_path / "killed"
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_CLEAN_UP, str(marker)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout.readline() == "running\n"
    process.send_signal(signal.SIGINT)
    assert process.stdout.readline() == "cleaning up\n"
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert (process.returncode, out, err) == (130, "", "")
    assert time.monotonic() - sent < EXIT_WITHIN
    assert marker.read_text() == "killed"


def test_a_pool_that_breaks_as_it_takes_a_task_loses_nothing():
    """A worker may die between two hand-outs: the pool then refuses the next task itself."""
    from concurrent.futures.process import BrokenProcessPool

    from pacman.execution import TaskRun

    with TaskRun(abs, [-1, -2, -3, -4, -5, -6], jobs=2) as run:
        backend = run._backend
        real_submit = backend.submit
        handed = []

        def breaking_once(function, task):
            handed.append(task)
            if len(handed) == 3:
                raise BrokenProcessPool("a child process terminated abruptly")
            return real_submit(function, task)

        backend.submit = breaking_once
        results = list(run)
    assert sorted(results) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)]


def test_a_local_pool_starts_no_more_workers_than_tasks():
    """Python's process pool (fork) starts every worker before the first task: two games
    with --jobs 16 start two processes, not sixteen."""
    import multiprocessing

    from pacman.execution import TaskRun

    with TaskRun(abs, [-1, -2], jobs=16) as run:
        assert sorted(result for _, result in run) == [1, 2]
        assert len(multiprocessing.active_children()) == 2
