"""The pacman command: CS188's flags and closing lines, one-line errors, batch options."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from short_games import run_pacman_without_display

from pacman.cli import build_parser, main, parse_options, resolve_abbreviations
from pacman.loading import parse_agent_args


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_closing_lines_are_cs188s(capsys):
    code, out, _ = run(
        capsys, "-p", "GreedyAgent", "-l", "smallClassic", "-q", "-n", "3", "--seed", "40"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[:3] == [
        "Pacman died! Score: -17",
        "Pacman died! Score: 314",
        "Pacman died! Score: -295",
    ]
    assert lines[3:] == [
        "Average Score: 0.6666666666666666",  # CS188 prints the float as it is
        "Scores:        -17.0, 314.0, -295.0",
        "Win Rate:      0/3 (0.00)",
        "Record:        Loss, Loss, Loss",
    ]


def test_cs188_defaults_and_abbreviations():
    parser = build_parser()
    options = parser.parse_args([])
    assert (options.numGames, options.layout, options.pacman, options.ghosts, options.numghosts) == (
        1, "mediumClassic", "KeyboardAgent", "RandomGhost", 4,
    )  # fmt: skip
    # No --timeout: none without -c, CS188's 30 s with it (DEFAULT_TIMEOUT).
    assert (options.zoom, options.frameTime, options.timeout, options.numTraining) == (
        1.0,
        0.1,
        None,
        0,
    )
    args = resolve_abbreviations(
        parser, ["--frame", "0.05", "--numG", "3", "--lay=smallClassic", "--rec"]
    )
    options = parser.parse_args(args)
    assert (options.frameTime, options.numGames, options.layout, options.record) == (
        0.05,
        3,
        "smallClassic",
        "<auto>",
    )


def test_each_flag_reaches_its_own_play_option():
    flags = "-n 3 -x 1 -l smallClassic -p GreedyAgent -a depth=2 -g DirectionalGhost -k 2 -c "
    flags += "--timeout 5 --max-moves 9 --isolation sandbox -f --seed 4 --game-secret s -t -q "
    flags += "-z 2 --frameTime 0 --theme light --values --web 8000 --no-browser --replay r.json "
    flags += "-r g.json --json j.json --stats --save-layout l.lay --gif g.gif --frames f --html h"
    options = parse_options(flags.split())
    assert dataclasses.asdict(options) == {
        "layout": "smallClassic", "pacman": "GreedyAgent", "agent_args": "depth=2",
        "ghosts": "DirectionalGhost", "num_ghosts": 2, "games": 3, "training_games": 1,
        "catch_exceptions": True, "timeout": 5.0, "max_moves": 9, "isolation": "sandbox",
        "fix_random_seed": True, "seed": 4, "game_secret": "s", "jobs": 1, "scheduler": None,
        "text": True, "quiet": True, "zoom": 2.0, "frame_time": 0.0, "theme": "light",
        "values": True, "web_port": 8000, "no_browser": True, "replay": "r.json",
        "record": "g.json", "json_lines": "j.json", "stats": True, "save_layout": "l.lay",
        "gif": "g.gif", "frames": "f", "html": "h",
    }  # fmt: skip
    assert parse_options(["--jobs", "2"]).jobs == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.games = 4


def test_agent_args_parse_as_cs188():
    assert parse_agent_args("depth=3,evalFn=better") == {"depth": "3", "evalFn": "better"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-p", "GredyAgent", "-q"],
            "pacman: unknown agent 'GredyAgent'; did you mean GreedyAgent",
        ),
        (
            ["-p", "GreedyAgent", "-g", "DirectionGhost", "-q"],
            "pacman: unknown ghost 'DirectionGhost'; did you mean DirectionalGhost",
        ),
        (
            ["-p", "GreedyAgent", "-l", "smalClassic", "-q"],
            "pacman: unknown layout 'smalClassic' (no such name or file); did you mean smallClassic",
        ),
        (["-n", "0", "-p", "GreedyAgent"], "pacman: -n/--numGames 0: must be at least 1"),
        (
            ["-p", "GreedyAgent", "-a", "depth=2", "-q"],
            "pacman: agent GreedyAgent: got an unexpected keyword argument 'depth'",
        ),
        (
            ["-p", "GreedyAgent", "-a", "=2", "-q"],
            "pacman: -a '=2': '=2' is not of the form key=value",
        ),
        (
            ["-q"],
            "pacman: playing with the keyboard (-p KeyboardAgent, the default) needs a window, ",
        ),
        (
            ["-p", "ExpectiminimaxAgent", "-a", "layers=min,chance", "-q"],
            "pacman: -a 'layers=min,chance': chance has no value; write chance=VALUE (or "
            "layers=min:chance: -a splits on commas)",
        ),
        (
            ["-p", "ExpectimaxAgent", "-a", "ghostModel=sideways", "-q"],
            "pacman: agent ExpectimaxAgent: ghostModel=sideways: unknown ghost model; known: "
            "uniform, directional",
        ),
        (
            ["-p", "ExpectiminimaxAgent", "-a", "layers=min:chance:min", "-k", "2", "-q"],
            "pacman: layers=min,chance,min: 3 entries for 2 ghost(s); give one entry per ghost",
        ),
        (["--numGames", "x"], "pacman: argument -n/--numGames: invalid int value: 'x'"),
        (["--replay", "/nonexistent.json"], "pacman: --replay /nonexistent.json: cannot read"),
    ],
)
def test_user_mistakes_give_one_line_and_exit_2(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert err.startswith(message) and err.count("\n") == 1 and out == ""


def test_an_agent_crash_without_c_is_one_line_and_exit_1(capsys, tmp_path):
    agent_file = tmp_path / "crashy.py"
    agent_file.write_text(
        "from pacman.agent import Agent\nclass Crashy(Agent):\n    def get_action(self, s):\n        raise ValueError('nope')\n"
    )
    code, out, err = run(capsys, "-p", f"{agent_file}:Crashy", "-l", "smallClassic", "-q")
    assert code == 1
    assert (
        err
        == "pacman: Pac-Man (Crashy) crashed on move 1: ValueError: nope at crashy.py:4 (use -c to record crashes and go on)\n"
    )
    code, out, err = run(
        capsys, "-p", f"{agent_file}:Crashy", "-l", "smallClassic", "-q", "-c", "-n", "2"
    )
    assert code == 0 and out.count("crashed on move 1") == 2 and "Win Rate:      0/2" in out


def test_a_cs188_course_folder_agent_is_found_by_name(capsys, tmp_path, monkeypatch):
    (tmp_path / "multiAgents.py").write_text(
        textwrap.dedent(
            """
            from game import Agent, Directions
            from util import manhattanDistance

            class ReflexAgent(Agent):
                def getAction(self, gameState):
                    legal = gameState.getLegalActions()
                    return Directions.STOP if Directions.STOP in legal else legal[0]
            """
        )
    )
    from pacman.loading import SHIMS_DIR

    if not (SHIMS_DIR / "game.py").is_file():
        pytest.skip("the CS188 shims (pacman/shims) are not there yet")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "-p", "ReflexAgent", "-l", "testClassic", "-q", "--max-moves", "3")
    assert code == 0, err
    assert out.splitlines()[0] == "Game stopped after 3 Pac-Man moves. Score: -3"


def test_json_record_and_replay_through_the_cli(capsys, tmp_path):
    out_json, record = tmp_path / "games.jsonl", tmp_path / "game.json"
    code, out, _ = run(capsys, "-p", "RandomAgent", "-l", "smallClassic", "-q", "-n", "2", "--seed", "9",
                       "--json", str(out_json), "--record", str(record))  # fmt: skip
    assert code == 0
    games = [json.loads(line) for line in out_json.read_text().splitlines()]
    assert [g["seed"] for g in games] == [9, 10]
    first = json.loads((tmp_path / "game-1.json").read_text())
    assert first["score"] == games[0]["score"] and len(first["actions"]) == games[0]["moves"]
    code, out, _ = run(capsys, "--replay", str(tmp_path / "game-2.json"), "-q")
    assert code == 0 and out.strip().endswith(f"Score: {games[1]['score']:g}")


def test_jobs_give_the_serial_results(capsys):
    base = ["-p", "RandomAgent", "-l", "mediumClassic", "-q", "-n", "4", "--seed", "3"]
    _, serial, _ = run(capsys, *base)
    _, parallel, _ = run(capsys, *base, "--jobs", "2")
    assert serial == parallel


def test_the_command_loads_its_layout_once_for_every_game(capsys, tmp_path, monkeypatch):
    import pacman.runner

    for name in ("first.lay", "second.lay"):  # the second's name was never loaded (cached)
        (tmp_path / name).write_text("%%%%%%%%\n%P.. .G%\n%%%%%%%%\n")
    flags = ["-p", "GreedyAgent", "-q", "-n", "2", "--seed", "3"]
    _, played, _ = run(capsys, "-l", str(tmp_path / "first.lay"), *flags)

    def again(name: str) -> None:
        raise AssertionError(f"layout {name} loaded again")

    monkeypatch.setattr(pacman.runner, "load_layout", again)
    for jobs in ("1", "2"):
        shown = run(capsys, "-l", str(tmp_path / "second.lay"), *flags, "--jobs", jobs)
        assert shown == (0, played, "")
    assert played.splitlines()[-1] == "Record:        Loss, Loss"


def test_the_command_resolves_each_agent_once_for_every_game(capsys, monkeypatch):
    import pacman.runner

    found = pacman.runner.agent_class
    asked: list[str] = []

    def counted(name: str, role: str, agent_files=()) -> type:
        asked.append(f"{role} {name}")
        return found(name, role, agent_files)

    monkeypatch.setattr(pacman.runner, "agent_class", counted)
    flags = ["-p", "GreedyAgent", "-l", "smallClassic", "-q", "-n", "3", "--seed", "40"]
    code, out, _ = run(capsys, *flags)
    assert (code, out.count("Pacman died!")) == (0, 3)  # as test_closing_lines_are_cs188s
    assert asked == ["agent GreedyAgent", "ghost RandomGhost"]  # not once per game and ghost


def test_python_m_pacman_runs_as_a_program():
    done = subprocess.run(
        [sys.executable, "-m", "pacman", "-p", "GreedyAgnt", "-q"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("pacman: unknown agent 'GreedyAgnt'; did you mean GreedyAgent")
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr


def test_a_course_folder_agent_does_not_shadow_the_packaged_one_elsewhere(tmp_path, monkeypatch):
    from pacman.runner import GameSpec, play

    (tmp_path / "myAgents.py").write_text(
        "from pacman.agent import Agent\n"
        "class GreedyAgent(Agent):\n"
        "    def get_action(self, state):\n"
        "        return 'Stop'\n"
    )
    spec = GameSpec(layout="testClassic", pacman="GreedyAgent", max_moves=2)
    monkeypatch.chdir(tmp_path)
    assert [a for _, a in play(spec).actions[::2]] == ["Stop", "Stop"]
    monkeypatch.undo()
    assert "Stop" not in [a for i, a in play(spec).actions if i == 0]


def test_training_games_are_played_but_not_counted(capsys, tmp_path):
    agent_file = tmp_path / "learner.py"
    agent_file.write_text(
        "from pacman.agent import Agent\n"
        "class Learner(Agent):\n"
        "    def __init__(self, numTraining=0):\n"
        "        super().__init__(0)\n"
        "        self.training, self.games = int(numTraining), 0\n"
        "    def final(self, state):\n"
        "        self.games += 1\n"
        "    def get_action(self, state):\n"
        "        if self.training != 2:\n"
        "            raise ValueError(f'numTraining is {self.training}')\n"
        "        return 'Stop' if self.games < self.training else 'North'\n"
    )
    record = tmp_path / "game.json"
    code, out, err = run(capsys, "-p", f"{agent_file}:Learner", "-l", "testClassic", "-q", "-n", "3",
                         "-x", "2", "--max-moves", "1", "--record", str(record))  # fmt: skip
    assert code == 0, err
    assert out.splitlines() == [
        "Game stopped after 1 Pac-Man moves. Score: -1",
        "Average Score: -1.0",
        "Scores:        -1.0",
        "Win Rate:      0/1 (0.00)",
        "Record:        Loss",
    ]
    # The one reported game is the third: the agent, told it trains for two, walks in it.
    assert json.loads(record.read_text())["actions"][0] == [0, "North"]


def test_agents_that_take_no_num_training_still_play_training_games(capsys):
    code, out, _ = run(capsys, "-p", "GreedyAgent", "-l", "testClassic", "-q", "-n", "2", "-x", "1")
    assert code == 0 and "Win Rate:      1/1" in out


@pytest.mark.parametrize(
    ("content", "byte", "offset"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "0x89", 0),
        ('{"layout": "caf\xe9"}'.encode("latin-1"), "0xe9", 15),
    ],
)
def test_replaying_a_file_that_is_not_text_is_one_line_and_exit_2(tmp_path, content, byte, offset):
    path = tmp_path / "game.json"
    path.write_bytes(content)
    done = run_pacman_without_display("--replay", str(path), "-q")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"pacman: --replay {path}: not a game record (byte {byte} at offset {offset} is not UTF-8 text)\n"
    )


STUDENT_AGENTS = """\
from game import Agent

