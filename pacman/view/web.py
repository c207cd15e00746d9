"""The game live in a browser: a small local server and a game observer that feeds it.

``WebDisplay(port=0)`` starts a server on 127.0.0.1 (an ephemeral port unless one is asked for)
at once, so a port in use fails before any game, in one line. Its :attr:`~WebDisplay.url`
carries a token, as Jupyter's does: a request without it gets no game, so other users of a
shared machine can neither watch nor steer. The page is the HTML replay's (the same board,
colours, score bar, values and marks), fed move by move with server-sent events; its keys come
back as small POSTs: Space or P pauses, Right steps while paused, ``+``/``-`` change the frame
time, Esc stops the run, arrows, WASD and Q steer Pac-Man for ``agents.KeyboardAgent``, which
reads them through :mod:`pacman.controls` as it reads the window's.

The first game waits for a page to connect. A page that reconnects (a reload, a second tab) is
sent the game so far; while no page is open the game waits, and says so in one line. When the
run ends the pages keep the last game as a replay.

Who may talk to it: only its owner. A request must name the loopback address or localhost as
its Host (a page of another site that rebinds its name to 127.0.0.1 cannot) and carry the
token, which is checked before any body is read; bodies are at most 64 bytes; nothing a
client sends is printed; at most :data:`MAX_CONNECTIONS` connections are served at once and
each is closed after :data:`IDLE_TIMEOUT` silent seconds. The browser is opened on a private
0600 file that redirects to the URL, as Jupyter does, so the token never appears on a command
line that other users can read.

Why the standard library: one game, one user, on localhost: ``http.server`` with a thread per
connection (a few, bounded), server-sent events one way and POSTs the other, is all it takes;
a WebSocket library would add a dependency and an event loop for nothing the page needs.
"""

from __future__ import annotations

import errno
import hmac
import html
import ipaddress
import json
import os
import secrets
import shutil
import sys
import tempfile
import threading
import time
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from pacman import controls
from pacman.errors import UsageError
from pacman.game import QuitRequested
from pacman.view.html_replay import ReplayData
from pacman.view.web_page import live_page

if TYPE_CHECKING:
    from pacman.game import GameResult
    from pacman.state import GameState

__all__ = ["WebDisplay", "can_open_browser"]

#: How long a page may be gone (a reload) before the terminal is told the game waits for it.
_GRACE = 2.0
_DIRECTIONS = {"West", "East", "North", "South", "Stop"}
#: Connections served at once: the pages of one player need a few; more are closed unanswered.
MAX_CONNECTIONS = 32
#: Seconds a connection may stay silent before it is closed (a live page's stream never is:
#: it is written to at least every half second).
IDLE_TIMEOUT = 10.0
#: The longest body a request may have: a key's name.
MAX_BODY = 64
#: The names a request may give as its Host: a page on another name is a DNS rebinding.
_LOOPBACK_NAMES = ("localhost",)
_HOST_CHARACTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]"


