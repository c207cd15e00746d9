"""Every rule of RULES.md, each on a tiny inline layout."""

from __future__ import annotations

import pytest

from pacman.errors import IllegalActionError
from pacman.layout import parse_layout
from pacman.state import GameState


def start(text: str, num_ghosts: int | None = None) -> GameState:
    return GameState.initial(parse_layout(text, "inline"), num_ghosts)


def play(state: GameState, *moves: tuple[int, str]) -> GameState:
    for agent, action in moves:
        state = state.generate_successor(agent, action)
    return state


CROSS = """
%%%%%
%%.%%
%.P.%
%%.%%
%%%%%
"""


def test_coordinates_grow_upward_and_right():
    state = start("%%%%%\n%P .%\n%  G%\n%%%%%")
    assert state.get_pacman_position() == (1, 2)
    assert state.get_ghost_position(1) == (3, 1)
    assert state.has_food(3, 2) and not state.has_food(3, 1)
    assert state.has_wall(0, 0) and not state.has_wall(2, 1)


def test_legal_actions_follow_west_stop_east_north_south():
    assert start(CROSS).get_legal_actions(0) == ["West", "Stop", "East", "North", "South"]
    assert start("%%%%\n%P %\n%%%%").get_legal_actions() == ["Stop", "East"]


def test_agents_are_pacman_then_ghosts_by_key_x_y():
    state = start("%%%%%%%\n%2P1G %\n%%%%%%%")
    assert state.get_ghost_positions() == [(3, 1), (4, 1), (1, 1)]
    # Fewer ghosts requested than the layout has: the first ones in that order play.
    assert start("%%%%%%%\n%2P1G %\n%%%%%%%", num_ghosts=2).get_ghost_positions() == [
        (3, 1),
        (4, 1),
    ]


def test_every_pacman_move_costs_one_stop_included_and_ghost_moves_are_free():
    state = start("%%%%%%\n%P  G%\n%%%%%%")
    after_stop = state.generate_successor(0, "Stop")
    assert after_stop.get_score() == -1.0
    assert isinstance(after_stop.get_score(), float)
    assert after_stop.generate_successor(1, "West").get_score() == -1.0


def test_food_scores_ten_and_the_last_food_wins_with_500():
    state = play(start("%%%%%\n%P..%\n%%%%%"), (0, "East"))
    assert state.get_score() == 9 and state.get_num_food() == 1 and not state.is_win()
    state = play(state, (0, "East"))
    assert state.get_score() == 9 - 1 + 10 + 500
    assert state.is_win() and not state.is_lose()


def test_finished_games_have_no_legal_actions_and_no_successors():
    won = play(start("%%%%\n%P.%\n%%%%"), (0, "East"))
    assert won.is_win()
    assert won.get_legal_actions(0) == [] and won.get_legal_actions() == []
    with pytest.raises(IllegalActionError, match="already won"):
        won.generate_successor(0, "West")


def test_illegal_actions_are_refused_with_the_legal_ones_named():
    state = start("%%%%\n%P %\n%%%%")
    with pytest.raises(
        IllegalActionError, match=r"illegal action 'North' for Pac-Man.*legal: Stop, East"
    ):
        state.generate_successor(0, "North")
    with pytest.raises(IllegalActionError, match="no agent 3"):
        state.generate_successor(3, "East")


def test_touching_an_unscared_ghost_loses_500_after_either_agent_moves():
    state = start("%%%%%%\n%P  G%\n%%%%%%")
    pacman_walks_in = play(state, (0, "East"), (1, "West"), (0, "East"))
    assert pacman_walks_in.is_lose()
    assert pacman_walks_in.get_score() == -1 - 1 - 500
    ghost_walks_in = play(
        state, (0, "Stop"), (1, "West"), (0, "Stop"), (1, "West"), (0, "Stop"), (1, "West")
    )
    assert ghost_walks_in.is_lose() and ghost_walks_in.get_score() == -3 - 500


def test_eating_the_last_food_onto_a_ghost_wins_without_penalty():
    state = play(start("%%%%%\n%P.G%\n%%%%%"), (0, "Stop"), (1, "West"), (0, "East"))
    assert state.is_win() and not state.is_lose()
    assert state.get_score() == -1 - 1 + 10 + 500


