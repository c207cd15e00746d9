"""The turn loop: order, hooks, crashes, time limits, move limits, isolation of states."""

from __future__ import annotations

import contextlib
import time

import pytest

from pacman.agent import Agent
from pacman.errors import AgentCrashed
from pacman.game import Game
from pacman.ghosts import RandomGhost
from pacman.layout import parse_layout
from pacman.state import GameState

CORRIDOR = "%%%%%%%\n%P...G%\n%%%%%%%"


class Script(Agent):
    def __init__(self, *actions: str, index: int = 0) -> None:
        super().__init__(index)
        self.actions = list(actions)

    def get_action(self, state):
        return self.actions.pop(0)


def game(pacman, ghost=None, **options) -> Game:
    state = GameState.initial(parse_layout(CORRIDOR, "corridor"))
    return Game(state, [pacman, ghost or Script(*["West"] * 9, index=1)], **options)


def test_agents_move_in_turn_and_the_game_ends_on_the_losing_move():
    result = game(Script("Stop", "Stop", "Stop", "Stop")).run()
    assert result.actions == [
        (0, "Stop"),
        (1, "West"),
        (0, "Stop"),
        (1, "West"),
        (0, "Stop"),
        (1, "West"),
        (0, "Stop"),
        (1, "West"),
    ]
    assert (
        result.lose and result.score == -4 - 500 and result.moves == 8 and result.pacman_moves == 4
    )


def test_observers_see_every_move_and_both_hook_spellings_are_called():
    calls = []

    class Watcher:
        def initialize(self, state):
            calls.append("initialize")

        def update(self, state, agent_index, action):
            calls.append((agent_index, action))

        def finish(self, state, result):
            calls.append(("finish", result.score))

    class Hooked(Script):
        def registerInitialState(self, gameState):
            calls.append("registerInitialState")

        def final(self, state):
            calls.append("final")

    class SnakeHooked(Script):
        def register_initial_state(self, state):
            calls.append("register_initial_state")

    game(
        Hooked("East", "East", "East", "East"),
        SnakeHooked("West", "West", index=1),
        observers=[Watcher()],
    ).run()
    assert calls == [
        "initialize", "registerInitialState", "register_initial_state",
        (0, "East"), (1, "West"), (0, "East"), (1, "West"), "final", ("finish", -2 + 20 - 500),
    ]  # fmt: skip


def test_a_cs188_style_agent_without_our_base_class_plays():
    class Plain:
        index = 0

        def getAction(self, gameState):
            return gameState.getLegalActions(0)[-1]

    assert game(Plain()).run().actions[0] == (0, "East")


def test_a_crashing_agent_ends_the_game_with_a_message_naming_it():
    class Broken(Agent):
        def get_action(self, state):
            return 1 / 0

    result = game(Broken(), catch_exceptions=True).run()
    assert result.crashed and not result.win and result.moves == 0
    assert result.crash.startswith(
        "Pac-Man (Broken) crashed on move 1: ZeroDivisionError: division by zero at test_game.py:"
    )
    with pytest.raises(AgentCrashed, match=r"Pac-Man \(Broken\) crashed on move 1"):
        game(Broken()).run()


def test_an_agents_own_words_stay_on_one_line_in_its_crash():
    """What an agent's exception says is its own: newlines and a terminal escape are shown
    escaped, so the crash is one line wherever it is printed or kept."""

    class Loud(Agent):
        def get_action(self, state):
            raise ValueError("first\nsecond\x1b[31m")

    result = game(Loud(), catch_exceptions=True).run()
    assert result.crash.startswith(
        "Pac-Man (Loud) crashed on move 1: ValueError: first\\x0asecond\\x1b[31m at test_game.py:"
    )


class ScriptedLink:
    """A remote agent's link to no worker: each move's reply is the next of ``replies``."""

    def __init__(self, *replies: object) -> None:
        self.replies = list(replies)
        self.ops: list[str] = []

    def worker(self):
        return None, False

    def built(self, worker) -> None:
        pass

    def call(self, worker, op, method, **fields):
        self.ops.append(f"{op} {method}")
        return {"action": self.replies.pop(0)} if op == "act" else {}


def test_a_remote_agent_is_named_as_the_student_class_in_the_game_and_its_record():
    from pacman.sandbox.remote import RemoteAgent

    link = ScriptedLink("Stop", 7)
    remote = RemoteAgent(0, "StudentAgent", {}, link)
    result = game(remote, catch_exceptions=True).run()
    assert (remote.display_name, type(remote).__name__) == ("StudentAgent", "RemoteAgent")
    assert (
        result.crash == "Pac-Man (StudentAgent) crashed on move 3: returned 7, not an action name"
    )
    assert (result.to_json()["pacman"], result.to_json()["ghosts"]) == ("StudentAgent", ["Script"])
    assert link.ops == ["game_start registerInitialState", "act getAction", "act getAction"]


