"""KeyboardAgent: keys to moves, arcade style, with a scripted window and the real one."""

from __future__ import annotations

import os

import pytest

from agents.keyboard import KeyboardAgent
from pacman import controls
from pacman.errors import AgentError
from pacman.layout import parse_layout
from pacman.state import GameState

# Pac-Man at (3, 1): West and East are open, North is a wall; (1, 2) and (2, 2) open above.
MAZE = """
%%%%%%%
%. %  %
%  P .%
%%%%%%%
"""


class ScriptedWindow:
    """Stands in for the pygame window: hands out one scripted key per question."""

    def __init__(self, keys):
        self.keys = list(keys)
        self.idles = 0

    def take_direction(self):
        return self.keys.pop(0) if self.keys else None

    def idle(self, notice=""):
        self.idles += 1
        assert notice == "press an arrow key or WASD to start"


@pytest.fixture
def state() -> GameState:
    return GameState.initial(parse_layout(MAZE, "keys"), 0)


def play(agent: KeyboardAgent, state: GameState, moves: int) -> list[str]:
    played = []
    for _ in range(moves):
        action = agent.get_action(state)
        played.append(action)
        state = state.generate_successor(0, action)
    return played


def test_the_game_waits_for_the_first_key(state):
    window = ScriptedWindow([None, None, None, "West"])
    agent = KeyboardAgent(window=window)
    assert agent.get_action(state) == "West"
    assert window.idles == 3


def test_pacman_keeps_going_and_takes_a_turn_as_soon_as_it_opens(state):
    # West; South (a wall) is remembered while going on West; at the corner it stops; North.
    window = ScriptedWindow(["West", "South", None, "North"])
    agent = KeyboardAgent(window=window)
    assert play(agent, state, 4) == ["West", "West", "Stop", "North"]


def test_a_turn_asked_early_is_taken_at_the_junction(state):
    window = ScriptedWindow(["West", "North"])
    agent = KeyboardAgent(window=window)
    # At (2, 1) North is open at once: the asked-for turn is taken.
    assert play(agent, state, 3) == ["West", "North", "Stop"]


def test_a_held_key_keeps_moving_until_a_wall(state):
    window = ScriptedWindow(["East"] * 4)
    agent = KeyboardAgent(window=window)
    assert play(agent, state, 4) == ["East", "East", "Stop", "Stop"]


def test_the_stop_key_stops_until_the_next_direction(state):
    window = ScriptedWindow(["West", "Stop", None, "East"])
    agent = KeyboardAgent(window=window)
    assert play(agent, state, 4) == ["West", "Stop", "Stop", "East"]


def test_without_a_window_the_agent_says_what_to_do(state, monkeypatch):
    from pacman import controls

    monkeypatch.setattr(controls, "_source", None)
    with pytest.raises(AgentError, match="KeyboardAgent needs the pygame window"):
        KeyboardAgent().get_action(state)


def test_agents_package_finds_the_keyboard_agent():
    import agents

    assert agents.KeyboardAgent is KeyboardAgent


def test_keys_pressed_in_the_real_window_steer_pacman(state):
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    if os.environ["SDL_VIDEODRIVER"] != "dummy":
        pytest.skip("needs SDL's dummy video driver")
    pygame = pytest.importorskip("pygame")
    from pacman.game import Game
    from pacman.view.pygame_view import PygameDisplay

    window = PygameDisplay(frame_time=0.0, hold=0)
    try:
        pygame.event.clear()
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_LEFT))
        result = Game(state, [KeyboardAgent()], observers=[window], max_moves=3).run()
        assert result.actions == [(0, "West"), (0, "West"), (0, "Stop")]
    finally:
        window.close()


def test_direction_keys_a_tap_wins_over_a_held_key_then_the_held_key_resumes():
    keys = controls.DirectionKeys()
    keys.press("North")  # held
    keys.press("West")  # held too, pressed last
    keys.release("West")  # a tap: released before the turn
    assert keys.take() == "West"
    assert keys.take() == "North"  # still held
    keys.release("North")
    assert keys.take() is None
    keys.press("East")
    keys.release_all()  # the window lost focus: no key stays held
    assert [keys.take(), keys.take()] == ["East", None]


def test_speed_keys_halve_and_double_the_frame_time_within_bounds():
    assert controls.faster(0.1) == 0.05
    assert controls.faster(0.015) == 0.0  # below the fastest frame: no animation
    assert controls.slower(0.0) == controls.FASTEST_FRAME
    assert controls.slower(1.5) == controls.SLOWEST_FRAME
