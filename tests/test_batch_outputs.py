"""Output files of batch runs: checked before the first game, whole, following the umask;
an agent that calls sys.exit is named."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pacman.cli import main as pacman
from pacman.grade_cli import main as autograder

REPO = Path(__file__).resolve().parents[1]
QUICK = ["-p", "GreedyAgent", "-l", "testClassic", "-q", "--seed", "1", "--max-moves", "5"]


def test_missing_folders_are_created_before_the_games(capsys, tmp_path):
    out = tmp_path / "new" / "deeper" / "games.jsonl"
    record = tmp_path / "records" / "game.json"
    code = pacman([*QUICK, "-n", "2", "--json", str(out), "--record", str(record)])
    assert code == 0, capsys.readouterr().err
    assert [json.loads(line)["index"] for line in out.read_text().splitlines()] == [0, 1]
    assert sorted(p.name for p in record.parent.iterdir()) == ["game-1.json", "game-2.json"]


@pytest.mark.parametrize(
    ("flag", "path", "reason"),
    [
        ("--json", "a_file/games.jsonl", "a_file is a file, not a folder"),
        ("--json", "a_folder", "is a folder; give a file name"),
        ("--record", "a_file/game.json", "a_file is a file, not a folder"),
        ("--gif", "a_file/sub/game.gif", "a_file is a file, not a folder"),
        ("--frames", "a_file", "is a file; give a folder name"),
    ],
)
def test_an_output_path_mistake_costs_no_games(capsys, tmp_path, monkeypatch, flag, path, reason):
    monkeypatch.chdir(tmp_path)
    Path("a_file").write_text("keep me\n")
    Path("a_folder").mkdir()
    code = pacman([*QUICK, "-n", "3", flag, path])
    out, err = capsys.readouterr()
    assert code == 2
    assert err == f"pacman: {flag} {path}: {reason}\n"
    assert out == ""  # not one game was played
    assert Path("a_file").read_text() == "keep me\n"


def test_grading_output_paths_are_checked_before_grading(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    code = autograder(["-q", "q1", "--results", str(blocker / "results.json")])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert (
        err == f"autograder: --results {blocker}/results.json: {blocker} is a file, not a folder\n"
    )
    (tmp_path / "submissions" / "one").mkdir(parents=True)
    code = autograder(
        ["--submissions", str(tmp_path / "submissions"), "--summary", str(blocker / "grades")]
    )
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == f"autograder: --summary {blocker}/grades.csv: {blocker} is a file, not a folder\n"


def run_pacman(args: list[str], cwd: Path, **options) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pacman", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        **options,
    )


def test_json_results_and_records_follow_the_umask(tmp_path):
    done = run_pacman(
        [*QUICK, "-n", "2", "--json", "out/games.jsonl", "--record", "out/game.json"],
        tmp_path,
        umask=0o027,
    )
    assert (done.returncode, done.stderr) == (0, "")
    written = sorted((tmp_path / "out").iterdir())
    assert [p.name for p in written] == ["game-1.json", "game-2.json", "games.jsonl"]
    assert {stat.S_IMODE(p.stat().st_mode) for p in written} == {0o640}


# Exits in the game seeded 2 (the batch's second), wherever that game is played.
QUITTER = """\
import random

from pacman.agent import Agent
from pacman.seeding import GameSeeds


class Quitter(Agent):
    rng = None  # its own stream of the game, handed over by the runner

    def register_initial_state(self, state):
        game_two = random.Random(GameSeeds(2).for_agent(0))
        self.quitting = self.rng.getstate() == game_two.getstate()

    def get_action(self, state):
        if self.quitting:
            raise SystemExit(3)
        return state.get_legal_actions(0)[0]
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_agent_calling_sys_exit_is_named_and_the_finished_games_kept(tmp_path, jobs):
    (tmp_path / "quitter.py").write_text(QUITTER)
    done = run_pacman(
        ["-p", "quitter.py:Quitter", "-l", "testClassic", "-q", "-n", "3", "--max-moves", "3",
         "--seed", "1", "--jobs", jobs, "--json", "games.jsonl"],
        tmp_path,
    )  # fmt: skip
    assert done.returncode == 1
    games = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    indexes = [game["index"] for game in games]
    # Serially the third game is never played; in parallel the others may end before or after.
    assert indexes == [0] if jobs == "1" else indexes in ([], [0], [2], [0, 2])
    finished = f"{len(games)} finished game{'' if len(games) == 1 else 's'}"
    assert done.stderr == (
        "pacman: Pac-Man (Quitter) called sys.exit(3) at quitter.py:16; "
        f"{finished} kept in games.jsonl\n"
    )


def test_an_agent_file_calling_sys_exit_on_import_is_named(tmp_path):
    (tmp_path / "bye.py").write_text("import sys\n\nsys.exit('bye')\n")
    done = run_pacman(["-p", "bye.py:Agent", "-l", "testClassic", "-q"], tmp_path)
    assert done.returncode == 1
    assert done.stderr == "pacman: the agent bye.py:Agent called sys.exit('bye') at bye.py:3\n"


def test_scheduler_without_dask_is_one_line_with_the_install_hint(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if the [dask] extra were missing
    monkeypatch.chdir(tmp_path)
    code = pacman([*QUICK, "-n", "2", "--scheduler", "local", "--json", "games.jsonl"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == "pacman: --scheduler needs Dask: pip install 'dask[distributed]>=2024.1'\n"
    Path("submissions").mkdir()
    code = autograder(["--submissions", "submissions", "--scheduler", "local"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == "autograder: --scheduler needs Dask: pip install 'dask[distributed]>=2024.1'\n"
    assert list(tmp_path.iterdir()) == [tmp_path / "submissions"]  # no output file made


def test_streamed_files_are_valid_after_every_row_and_end_in_key_order(tmp_path):
    from pacman.outputs import StreamedJsonList, StreamedLines

    lines = StreamedLines(tmp_path / "rows.csv", "name,total\n")
    document = StreamedJsonList(tmp_path / "grades.json", {"questions": ["q2"]}, "submissions")
    assert json.loads((tmp_path / "grades.json").read_text()) == {
        "questions": ["q2"],
        "submissions": [],
    }
    for name, total in [("carol", 3), ("alice", 5), ("bob", 4)]:
        lines.add(name, f"{name},{total}\n")
        document.add(name, {"submission": name, "total": total})
        names = [
            r["submission"]
            for r in json.loads((tmp_path / "grades.json").read_text())["submissions"]
        ]
        assert names[-1] == name and len(names) == len(lines.lines)
        assert (tmp_path / "rows.csv").read_text().endswith(f"{name},{total}\n")
    lines.finish()
    document.finish()
    assert (tmp_path / "rows.csv").read_text() == "name,total\nalice,5\nbob,4\ncarol,3\n"
    data = json.loads((tmp_path / "grades.json").read_text())
    assert [r["submission"] for r in data["submissions"]] == ["alice", "bob", "carol"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grades.json", "rows.csv"]