def test_an_agent_is_named_as_its_class_unless_it_says_otherwise():
    class Plain:
        index = 0

        def getAction(self, gameState):
            return "Stop"

    renamed = Script("Stop", "Stop")
    renamed.display_name = "Shown"  # an agent of its own may use the name: it still plays
    assert (Script().display_name, renamed.display_name) == ("Script", "Shown")
    assert (game(Plain(), max_moves=1).run().pacman, game(renamed, max_moves=1).run().pacman) == (
        "Plain",
        "Shown",
    )


def test_a_stop_on_the_final_board_comes_back_with_the_game_it_ended():
    from pacman.game import QuitRequested

    class ClosesOnTheEnd:
        def finish(self, state, result):
            raise QuitRequested("the window was closed")

    end = game(Script("Stop", "Stop", "Stop", "Stop"), observers=[ClosesOnTheEnd()]).play()
    assert (str(end.stop), end.result.lose, end.result.moves) == ("the window was closed", True, 8)
    with pytest.raises(QuitRequested, match="the window was closed"):
        game(Script("Stop", "Stop", "Stop", "Stop"), observers=[ClosesOnTheEnd()]).run()
    assert game(Script("Stop", "Stop", "Stop", "Stop")).play().stop is None


def test_an_illegal_move_is_a_crash_that_names_the_legal_moves():
    result = game(Script("East"), Script("East", index=1), catch_exceptions=True).run()
    assert result.crash == (
        "ghost 1 (Script) played an illegal move on move 2: illegal action 'East' for ghost 1 "
        "(agent 1) at (5, 1); legal: West"
    )
    assert result.score == -1 + 10


def test_a_slow_move_is_a_timeout_crash():
    class Slow(Agent):
        def get_action(self, state):
            time.sleep(0.05)
            return "Stop"

    result = game(Slow(), move_timeout=0.01, catch_exceptions=True).run()
    assert result.crashed and "Pac-Man (Slow) timed out on move 1" in result.crash


def test_total_time_per_agent_is_limited_too():
    class Slowish(Agent):
        def get_action(self, state):
            time.sleep(0.02)
            return "Stop"

    result = game(Slowish(), move_timeout=1.0, game_timeout=0.05, catch_exceptions=True).run()
    assert result.crashed and "ran out of time" in result.crash and result.pacman_moves < 4


def test_max_moves_cuts_the_game_after_that_many_pacman_moves():
    result = game(
        Script(*["Stop"] * 9), Script("West", "West", "East", "West", "East", index=1), max_moves=2
    ).run()
    assert result.truncated and result.pacman_moves == 2 and result.moves == 4
    assert not result.win and not result.lose


def test_agents_cannot_change_the_game_through_the_state_they_are_handed():
    class Vandal(Agent):
        def get_action(self, state):
            state._score = 10_000
            state._food = 0
            return "East"

    result = game(Vandal(), Script("West", "West", index=1)).run()
    assert result.score == -2 + 20 - 500


def test_a_game_with_random_ghosts_is_a_function_of_its_seed():
    import random

    def play(seed: int) -> list:
        layout = parse_layout("%%%%%%%%\n%P....G%\n%.%%%%.%\n%......%\n%%%%%%%%")
        rng = random.Random(seed)
        pacman = RandomGhost(0, rng)  # a random walker for Pac-Man too
        state = GameState.initial(layout)
        return Game(state, [pacman, RandomGhost(1, rng)], max_moves=50).run().actions

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_a_move_that_never_returns_is_interrupted_and_cannot_swallow_the_interrupt():
    class Stuck(Agent):
        def get_action(self, state):
            while True:
                with contextlib.suppress(Exception):  # an agent that tries to swallow the interrupt
                    time.sleep(1)

    result = game(Stuck(), move_timeout=0.1, catch_exceptions=True).run()
    assert result.crashed and result.crash.startswith("Pac-Man (Stuck) timed out on move 1: 0.1")


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        (
            {"move_timeout": float("nan")},
            "move_timeout must be a finite number of seconds, 0 or more, not nan",
        ),
        (
            {"game_timeout": float("inf")},
            "game_timeout must be a finite number of seconds, 0 or more, not inf",
        ),
        (
            {"move_timeout": -1.0},
            "move_timeout must be a finite number of seconds, 0 or more, not -1.0",
        ),
        ({"max_moves": 0}, "max_moves must be at least 1 (None: no limit), not 0"),
    ],
)
def test_limits_no_game_can_keep_are_refused_by_name(limits, message):
    """A NaN timeout once reached the timer and ended the game as the agent's crash; a game of
    at most 0 moves was played as one that ran out of moves."""
    from pacman.errors import PacmanError

    with pytest.raises(PacmanError) as refused:
        game(Script("West"), **limits)
    assert str(refused.value) == message
