"""The browser view's server without a browser: its events, its token, its keys, its one-line
answers to a port in use, a closed page and flags that do not go together."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request

import pytest
from short_games import small_game

from pacman import controls
from pacman.cli import main
from pacman.game import QuitRequested
from pacman.view import web
from pacman.view.web import WebDisplay


@pytest.fixture
def display():
    said: list[str] = []
    shown = WebDisplay(frame_time=0.0, agent_name="EastFirst", say=said.append)
    shown.said = said
    yield shown
    shown.close()


def events(url: str, until: str) -> list[tuple[str, dict]]:
    """The server-sent events of ``url`` up to and including the first ``until``."""
    found = []
    with urllib.request.urlopen(url, timeout=30) as stream:
        name = None
        for raw in stream:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                found.append((name, json.loads(line[6:])))
                if name == until:
                    return found
    return found


def address(shown: WebDisplay, path: str, token: str | None = None) -> str:
    return f"http://127.0.0.1:{shown.port}{path}?token={shown.token if token is None else token}"


def test_a_page_is_sent_the_game_move_by_move(display):
    got: list = []
    reader = threading.Thread(
        target=lambda: got.extend(events(address(display, "/events"), until="end"))
    )
    reader.start()
    result = small_game([display], max_moves=3).run()  # waits for the page to connect
    reader.join(30)
    names = [name for name, _ in got]
    assert names == ["game"] + ["frame"] * result.moves + ["end"]
    game = got[0][1]
    assert (game["layout"], game["agent"], len(game["frames"])) == ("smallClassic", "EastFirst", 1)
    assert [data["f"]["m"] for name, data in got if name == "frame"] == [
        action for _, action in result.actions
    ]
    assert got[-1][1] == {"end": "stop"}
    assert got[-2][1]["f"]["s"] == result.score


@pytest.mark.parametrize("token", ["", "wrong"])
def test_a_wrong_or_missing_token_gets_no_game(display, token):
    for path, data in (("/", None), ("/events", None), ("/key", b"down:West")):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(address(display, path, token), data=data, timeout=10)
        assert refused.value.code == 403
        assert b"frames" not in refused.value.read()
    display.pump()
    assert display.take_direction() is None
    page = urllib.request.urlopen(address(display, "/"), timeout=10).read().decode()
    assert display.token in page and '"frames"' not in page


def test_keys_from_the_page_steer_and_pause_as_the_window_s(display):
    assert controls.key_source() is display
    for key in (b"down:West", b"up:West", b"pause", b"faster", b"faster", b"faster"):
        urllib.request.urlopen(address(display, "/key"), data=key, timeout=10)
    assert display.take_direction() == "West"
    assert display.take_direction() is None  # let go
    assert display.paused
    display.frame_time = 0.1
    display._key("faster")
    display._key("slower")
    assert display.frame_time == 0.1
    with pytest.raises(QuitRequested):
        display._key("quit")


def test_a_closed_page_is_told_in_one_line_and_so_is_its_return(display, monkeypatch):
    monkeypatch.setattr(web, "_GRACE", 0.0)
    stream = urllib.request.urlopen(address(display, "/events"), timeout=10)
    with display._changed:
        display._changed.wait_for(lambda: display._watchers == 1, 10)
    assert display._watched() and display.said == []
    stream.close()
    with display._changed:  # the next comment the server writes finds the page gone
        display._changed.wait_for(lambda: display._watchers == 0, 10)
    assert not display._watched() and not display._watched()
    assert display.said == [
        f"pacman: the browser page was closed; the game waits for it at {display.url}"
    ]
    stream = urllib.request.urlopen(address(display, "/events"), timeout=10)
    with display._changed:
        display._changed.wait_for(lambda: display._watchers == 1, 10)
    assert display._watched()
    assert display.said[1:] == ["pacman: a browser page is open again; the game goes on"]
    stream.close()


def test_a_port_in_use_is_one_line_and_exit_2(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["--web", str(port), "-p", "GreedyAgent", "-q"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"pacman: --web {port}: port {port} on 127.0.0.1 is in use; choose another, "
        "or leave it out for a free one\n"
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--no-browser", "-q"], "pacman: --no-browser: only with --web\n"),
        (["--web", "--jobs", "2", "-p", "GreedyAgent"], "pacman: --web shows games as"),
        (["--web", "70000", "-q"], "pacman: --web 70000: a port is 1 to 65535"),
    ],
)
def test_flags_that_do_not_go_with_web_are_one_line(capsys, args, says):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(says) and err.count("\n") == 1