def test_touching_two_unscared_ghosts_at_once_costs_500_twice():
    # Both ghosts end up in the cell east of Pac-Man, which then steps onto them.
    text = "%%%%%%\n%%%%.%\n%P  G%\n%%%G%%\n%%%%%%"
    state = play(
        start(text),
        (0, "Stop"),
        (1, "North"),  # ghost 1 (3,1) -> (3,2)
        (2, "West"),  # ghost 2 (4,2) -> (3,2)
        (0, "Stop"),
        (1, "West"),  # -> (2,2)
        (2, "West"),  # -> (2,2)
    )
    assert state.get_ghost_positions() == [(2, 2), (2, 2)]
    lost = state.generate_successor(0, "East")
    assert lost.is_lose()
    assert lost.get_score() - state.get_score() == -1 - 500 - 500


def test_ghosts_may_not_stop_and_may_not_reverse_unless_it_is_their_only_move():
    state = start("%%%%%%%\n%.G  P%\n%%%%%%%")
    # First move: facing Stop, so no reverse rule.
    assert state.get_legal_actions(1) == ["West", "East"]
    west = state.generate_successor(1, "West")
    assert west.get_ghost_state(1).get_direction() == "West"
    # Dead end: reversing is the only move, so it is allowed.
    assert west.get_legal_actions(1) == ["East"]
    east = play(west, (0, "Stop"), (1, "East"), (0, "Stop"))
    # In the corridor heading East, West would be a reverse.
    assert east.get_legal_actions(1) == ["East"]
    assert "Stop" not in start(CROSS.replace("%.P", "%GP")).get_legal_actions(1)


def test_pacman_stopping_keeps_facing_its_last_direction():
    state = play(start("%%%%%\n%P .%\n%%%%%"), (0, "East"), (0, "Stop"))
    assert state.get_pacman_state().get_direction() == "East"
    assert start("%%%%\n%P.%\n%%%%").get_pacman_state().get_direction() == "Stop"


CAPSULE = "%%%%%%%%\n%Po   G%\n%%%%%%%%"


def test_a_capsule_scores_nothing_and_scares_every_ghost_for_40_moves():
    state = play(start(CAPSULE), (0, "East"))
    assert state.get_score() == -1
    assert state.get_capsules() == []
    assert [ghost.scared_timer for ghost in state.get_ghost_states()] == [40]
    assert state.get_scared_timers() == [40]


def test_scared_ghosts_move_half_speed_and_only_go_on_between_cells():
    state = play(start(CAPSULE), (0, "East"), (1, "West"))
    ghost = state.get_ghost_state(1)
    assert ghost.get_position() == (5.5, 1) and ghost.scaredTimer == 39
    assert state.get_legal_actions(1) == ["West"]
    state = play(state, (0, "Stop"), (1, "West"))
    assert state.get_ghost_position(1) == (5, 1)
    assert state.get_ghost_state(1).scared_timer == 38


def test_touching_a_scared_ghost_half_a_cell_away_eats_it_for_200():
    state = play(start(CAPSULE), (0, "East"), (1, "West"), (0, "East"), (1, "West"))
    for _ in range(3):
        state = play(state, (0, "Stop"), (1, "West"))
    # The ghost has reached x = 3.5, half a cell from Pac-Man at x = 3: eaten.
    ghost = state.get_ghost_state(1)
    assert ghost.get_position() == (6, 1)
    assert ghost.get_direction() == "Stop" and ghost.scared_timer == 0
    assert state.get_score() == -5 + 200
    assert not state.is_lose()


def test_pacman_eating_a_capsule_on_a_ghost_eats_the_ghost():
    state = start("%%%%%%\n%Po G%\n%%%%%%")
    state = play(state, (0, "Stop"), (1, "West"), (0, "Stop"), (1, "West"))
    assert state.get_ghost_position(1) == (2, 1)
    eaten = state.generate_successor(0, "East")
    assert eaten.get_score() == -3 + 200 and eaten.get_ghost_position(1) == (4, 1)


def test_the_scared_timer_ends_by_snapping_to_int_x_plus_half():
    # Second capsule eaten while the ghost is between cells: 40 half-steps later it is
    # between cells again and snaps to int(x + 0.5).
    state = play(start("%%%%%%%%\n%Poo%G %\n%%%%%%%%"), (0, "East"), (1, "East"), (0, "East"))
    assert state.get_ghost_state(1).get_position() == (5.5, 1)
    assert state.get_ghost_state(1).scared_timer == 40
    positions = []
    for _ in range(40):
        (action,) = state.get_legal_actions(1)
        state = play(state, (1, action), (0, "Stop"))
        positions.append(state.get_ghost_position(1)[0])
    assert positions[:8] == [6.0, 5.5, 5.0, 5.5, 6.0, 5.5, 5.0, 5.5]
    assert positions[-1] == 6 and state.get_ghost_state(1).scared_timer == 0
    assert state.get_legal_actions(1) == ["West"]
    assert state.generate_successor(1, "West").get_ghost_position(1) == (5, 1)