class WebDisplay:
    """Shows games live in browsers and takes the player's keys from them."""

    def __init__(
        self,
        port: int = 0,
        *,
        frame_time: float = 0.1,
        theme: Any = "classic",
        agent_name: str | None = None,
        values: bool = False,
        host: str = "127.0.0.1",
        say: Any = None,
    ) -> None:
        self.frame_time = max(0.0, float(frame_time))
        self._data = ReplayData(
            theme=theme, agent_name=agent_name, frame_time=frame_time, values=values
        )
        #: Where the one-line notices go (a page closed, back again): stderr by default.
        self._say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        self.token = secrets.token_urlsafe(18)
        self._changed = threading.Condition()
        self._events: list[bytes] = []  # the current game's events, from its "game" event on
        self._game = 0  # which game the events are of
        self._watchers = 0
        self._keys: list[str] = []
        self._paused = False
        self._step = False
        self._notice = ""
        self._directions = controls.DirectionKeys()
        self._closed = False
        self._gone_since: float | None = None
        self._told_gone = False
        self._redirect_folder: str | None = None
        self._host = host
        self._server = _serve(self, host, port)
        self.port = self._server.server_address[1]
        self.url = f"http://{host}:{self.port}/?token={self.token}"
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        controls.take_keys_from(self)

    # ----------------------------------------------------------- what the pages are sent

    def _send(self, event: str, data: Any) -> None:
        message = f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
        with self._changed:
            if event == "game":
                self._events, self._game = [], self._game + 1
            self._events.append(message.encode())
            self._changed.notify_all()

    def _status(self) -> None:
        self._send(
            "status",
            {"paused": self._paused, "notice": self._notice, "frame_time": self.frame_time},
        )

    # ----------------------------------------------------------- for agents (controls)

    @property
    def paused(self) -> bool:
        return self._paused

    def take_direction(self) -> str | None:
        """The direction pressed last since the previous call, else the one held last."""
        self.pump()
        return self._directions.take()

    def idle(self, notice: str = "") -> None:
        """Handle the pages' keys and wait a sixtieth of a second (for waiting agents)."""
        self.pump()
        if notice != self._notice:
            self._notice = notice
            self._status()
        with self._changed:
            if not self._keys:
                self._changed.wait(1 / 60)

    # ----------------------------------------------------------- keys

    def pump(self) -> None:
        """Handle the keys the pages sent; raises QuitRequested on Esc."""
        with self._changed:
            keys, self._keys = self._keys, []
        for key in keys:
            self._key(key)

    def _key(self, key: str) -> None:
        if key == "quit":
            raise QuitRequested("Esc pressed in the browser")
        if key == "pause":
            self._paused, self._step = not self._paused, False
        elif key == "step" and self._paused:
            self._step = True
        elif key in ("faster", "slower"):  # as the window's + and - keys
            change = controls.faster if key == "faster" else controls.slower
            self.frame_time = change(self.frame_time)
            self._notice = f"frame time {self.frame_time:g} s"
        elif key.startswith("down:") and key[5:] in _DIRECTIONS:
            self._directions.press(key[5:])
            return
        elif key.startswith("up:"):
            self._directions.release(key[3:])
            return
        else:
            return
        self._status()

    def _wait(self, seconds: float) -> None:
        """Wait, answering keys; longer while paused (until a step) or while no page is open."""
        until = time.monotonic() + seconds
        while True:
            self.pump()
            watched = self._watched()
            now = time.monotonic()
            if watched and now >= until and not (self._paused and not self._step):
                break
            with self._changed:
                if not self._keys:
                    self._changed.wait(min(0.05, until - now) if now < until else 0.05)
        self._step = False

    def _watched(self) -> bool:
        """Whether a page is open; the terminal is told once when none has been for a while."""
        if self._watchers or self._closed:
            if self._told_gone:
                self._say("pacman: a browser page is open again; the game goes on")
            self._gone_since, self._told_gone = None, False
            return True
        now = time.monotonic()
        if self._gone_since is None:
            self._gone_since = now
        if not self._told_gone and now - self._gone_since >= _GRACE:
            self._say(f"pacman: the browser page was closed; the game waits for it at {self.url}")
            self._told_gone = True
        return False

    # ----------------------------------------------------------- observer

    def initialize(self, state: GameState) -> None:
        self._data.initialize(state)
        self._send("game", self._data.data)
        with self._changed:  # the first game waits for a page to show it
            while self._watchers == 0 and self._game == 1 and not self._closed:
                self._changed.wait(0.05)
        self._wait(0)

    def annotate(self, notes: Any) -> None:
        self._data.annotate(notes)

    def update(self, state: GameState, agent_index: int, action: str) -> None:
        data = self._data.data
        self._data.update(state, agent_index, action)
        if data is None:
            return
        frame = data["frames"][-1]
        self._send("frame", {"f": frame, "n": data["notes"][frame["n"]] if "n" in frame else None})
        self._wait(self.frame_time)

    def finish(self, state: GameState, result: GameResult) -> None:
        self._send("end", {"end": self._data.end(state, result, None)})
        self._wait(min(1.5, 10 * self.frame_time))  # the final board, before the next game

    def close(self) -> None:
        """Tell the pages the run is over (they keep the game as a replay) and stop serving."""
        if self._closed:
            return
        self._send("bye", {})
        with self._changed:
            self._closed = True
            self._changed.notify_all()
            deadline = time.monotonic() + 2.0  # long enough for the pages to read the rest
            while self._watchers and time.monotonic() < deadline:
                self._changed.wait(0.05)
        self._server.shutdown()
        self._server.server_close()
        controls.stop_taking_keys(self)
        if self._redirect_folder is not None:
            shutil.rmtree(self._redirect_folder, ignore_errors=True)

    def open_browser(self) -> bool:
        """Open the page in a browser where one with a window can be; whether it was.

        The browser is given a file, not the URL: a command line is readable by every user of
        the machine, so the token goes in a 0600 file in a private folder that redirects to it.
        """
        if not can_open_browser():
            return False
        redirect = self._write_redirect()
        try:
            return webbrowser.open(redirect.as_uri())
        except webbrowser.Error:
            return False

    def _write_redirect(self) -> Path:
        """A page only its owner may read that sends the browser on to :attr:`url`."""
        if self._redirect_folder is None:
            self._redirect_folder = tempfile.mkdtemp(prefix="pacman-web-")  # mode 0700
        path = Path(self._redirect_folder) / "open.html"
        target = html.escape(self.url, quote=True)
        page = (
            '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
            f'<meta http-equiv="refresh" content="0;url={target}">'
            f"<script>location.replace({html.escape(json.dumps(self.url), quote=False)})</script>"
            f'</head><body><a href="{target}">the game</a></body></html>\n'
        )
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(page)
        return path

    # ----------------------------------------------------------- the server's side

    def _allowed(self, token: str) -> bool:
        return hmac.compare_digest(token.encode(), self.token.encode())

    def _page(self) -> str:
        return live_page(self.token)

    def _stream(self, write: Any) -> None:
        """Send a page the current game, then each event as it comes, until it goes away."""
        with self._changed:
            self._watchers += 1
            self._changed.notify_all()
        try:
            game, sent = None, 0
            while True:
                with self._changed:
                    if game == self._game and sent == len(self._events) and not self._closed:
                        self._changed.wait(0.5)
                    if game != self._game:
                        game, sent = self._game, 0  # a new game: its "game" event first
                    ready = self._events[sent:]
                    sent += len(ready)
                    closed = self._closed and sent == len(self._events)
                # Nothing new: a comment, so that a closed page is found within a second.
                write(b"".join(ready) or b": still here\n\n")
                if closed:
                    return
        except OSError:
            return  # the page went away: a closed tab, a reload
        finally:
            with self._changed:
                self._watchers -= 1
                self._changed.notify_all()

    def _take_key(self, key: str) -> None:
        with self._changed:
            self._keys.append(key)
            self._changed.notify_all()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    display: WebDisplay

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(address, _Handler)
        self._free = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread for the connection while fewer than the cap are open; else it is closed."""
        if not self._free.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._free.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._free.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A page that goes away mid-answer is nothing to report; what a client sent never is."""
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            print(
                f"pacman: the browser view could not answer ({type(error).__name__})",
                file=sys.stderr,
            )


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    default_request_version = "HTTP/1.0"  # a malformed request's 400 gets its status line
    timeout = IDLE_TIMEOUT  # the socket's: a silent connection ends, its thread with it

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal is the game's, and what clients send is not to be printed."""

    def _token(self) -> tuple[str, str]:
        parts = urlsplit(self.path)
        return parts.path, (parse_qs(parts.query).get("token") or [""])[0]

    def _refuse(self, status: int, text: str = "") -> None:
        """Answer ``status`` and close the connection (a body sent with the request is unread)."""
        body = text.encode()
        self.close_connection = True
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _checked(self, paths: tuple[str, ...]) -> str | None:
        """The request's path if it may be answered; else None, the refusal sent."""
        if not _loopback_host(self.headers.get("Host", ""), self.server.display._host):
            self._refuse(403, "pacman: the game is served at 127.0.0.1 or localhost only")
            return None
        path, token = self._token()
        if path not in paths:
            self._refuse(404, "not found")
            return None
        if not self.server.display._allowed(token):
            self._refuse(403, "pacman: a wrong or missing token: open the URL pacman printed")
            return None
        return path

    def do_GET(self) -> None:
        if urlsplit(self.path).path == "/favicon.ico":
            self._refuse(204)
            return
        path = self._checked(("/", "/events"))
        display = self.server.display
        if path is None:
            return
        if path == "/":
            body = display._page().encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True

            def write(chunk: bytes) -> None:
                self.wfile.write(chunk)
                self.wfile.flush()

            display._stream(write)

    def do_POST(self) -> None:
        if self._checked(("/key",)) is None:
            return
        length = _body_length(self.headers)
        if length is None:
            self._refuse(400)
            return
        key = self.rfile.read(length).decode("utf-8", "replace")
        self.server.display._take_key(key)
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()


