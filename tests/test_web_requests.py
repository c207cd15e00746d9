"""The browser view's server against clients that are not its page: raw requests with bad
lengths, no token, another Host, idle connections; and the browser opened on a private file.

Every answer is an exact status, and nothing any of these clients sends reaches the terminal.
"""

from __future__ import annotations

import os
import socket
import stat
import time
import webbrowser
from pathlib import Path

import pytest

from pacman.view import web
from pacman.view.web import WebDisplay


@pytest.fixture
def display():
    said: list[str] = []
    shown = WebDisplay(frame_time=0.0, say=said.append)
    yield shown
    shown.close()
    assert said == []


def connect(shown: WebDisplay) -> socket.socket:
    client = socket.create_connection(("127.0.0.1", shown.port), timeout=30)
    return client


def answer(client: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    got = b""
    while chunk := client.recv(65536):
        got += chunk
    return got


def status(shown: WebDisplay, request: bytes) -> int:
    """The status the server answers ``request`` with; the client never closes its side, so a
    server that waited for more body than was sent would fail the test by its timeout."""
    with connect(shown) as client:
        client.sendall(request)
        reply = answer(client)
    return int(reply.split(b" ", 2)[1])


def post(shown: WebDisplay, length: str, token: str | None = None, host: str | None = None):
    token = shown.token if token is None else token
    host = f"127.0.0.1:{shown.port}" if host is None else host
    return (
        f"POST /key?token={token} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {length}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()


def get(shown: WebDisplay, host: str, token: str | None = None) -> bytes:
    token = shown.token if token is None else token
    return f"GET /?token={token} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()


@pytest.mark.parametrize(
    ("length", "token", "expected"),
    [
        ("-1", "", 403),  # without the token: refused before any body is read
        ("-1", None, 400),
        ("100000000000000000000", None, 400),
        ("65", None, 400),
        ("abc", None, 400),
        ("abc", "", 403),
        ("٣", None, 400),  # a digit, but not an ASCII one
        ("1, 1", None, 400),
        ("0", "wrong", 403),
        ("0", None, 204),
    ],
)
def test_a_post_s_length_is_bounded_and_checked_after_the_token(
    display, capfd, length, token, expected
):
    assert status(display, post(display, length, token)) == expected
    display.pump()
    assert display.take_direction() is None
    assert capfd.readouterr() == ("", "")


def test_a_key_of_the_allowed_length_is_taken(display, capfd):
    with connect(display) as client:
        client.sendall(post(display, "9") + b"down:West")
        assert client.recv(65536).startswith(b"HTTP/1.1 204 ")
    assert display.take_direction() == "West"
    assert capfd.readouterr() == ("", "")


def test_two_lengths_or_chunks_are_refused(display, capfd):
    two = post(display, "4").replace(b"\r\n\r\n", b"\r\nContent-Length: 4\r\n\r\n")
    chunked = post(display, "4").replace(b"Content-Length: 4", b"Transfer-Encoding: chunked")
    assert [status(display, two), status(display, chunked)] == [400, 400]
    assert capfd.readouterr() == ("", "")


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1:{port}", 200),
        ("localhost:{port}", 200),
        ("LOCALHOST", 200),
        ("[::1]:{port}", 200),
        ("127.0.0.2:{port}", 200),  # all of 127/8 is the loopback
        ("evil.example:{port}", 403),  # a DNS rebinding: another site's name for 127.0.0.1
        ("localhost.evil.example", 403),
        ("127.0.0.1:port", 403),
        ("127.0.0.1@evil.example", 403),
        ("", 403),
    ],
)
def test_only_a_loopback_host_is_answered(display, capfd, host, expected):
    assert status(display, get(display, host.format(port=display.port))) == expected
    assert capfd.readouterr() == ("", "")


def test_a_request_without_host_is_refused(display, capfd):
    request = f"GET /?token={display.token} HTTP/1.0\r\n\r\n".encode()
    assert status(display, request) == 403
    assert capfd.readouterr() == ("", "")


def test_garbage_is_answered_400_and_never_printed(display, capfd):
    requests = (b"\x00\xff / HTTP/1.1\r\n\r\n", b"GET / HTTP/9\r\n\r\n", b"GET\r\n\r\n")
    assert [status(display, request) for request in requests] == [501, 400, 400]
    assert capfd.readouterr() == ("", "")


def test_connections_past_the_cap_are_closed_unanswered(monkeypatch, capfd):
    monkeypatch.setattr(web, "MAX_CONNECTIONS", 3)
    shown = WebDisplay(frame_time=0.0, say=print)
    host = f"127.0.0.1:{shown.port}"
    try:
        idle = [connect(shown) for _ in range(3)]
        refused = []
        for _ in range(3):
            with connect(shown) as extra:
                extra.sendall(get(shown, host))
                refused.append(answer(extra))
        assert refused == [b""] * 3
        for client in idle:
            client.close()  # their threads end, and the slots are free again
        answered = b""
        for _ in range(600):  # (the server frees a slot just after the close)
            with connect(shown) as client:
                client.sendall(get(shown, host))
                answered = answer(client)
            if answered:
                break
            time.sleep(0.05)
        assert answered.startswith(b"HTTP/1.1 200 ")
    finally:
        shown.close()
    assert capfd.readouterr() == ("", "")


def test_an_idle_connection_is_closed_by_the_server(monkeypatch, capfd):
    monkeypatch.setattr(web._Handler, "timeout", 0.2)
    shown = WebDisplay(frame_time=0.0, say=print)
    try:
        with connect(shown) as silent, connect(shown) as half:
            half.sendall(b"POST /key?token=")  # a request line never finished
            assert (answer(silent), answer(half)) == (b"", b"")
    finally:
        shown.close()
    assert capfd.readouterr() == ("", "")


def test_the_browser_is_opened_on_a_private_file_without_the_token(display, monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr(web, "can_open_browser", lambda: True)
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    assert display.open_browser()
    [url] = opened
    assert url.startswith("file:///") and display.token not in url
    page = Path(url.removeprefix("file://"))
    assert stat.S_IMODE(page.stat().st_mode) == 0o600
    assert stat.S_IMODE(page.parent.stat().st_mode) == 0o700
    assert page.parent.stat().st_uid == os.getuid()
    text = page.read_text()
    assert text.count(display.url) == 3  # the refresh, the script and the link
    display.close()
    assert not page.parent.exists()


def test_no_browser_no_file(display, monkeypatch):
    monkeypatch.setattr(web, "can_open_browser", lambda: False)
    monkeypatch.setattr(webbrowser, "open", pytest.fail)
    assert not display.open_browser()
    assert display._redirect_folder is None