class Jumper(Agent):
    def getAction(self, gameState):
        return gameState.generateSuccessor(0, "Jump")
"""


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["-p", "MinimaxAgent", "-a", "evalFn=nope"],
            2,
            "agent MinimaxAgent: evalFn=nope: unknown evaluation function; known: "
            "scoreEvaluationFunction, score, betterEvaluationFunction, better (or module.name)",
        ),
        (
            ["-p", "GreedyAgent", "-g", "pacman.ghosts.GhostAgent"],
            1,
            "ghost 1 (GhostAgent) crashed on move 2: GhostAgent defines neither get_distribution "
            "nor getDistribution (use -c to record crashes and go on)",
        ),
        (
            ["-p", "{folder}/multiAgents.py:Jumper"],
            1,
            "Pac-Man (Jumper) crashed on move 1: illegal action 'Jump' for Pac-Man (agent 0) at "
            "(1, 1); legal: Stop, East, North at multiAgents.py:5 (use -c to record crashes and go on)",
        ),
        (
            ["-p", "GreedyAgent", "--frames", "{folder}/multiAgents.py"],
            2,
            "--frames {folder}/multiAgents.py: is a file; give a folder name",
        ),
    ],
)
def test_messages_name_the_users_input_and_code_never_the_engines_insides(
    tmp_path, args, code, message
):
    (tmp_path / "multiAgents.py").write_text(STUDENT_AGENTS)
    args = [arg.format(folder=tmp_path) for arg in args]
    done = run_pacman_without_display(*args, "-l", "testClassic", "-q", "--seed", "1")
    assert (done.returncode, done.stdout) == (code, "")
    assert done.stderr == f"pacman: {message.format(folder=tmp_path)}\n"


def test_a_record_that_does_not_replay_is_one_line_without_internal_names(tmp_path):
    record_path = tmp_path / "game.json"
    done = run_pacman_without_display(
        "-p", "GreedyAgent", "-l", "testClassic", "-q", "--seed", "1", "-r", str(record_path)
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(record_path.read_text())
    record["actions"][3] = [1, "Jump"]  # a ghost move no maze allows
    record_path.write_text(json.dumps(record))
    done = run_pacman_without_display("--replay", str(record_path), "-q")
    assert (done.returncode, done.stdout) == (2, "")
    assert (
        done.stderr.startswith(f"pacman: --replay {record_path}") and done.stderr.count("\n") == 1
    )
    for internal in ("_Replayer", "_RecordEnd", "runner.py", "None"):
        assert internal not in done.stderr


def test_the_autograde_subcommand_names_itself_in_its_help():
    done = run_pacman_without_display("autograde", "--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: pacman autograde ")
    assert "autograder.py" not in done.stdout


SLOW_AGENT = """import time

