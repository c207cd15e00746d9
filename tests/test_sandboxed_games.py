"""Ordinary games with agents in the grader's sandbox (``--isolation sandbox``).

An honest agent plays exactly the games it plays in-process (same seeds, same moves,
same scores, serially and with ``jobs=2``); a cheater that walks up the call stack to
the game's own state, which in-process ends a game with a six-figure score, changes
nothing; an agent that switches the audit hook off and then writes files, kills its
parent and the game's process, and forks, gets nowhere, and its games are those of the
honest agent it plays like.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from grading_attacks import HOOK_OFF
from grading_submissions import HONEST

from pacman.runner import GameSpec, batch, run_games
from pacman.sandbox import games
from pacman.sandbox.isolation import probe

REPO = Path(__file__).resolve().parents[1]
#: The ghosts' secret: with the same one, a sandboxed run plays the in-process games
#: (without one it draws a fresh secret: see test_seeding.py).
SECRET = "sandboxed-games-test"

needs_linux = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the sandbox's walls are Linux's"
)

#: Plays the first legal action; ``Cheater`` first adds 100000 to the score of any game
#: state it finds up the call stack.
PLAIN = """
import sys

from game import Agent


class FirstLegal(Agent):
    def getAction(self, gameState):
        return gameState.getLegalActions(self.index)[0]


class Cheater(FirstLegal):
    def getAction(self, gameState):
        frame = sys._getframe(1)
        while frame is not None:
            for value in list(frame.f_locals.values()):
                if type(value).__name__ == "GameState" and value is not gameState:
                    try:
                        value._score += 100000
                    except Exception:
                        pass
            frame = frame.f_back
        return FirstLegal.getAction(self, gameState)
"""

#: Each attack prints ``ATTACK name: blocked (...)`` or ``ATTACK name: SUCCEEDED``.
ATTACKER = (
    HOOK_OFF
    + """
import signal as _signal

from game import Agent


def _fork_and_write():
    pid = _os.fork()
    if pid == 0:
        with open("@DROP@.forked", "w") as handle:
            handle.write("escaped")
        _os._exit(0)
    _os.waitpid(pid, 0)


def _kill_parent():
    if _os.getppid() in (0, 1):
        raise PermissionError("the parent is outside this PID namespace")
    _os.kill(_os.getppid(), _signal.SIGKILL)


class Attacker(Agent):
    def __init__(self, index=0, grader="0"):
        super().__init__(index)
        self.grader = int(grader)

    def registerInitialState(self, gameState):
        hook_off_by_code()
        attack("write-file", lambda: open("@DROP@", "w").write("escaped"))
        attack("kill-game", lambda: _os.kill(self.grader, _signal.SIGKILL))
        attack("kill-parent", _kill_parent)
        attack("fork", _fork_and_write)

    def getAction(self, gameState):
        return gameState.getLegalActions(self.index)[0]
