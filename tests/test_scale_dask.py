"""Batches on a Dask LocalCluster of 2 worker processes: the same results as here, files that
travel with the task, and a worker lost mid-run costing nothing."""

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

distributed = pytest.importorskip("distributed")

from grading_submissions import submission_folder  # noqa: E402
from test_grading import SMALL, make_mini, needs_berkeley  # noqa: E402

from pacman.runner import GameSpec, batch, run_games  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def start_cluster(home: Path) -> tuple[distributed.LocalCluster, distributed.Client]:
    """Two worker processes whose working directory is ``home``, not the test's."""
    home.mkdir(exist_ok=True)
    here = os.getcwd()
    os.chdir(home)  # spawned workers start where their cluster was started
    try:
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
        )
    finally:
        os.chdir(here)
    return cluster, distributed.Client(cluster)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    cluster, client = start_cluster(tmp_path_factory.mktemp("worker_home"))
    cluster.test_client = client
    yield cluster
    client.close()
    cluster.close()


def outcomes(results):
    return [(r.seed, r.score, r.win, r.moves, r.actions) for r in results]


def test_dask_games_equal_the_serial_games(cluster):
    specs = batch(GameSpec(layout="smallClassic", pacman="GreedyAgent", seed=40), 6)
    on_cluster = outcomes(run_games(specs, scheduler=cluster.scheduler_address))
    assert on_cluster == outcomes(run_games(specs))


def pacman(args: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "pacman", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if check:
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done


AGENT = """\
from pacman.agent import Agent


class EastFirst(Agent):
    def get_action(self, state):
        legal = state.get_legal_actions(0)
        return "East" if "East" in legal else legal[0]
"""


def test_an_agent_file_and_a_layout_file_reach_workers_elsewhere(cluster, tmp_path):
    worker_homes = {Path(home) for home in cluster.test_client.run(os.getcwd).values()}
    assert tmp_path not in worker_homes
    (tmp_path / "east_first.py").write_text(AGENT)
    (tmp_path / "tiny.lay").write_text((REPO / "layouts" / "testClassic.lay").read_text())
    args = ["-p", "east_first.py:EastFirst", "-l", "tiny.lay", "-q", "-n", "4", "--seed", "5"]
    args += ["--max-moves", "20", "--json"]
    pacman([*args, "here.jsonl"], tmp_path)
    pacman([*args, "there.jsonl", "--scheduler", cluster.scheduler_address], tmp_path)

    def games(name: str) -> list[dict]:
        lines = (tmp_path / name).read_text().splitlines()
        return [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in lines]

    assert games("there.jsonl") == games("here.jsonl")
    assert [game["pacman"] for game in games("there.jsonl")] == ["EastFirst"] * 4


def test_a_worker_lost_mid_run_costs_nothing(tmp_path):
    cluster, client = start_cluster(tmp_path / "worker_home")
    try:
        out = tmp_path / "games.jsonl"
        args = ["-p", "AlphaBetaAgent", "-a", "depth=2", "-l", "mediumClassic", "-q", "-n", "16"]
        args += ["--seed", "1", "--max-moves", "300", "--json", str(out)]
        process = subprocess.Popen(
            [sys.executable, "-m", "pacman", *args, "--scheduler", cluster.scheduler_address],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        while not (out.exists() and out.read_text().count("\n") >= 2):
            assert process.poll() is None, process.communicate()
            time.sleep(0.02)
        victim = sorted(client.run(os.getpid).values())[0]
        os.kill(victim, signal.SIGKILL)  # in the middle of a game
        _, err = process.communicate(timeout=120)
        assert (process.returncode, err) == (0, "")
        indexes = [json.loads(line)["index"] for line in out.read_text().splitlines()]
        assert indexes == list(range(16))
    finally:
        client.close()
        cluster.close()


@needs_berkeley
def test_dask_grades_equal_the_local_grades(cluster, tmp_path):
    suite = make_mini(tmp_path, SMALL)
    folder = tmp_path / "submissions"
    folder.mkdir()
    for name in ("cs188_style", "broken_ab_equality", "hostile_exit_at_import"):
        submission_folder(name, folder)
    grader = [sys.executable, str(REPO / "autograder.py"), "--test-directory", str(suite)]
    grader += ["--submissions", str(folder), "--summary"]
    for prefix, extra in (
        ("local", ["-j", "2"]),
        ("dask", ["--scheduler", cluster.scheduler_address]),
    ):
        done = subprocess.run(
            [*grader, str(tmp_path / prefix), *extra],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    local, dask = ((tmp_path / f"{prefix}.csv").read_text() for prefix in ("local", "dask"))
    assert dask == local
    rows = {row["submission"]: row["total"] for row in csv.DictReader(local.splitlines())}
    assert rows == {"broken_ab_equality": "10", "cs188_style": "15", "hostile_exit_at_import": "0"}
    records = json.loads((tmp_path / "dask.json").read_text())["submissions"]
    # Each result says where it was graded and under which protections.
    assert all(record["host"] and record["isolation"] for record in records if not record["error"])


@pytest.mark.parametrize(
    ("address", "says"),
    [
        ("lcoal", "not a scheduler address; give tcp://HOST:PORT, or 'local'"),
        ("Local", "did you mean 'local'?"),
        ("http://127.0.0.1:8787", "that is a dashboard's address"),
        ("", "not a scheduler address"),
        ("ftp://host:21", "unknown scheme 'ftp'"),
    ],
)
@pytest.mark.parametrize("program", ["pacman", "autograder"])
def test_a_mistyped_scheduler_is_one_line_in_both_commands(tmp_path, program, address, says):
    if program == "pacman":
        command = [sys.executable, "-m", "pacman", "-q", "-p", "GreedyAgent", "-l", "testClassic"]
    else:
        command = [sys.executable, str(Path(__file__).parents[1] / "autograder.py")]
        command += ["--submissions", str(tmp_path)]
    done = subprocess.run(
        [*command, "--scheduler", address], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr == f"{program}: --scheduler {address!r}: " + done.stderr.split(": ", 2)[2]
    assert says in done.stderr and done.stderr.count("\n") == 1