from game import Agent


class SlowAgent(Agent):
    def getAction(self, state):
        time.sleep(0.4)
        return state.getLegalActions(0)[0]
"""


def test_timeout_without_c_ends_the_run_naming_agent_and_move(tmp_path):
    (tmp_path / "slowAgents.py").write_text(SLOW_AGENT)
    command = [sys.executable, "-m", "pacman", "-p", "SlowAgent", "-q", "-l", "testClassic"]
    command += ["-n", "2", "--timeout", "0.1"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [done.stderr.strip()] and done.stderr.startswith(
        "pacman: Pac-Man (SlowAgent) timed out on move 1: "
    )
    caught = subprocess.run(
        [*command, "-c"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert caught.returncode == 0
    assert caught.stdout.count("timed out on move 1") == 2


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["-p", "AlphaBetaAgent", "-a", "depth=2,depth=3"],
            "pacman: -a 'depth=2,depth=3': depth is given twice; give it once",
        ),
        (
            ["-p", "GreedyAgent", "--gif", "game.png"],
            "pacman: --gif game.png: the file name must end in .gif",
        ),
        (
            ["-p", "GreedyAgent", "-l", "nofood.lay"],
            "pacman: layout nofood.lay: no food '.', so no game on it can be won",
        ),
    ],
)
def test_mistakes_a_new_user_made_are_one_line(tmp_path, args, line):
    (tmp_path / "nofood.lay").write_text("%%%%%%%\n%P   G%\n%%%%%%%\n")
    done = subprocess.run(
        [sys.executable, "-m", "pacman", "-q", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr, done.stdout) == (2, line + "\n", "")
    assert not (tmp_path / "game.png").exists()


def test_a_summary_prefix_that_is_a_folder_is_refused(tmp_path):
    (tmp_path / "subs" / "alice").mkdir(parents=True)
    (tmp_path / "adir").mkdir()
    autograder = Path(__file__).resolve().parents[1] / "autograder.py"
    done = subprocess.run(
        [sys.executable, str(autograder), "--submissions", "subs", "--summary", "adir/"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "autograder: --summary adir/: give a file prefix, not a folder "
        "(--summary adir/grades writes adir/grades.csv and adir/grades.json)\n"
    )
    assert list((tmp_path / "adir").iterdir()) == []