"""
)


def _games(results):
    return [(r.score, r.win, r.lose, r.moves, r.actions, r.crash) for r in results]


@pytest.fixture
def arena():
    base = Path(tempfile.mkdtemp(prefix="pacman-sandboxed-test-"))
    base.chmod(0o777)  # writable by anyone: only the sandbox may stop an agent here
    yield base
    games.close_all()
    shutil.rmtree(base, ignore_errors=True)


@needs_linux
def test_honest_games_in_the_sandbox_equal_in_process_play(tmp_path, monkeypatch):
    """A CS188 ReflexAgent (random tie-breaks from Python's random) and an expectimax
    agent against random ghosts: the same games move for move, serially and in parallel;
    every run's workers and files are gone when it ends."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setenv("TMPDIR", str(scratch))
    for agent, args in (("ReflexAgent", {}), ("ExpectimaxAgent", {"depth": "1"})):
        spec = GameSpec(
            layout="smallClassic",
            pacman=f"{HONEST}:{agent}",
            pacman_args=args,
            ghost="RandomGhost",
            num_ghosts=2,
            seed=11,
            max_moves=60,
            secret=SECRET,
        )
        expected = _games(run_games(batch(spec, 3)))
        sandboxed = GameSpec(**{**spec.__dict__, "isolation": "sandbox"})
        assert _games(run_games(batch(sandboxed, 3))) == expected, agent
        if agent == "ReflexAgent":
            assert _games(run_games(batch(sandboxed, 3), jobs=2)) == expected
    assert [r.pacman for r in run_games(batch(sandboxed, 1))] == ["ExpectimaxAgent"]
    assert list(scratch.iterdir()) == []  # no worker root, stage or scratch folder left


@needs_linux
def test_a_stack_walking_cheater_changes_nothing_in_the_sandbox(arena):
    agents = arena / "plainAgents.py"
    agents.write_text(PLAIN)
    spec = GameSpec(
        layout="smallClassic",
        pacman=f"{agents}:Cheater",
        ghost="RandomGhost",
        num_ghosts=2,
        seed=4,
        catch_exceptions=True,
        secret=SECRET,
    )
    (in_process,) = run_games([spec])
    assert in_process.score > 100_000  # what the sandbox is for
    honest = list(run_games([GameSpec(**{**spec.__dict__, "pacman": f"{agents}:FirstLegal"})]))
    sandboxed = list(run_games([GameSpec(**{**spec.__dict__, "isolation": "sandbox"})]))
    assert _games(sandboxed) == _games(honest)
    assert sandboxed[0].score < 1000 and sandboxed[0].pacman == "Cheater"


@needs_linux
@pytest.mark.skipif(os.geteuid() != 0 and not probe("namespaces"), reason="needs root")
def test_an_attacker_gets_nowhere_and_plays_as_the_honest_agent(arena):
    """The attacks run with the audit hook switched off, so the kernel's walls decide."""
    drop = arena / "escaped.txt"
    agents = arena / "attackAgents.py"
    agents.write_text(ATTACKER.replace("@DROP@", str(drop)) + PLAIN)
    script = f"""
import json, os
from pacman.runner import GameSpec, batch, run_games
spec = GameSpec(layout="smallClassic", pacman={str(agents) + ":Attacker"!r},
                pacman_args={{"grader": str(os.getpid())}}, ghost="RandomGhost", num_ghosts=2,
                seed=7, max_moves=40, isolation="sandbox", secret={SECRET!r})
results = list(run_games(batch(spec, 2)))
print(json.dumps([[r.score, r.win, r.lose, r.moves, r.actions, r.crash] for r in results]))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=arena
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("ATTACK ")]
    assert len(lines) == 8, done.stderr  # four attacks in each of two games
    assert all(": blocked (" in line for line in lines), lines
    assert not drop.exists() and not Path(f"{drop}.forked").exists()
    honest = GameSpec(
        layout="smallClassic",
        pacman=f"{agents}:FirstLegal",
        ghost="RandomGhost",
        num_ghosts=2,
        seed=7,
        max_moves=40,
        secret=SECRET,
    )
    expected = [
        [s, w, lo, m, [list(a) for a in acts], c]
        for s, w, lo, m, acts, c in _games(run_games(batch(honest, 2)))
    ]
    assert json.loads(done.stdout) == expected


@needs_linux
def test_the_command_reads_a_sandboxed_agent_s_file_once_for_every_game(arena, monkeypatch, capsys):
    from pacman.cli import main

    (arena / "myAgents.py").write_text(PLAIN)
    monkeypatch.chdir(arena)
    found, asked = games.untrusted_agent, []

    def counted(name, role, agent_files=()):
        asked.append(f"{role} {name}")
        return found(name, role, agent_files)

    monkeypatch.setattr(games, "untrusted_agent", counted)
    flags = ["-p", "FirstLegal", "-l", "smallClassic", "-q", "-n", "2", "--seed", "3", "-k", "1"]
    assert main([*flags, "--isolation", "sandbox", "--game-secret", SECRET]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "Record:        Loss, Loss"
    assert asked == ["agent FirstLegal", "ghost RandomGhost"]  # not once per game and ghost


@needs_linux
def test_the_command_line_plays_agent_files_in_the_sandbox(arena):
    """``pacman --isolation sandbox`` never imports the agent's file in its own process: a
    file that would end that process at import plays from its worker, as a plain one plays."""
    trapped, plain = arena / "trapped", arena / "plain"
    for folder, head in (
        (
            trapped,
            "import os\nif os.environ.get('PACMAN_TEST') == str(os.getpid()):\n    os._exit(9)\n",
        ),
        (plain, ""),
    ):
        folder.mkdir()
        (folder / "myAgents.py").write_text(head + PLAIN)
    script = (
        "import os, sys; os.environ['PACMAN_TEST'] = str(os.getpid()); "
        "from pacman.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    flags = ["-p", "FirstLegal", "-l", "smallClassic", "-q", "-n", "2", "--seed", "3", "-k", "1"]
    flags += ["--game-secret", SECRET]

    def play(folder: Path, isolation: str) -> tuple[int, str]:
        command = [sys.executable, "-c", script, *flags, "--isolation", isolation]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=folder)
        return done.returncode, done.stdout

    assert play(trapped, "none") == (9, "")  # in-process, importing the file ends the game
    code, shown = play(trapped, "sandbox")
    assert (code, shown) == play(plain, "none")
    assert shown.splitlines()[-1] == "Record:        Loss, Loss"