def test_equal_states_by_different_paths_are_equal_and_hash_alike():
    state = start("%%%%%\n%   %\n% P %\n%  .%\n%%%%%")
    a = play(state, (0, "West"), (0, "North"), (0, "East"), (0, "East"))
    b = play(state, (0, "North"), (0, "West"), (0, "East"), (0, "East"))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    # A third path to the same cell, score and facing: equal as well.
    c = play(state, (0, "North"), (0, "East"), (0, "West"), (0, "East"))
    assert c.get_pacman_position() == a.get_pacman_position() and c.get_score() == a.get_score()
    assert c == a
    # Same cell and score but facing North: different, since directions count.
    d = play(state, (0, "East"), (0, "North"), (0, "Stop"), (0, "Stop"))
    assert d.get_pacman_position() == a.get_pacman_position() and d.get_score() == a.get_score()
    assert d != a and d.get_pacman_state().get_direction() == "North"
    assert a != play(state, (0, "North"), (0, "East"), (0, "Stop"), (0, "Stop"), (0, "Stop"))


def test_states_cannot_be_changed_through_what_they_hand_out():
    state = start("%%%%%\n%P..%\n%%%%%")
    food = state.get_food()
    with pytest.raises(TypeError):
        food[2] = [True, True, True]
    with pytest.raises(TypeError):
        food[2][1] = False
    copy = food.copy()
    copy[2][1] = False
    assert state.has_food(2, 1)
    state.get_capsules().append((1, 1))
    state.get_legal_actions().clear()
    ghost_free = state.get_pacman_state()
    ghost_free.scaredTimer = 7
    assert state.get_capsules() == [] and state.get_legal_actions() == ["Stop", "East"]
    assert state.get_pacman_state().scared_timer == 0


def test_food_grid_and_counts_match_cs188_grid():
    state = start("%%%%%\n%P.o%\n%. .%\n%%%%%")
    food = state.get_food()
    assert (food.width, food.height) == (5, 4)
    assert food.as_list() == food.asList() == [(1, 1), (2, 2), (3, 1)]
    assert food.count() == 3 == state.get_num_food()
    assert food[2][2] is True and food[3][2] is False
    assert state.get_food_positions() == [(1, 1), (2, 2), (3, 1)]
    assert state.get_capsules() == [(3, 2)]


def test_food_grids_follow_the_food_eaten_and_share_unchanged_columns():
    first = start("%%%%%%\n%P...%\n%.%..%\n%%%%%%")
    later = play(first, (0, "East"), (0, "East"))  # eats (2, 2) and (3, 2)
    for state in (first, later):
        food = state.get_food()
        cells = [(x, y) for x in range(food.width) for y in range(food.height) if food[x][y]]
        assert cells == state.get_food_positions() == food.as_list() == food.asList()
        empty = [(x, y) for x in range(food.width) for y in range(food.height) if not food[x][y]]
        assert food.as_list(False) == food.asList(False) == empty
        assert food.copy().as_list() == cells  # a mutable copy lists the same cells
    assert first.get_food().count() - 2 == later.get_food().count() == 4
    # Columns 1 and 4 held the same food in both states: one column each, built once.
    assert later.get_food()[1] is first.get_food()[1]
    assert later.get_food()[4] is first.get_food()[4]
    assert later.get_food()[2] != first.get_food()[2]


def test_positions_on_grid_points_are_ints_even_for_scared_ghosts():
    state = play(start(CAPSULE), (0, "East"), (1, "West"))
    assert repr(state.get_ghost_position(1)) == "(5.5, 1)"
    state = play(state, (0, "Stop"), (1, "West"))
    assert repr(state.get_ghost_position(1)) == "(5, 1)"
    assert repr(state.get_ghost_state(1).configuration) == "(x,y)=(5, 1), West"
    # A ghost walled in beside Pac-Man, scared for 40 half-steps and then at full speed.
    state = play(start("%%%%%%%%\n%Po%%G %\n%%%%%%%%"), (0, "East"))
    kinds = []
    for _ in range(44):
        (action,) = state.get_legal_actions(1)
        state = play(state, (1, action), (0, "Stop"))
        x, y = state.get_ghost_position(1)
        kinds.append((type(x), type(y)))
        assert type(x) is (int if x == int(x) else float) and type(y) is int
    assert kinds[:2] == [(float, int), (int, int)]
