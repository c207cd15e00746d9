"""HTML replays: the page's data is the game move for move, from a game or from a record."""

from __future__ import annotations

import json

from test_marks import Painter, play
from test_searchtree import NETWORK

from pacman.cli import main
from pacman.ghosts import RandomGhost
from pacman.layout import load_layout
from pacman.state import GameState
from pacman.view.html import embedded_data
from pacman.view.html_replay import HtmlReplay


class Positions:
    """Every agent's (x, y, facing, scared timer) and the score after each move."""

    def __init__(self) -> None:
        self.frames: list = []

    def _add(self, state) -> None:
        agents = [state.get_pacman_state(), *state.get_ghost_states()]
        self.frames.append(
            (
                [[*a.get_position(), a.get_direction(), a.scared_timer] for a in agents],
                state.get_score(),
            )
        )

    def initialize(self, state) -> None:
        self._add(state)

    def update(self, state, agent_index, action) -> None:
        self._add(state)


def test_the_page_holds_every_move_and_the_marks(tmp_path):
    out = tmp_path / "game.html"
    state = GameState.initial(load_layout("minimaxClassic"), 2)
    watch = Positions()
    recorder = HtmlReplay(out, agent_name="Painter")
    result = play(
        state,
        [Painter(), RandomGhost(1), RandomGhost(2)],
        observers=[recorder, watch],
        seed=4,
        max_moves=6,
    )
    page = out.read_text(encoding="utf-8")
    data = embedded_data(page, "replay-data")
    frames = data["frames"]
    assert len(frames) == result.moves + 1 == len(watch.frames)
    assert [(f["p"], f["s"]) for f in frames] == watch.frames
    assert [(f["a"], f["m"]) for f in frames[1:]] == result.actions
    eaten = [cell for f in frames for cell in f.get("e", [])]
    final_food = {tuple(c) for c in result.final_state.get_food_positions()}
    assert {tuple(c) for c in data["food"]} - {tuple(c) for c in eaten} == final_food
    # Painter marks its own cell in blue each move: the notes say so, frame by frame.
    marked = [data["notes"][f["n"]]["marks"] for f in frames if "n" in f]
    start = list(state.get_pacman_position())
    assert marked[0] == [[*start, "#0000ff"]]
    assert data["walls"][0] == "%" * state.layout.width
    assert (data["end"], result.moves, recorder.written) == ("lose", len(frames) - 1, [out])
    assert not NETWORK.search(page)


def test_html_from_a_game_and_from_its_record_agree(tmp_path, capsys):
    live, record, again = tmp_path / "live.html", tmp_path / "game.json", tmp_path / "again.html"
    assert main(["-p", "GreedyAgent", "-l", "smallClassic", "-k", "2", "-q", "--seed", "5",
                 "--html", str(live), "--record", str(record)]) == 0  # fmt: skip
    assert main(["--replay", str(record), "-q", "--html", str(again)]) == 0
    first = embedded_data(live.read_text(), "replay-data")
    second = embedded_data(again.read_text(), "replay-data")
    assert first["frames"] == second["frames"]
    moves = len(json.loads(record.read_text())["actions"])
    assert len(first["frames"]) == moves + 1
    capsys.readouterr()


def test_several_games_get_numbered_pages_and_jobs_are_refused(tmp_path, capsys):
    out = tmp_path / "g.html"
    assert main(["-p", "GreedyAgent", "-l", "minimaxClassic", "-q", "-n", "2", "--seed", "1",
                 "--html", str(out)]) == 0  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g-1.html", "g-2.html"]
    capsys.readouterr()
    assert main(["-p", "GreedyAgent", "-q", "-n", "2", "--jobs", "2", "--html", str(out)]) == 2
    assert capsys.readouterr().err == (
        "pacman: --gif/--frames/--html record games one at a time: leave out --jobs/--scheduler\n"
    )


def test_a_record_keeps_marks_and_searches_for_its_replays(tmp_path, capsys):
    live, record, again = tmp_path / "live.html", tmp_path / "game.json", tmp_path / "again.html"
    agent = "examples/marking_agent.py:MarkingAgent"
    assert main(["-p", agent, "-a", "depth=1", "-l", "minimaxClassic", "-k", "2", "-q",
                 "--seed", "2", "--html", str(live), "--record", str(record)]) == 0  # fmt: skip
    assert main(["--replay", str(record), "-q", "--html", str(again)]) == 0
    capsys.readouterr()
    first = embedded_data(live.read_text(), "replay-data")
    second = embedded_data(again.read_text(), "replay-data")
    assert first["notes"] and (first["frames"], first["notes"]) == (
        second["frames"],
        second["notes"],
    )
    kept = json.loads(record.read_text())["notes"]
    assert [move for move, _ in kept] == [i for i, f in enumerate(first["frames"]) if "n" in f]
    assert kept[0][1]["search"]["pv"][0] == kept[0][1]["search"]["action"]


def test_a_record_of_an_agent_that_neither_draws_nor_searches_has_no_notes(tmp_path, capsys):
    record = tmp_path / "game.json"
    assert main(["-p", "GreedyAgent", "-l", "minimaxClassic", "-q", "--seed", "2",
                 "--record", str(record)]) == 0  # fmt: skip
    capsys.readouterr()
    assert "notes" not in json.loads(record.read_text())


def test_frames_of_a_replayed_record_show_its_marks(tmp_path, capsys):
    import pytest

    pygame = pytest.importorskip("pygame")
    draw = pytest.importorskip("pacman.view.draw")
    from pacman.records import load_record, replay
    from pacman.view.frames import FrameRecorder

    record = tmp_path / "game.json"
    assert main(["-p", "examples/marking_agent.py:MarkingAgent", "-a", "depth=1", "-l",
                 "minimaxClassic", "-k", "2", "-q", "--seed", "2", "--max-moves", "2",
                 "--record", str(record)]) == 0  # fmt: skip
    capsys.readouterr()
    data = load_record(record)
    recorder = FrameRecorder(frames_dir=tmp_path / "frames", values=True)
    replay(data, [recorder])
    move, notes = data["notes"][0]
    x, y, color = notes["marks"][0]
    frame = pygame.image.load(str(recorder.written[move - 1]))
    geometry = draw.fit(frame.get_size(), load_layout("minimaxClassic"))
    cx, cy = geometry.center(x, y)
    corner = (cx - geometry.cell // 2, cy - geometry.cell // 2)
    assert "#{:02x}{:02x}{:02x}".format(*tuple(frame.get_at(corner))[:3]) == color


def test_a_record_with_malformed_notes_still_replays(tmp_path, capsys):
    record = tmp_path / "game.json"
    assert main(["-p", "examples/marking_agent.py:MarkingAgent", "-a", "depth=1", "-l",
                 "minimaxClassic", "-k", "2", "-q", "--seed", "2", "--max-moves", "3",
                 "--record", str(record)]) == 0  # fmt: skip
    data = json.loads(record.read_text())
    data["notes"][0] = ["x", 5]
    data["notes"][1][1]["search"] = {"values": {"West": "abc"}, "pv": 7}
    data["notes"].append([2, {"marks": [[1, 2], None, "zz"]}])
    record.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["--replay", str(record), "-q", "--html", str(tmp_path / "r.html")]) == 0
    assert capsys.readouterr().err == ""