def _body_length(headers: Any) -> int | None:
    """A POST body's length, 0 to :data:`MAX_BODY`; None for anything else (or chunks)."""
    if headers.get("Transfer-Encoding") is not None:
        return None
    lengths = headers.get_all("Content-Length") or ["0"]
    text = lengths[0].strip()
    if len(lengths) > 1 or not (text.isascii() and text.isdigit()) or len(text) > 3:
        return None
    length = int(text)
    return length if length <= MAX_BODY else None


def _loopback_host(host: str, served_on: str) -> bool:
    """Whether a Host header names this machine's loopback (with a port, or without)."""
    if not host or host.strip(_HOST_CHARACTERS):
        return False
    try:
        parts = urlsplit("//" + host)
        parts.port  # noqa: B018 (raises ValueError for a port that is not one)
    except ValueError:
        return False
    name = parts.hostname or ""
    if name in _LOOPBACK_NAMES or name == served_on:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _serve(display: WebDisplay, host: str, port: int) -> _Server:
    """The server, listening; a port that cannot be had is one line naming it."""
    if not 0 <= port <= 65535:
        raise UsageError(f"--web {port}: a port is 1 to 65535 (leave it out for a free one)")
    try:
        server = _Server((host, port))
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            why = "is in use"
        else:
            why = f"cannot be listened on ({error.strerror or error})"
        raise UsageError(
            f"--web {port}: port {port} on {host} {why}; choose another, or leave it out for "
            "a free one"
        ) from None
    server.display = display
    return server


#: Browsers that run in the terminal: opened from a game, they would take its terminal.
_IN_TERMINAL = ("www-browser", "links", "elinks", "lynx", "w3m")


def can_open_browser() -> bool:
    """Whether a browser with a window can be opened here (not a text one in this terminal)."""
    if os.environ.get("BROWSER"):
        return True  # the user's choice
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")) and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return False  # an SSH session, a container
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return False
    return not (type(browser) is webbrowser.GenericBrowser and browser.name in _IN_TERMINAL)
