"""Batches: per-game seeds, parallel equals serial, JSON lines, record and replay."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from pacman.errors import PacmanError
from pacman.game import QuitRequested
from pacman.layout import load_layout
from pacman.records import game_record, json_line, load_record, replay
from pacman.runner import GameSpec, batch, play, run_games

SPEC = GameSpec(layout="smallClassic", pacman="GreedyAgent", seed=40)


def outcomes(results):
    return [(r.seed, r.score, r.win, r.moves, r.actions) for r in results]


def test_game_i_of_a_batch_is_seeded_with_seed_plus_i_and_replays_alone():
    results = list(run_games(batch(SPEC, 4)))
    assert [r.seed for r in results] == [40, 41, 42, 43]
    alone = play(replace(SPEC, seed=42))
    assert outcomes([alone]) == outcomes(results[2:3])
    assert len({tuple(r.actions) for r in results}) == 4


def test_two_worker_processes_give_exactly_the_serial_results():
    specs = batch(replace(SPEC, layout="mediumClassic", pacman="RandomAgent"), 6)
    assert outcomes(run_games(specs, jobs=2)) == outcomes(run_games(specs))


def test_any_executor_can_play_the_games():
    specs = batch(SPEC, 3)
    with ThreadPoolExecutor(2) as pool:
        assert outcomes(run_games(specs, executor=pool)) == outcomes(run_games(specs))


def test_json_lines_hold_one_object_per_game_with_its_index():
    results = list(run_games(batch(SPEC, 2)))
    lines = [json_line(i, r, {"ghost": "RandomGhost"}) for i, r in enumerate(results)]
    assert all(line.endswith("}\n") and line.count("\n") == 1 for line in lines)
    records = [json.loads(line) for line in lines]
    assert [(r["index"], r["seed"]) for r in records] == [(0, 40), (1, 41)]
    assert set(records[0]) >= {
        "seed",
        "layout",
        "pacman",
        "ghosts",
        "score",
        "win",
        "moves",
        "crash",
        "seconds",
    }
    assert records[0]["score"] == results[0].score and records[0]["ghost"] == "RandomGhost"


def test_a_record_replays_move_for_move(tmp_path):
    result = play(replace(SPEC, layout="mediumClassic", pacman="RandomAgent", seed=7))
    record = game_record(result, load_layout("mediumClassic"), 2)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    again = replay(load_record(path))
    assert again.score == result.score and again.moves == result.moves
    assert again.final_state == result.final_state and again.actions == result.actions


def test_a_record_cut_short_by_the_move_limit_replays_too():
    result = play(replace(SPEC, max_moves=5))
    again = replay(game_record(result, load_layout("smallClassic"), 2))
    assert again.truncated and again.pacman_moves == 5 and again.final_state == result.final_state


def test_bad_records_are_refused_with_the_reason(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{\n  oops")
    with pytest.raises(PacmanError, match=r"bad\.json line 2 column 3: not JSON"):
        load_record(path)
    path.write_text("[]")
    with pytest.raises(PacmanError, match="not a game record"):
        load_record(path)
    record = game_record(play(SPEC), load_layout("smallClassic"), 2)
    assert record["actions"][1][0] == 1
    record["actions"][1][1] = "Stop"  # ghosts may never stop
    moves = len(record["actions"])
    with pytest.raises(PacmanError) as refused:
        replay(record)
    # Said in the record's terms: no internal class names or file lines of the replayer.
    assert str(refused.value) == (
        f"does not replay: move 2 of {moves} (ghost 1 Stop) cannot be played: "
        "it is not a legal move there"
    )
    record["actions"][1][0] = 2  # ghost 2 moving in ghost 1's turn
    with pytest.raises(PacmanError, match=r"move 2 of \d+ \(ghost 2 Stop\).*it is ghost 1's turn$"):
        replay(record)


class _StopOnFinalBoard:
    """An observer that is stopped while the final board is up (Ctrl-C, Esc)."""

    def __init__(self, stop: BaseException) -> None:
        self.stop = stop

    def finish(self, state, result) -> None:
        raise self.stop


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), QuitRequested("Esc pressed")])
def test_a_stop_on_the_final_board_keeps_the_game_that_ended(stop):
    from pacman.runner import GameSpec, batch, stream_games

    spec = GameSpec(layout="testClassic", pacman="GreedyAgent", seed=4)
    seen = []
    with pytest.raises(type(stop)):
        for index, result in stream_games(
            batch(spec, 3), observers=[[_StopOnFinalBoard(stop)] for _ in range(3)]
        ):
            seen.append((index, result.score, result.win))
    alone = next(iter(stream_games(batch(spec, 1))))[1]
    assert seen == [(0, alone.score, alone.win)]


def test_observers_are_given_one_sequence_per_game():
    from pacman.runner import GameSpec, batch, stream_games

    spec = GameSpec(layout="testClassic", pacman="GreedyAgent")
    with pytest.raises(ValueError, match="observers for 1 games, but 2 games"):
        next(iter(stream_games(batch(spec, 2), observers=[[]])))
