"""The live view's page: the replay page's board, fed by the server's events.

Its own script (after the board's, :mod:`pacman.view.board_page`) opens the event stream and
sends the keys back; the token it was served with goes with every request.
"""

from __future__ import annotations

import json

from pacman.view.board_page import BODY, SCRIPT, STYLE
from pacman.view.html import json_block, page

__all__ = ["HINT", "live_page"]

#: What the page says under the board while the game is live.
HINT = (
    "live: space pauses the game, right arrow steps while paused, + and - change the speed, "
    "V shows the values, arrows or WASD steer when you play; the slider looks back"
)

#: How long a notice stays at least, in milliseconds (the window's: 1.5 s).
NOTICE_MS = 1500

_LIVE = r"""
(function () {
  "use strict";
  const board = window.board, hint = document.getElementById("hint");
  const token = JSON.parse(document.getElementById("replay-data").textContent).live.token;
  const ask = "?token=" + encodeURIComponent(token);
  const live = board.live = {paused: false, notice: ""};
  const send = key => fetch("key" + ask, {method: "POST", body: key}).catch(() => {});
  const source = new EventSource("events" + ask);
  const on = (name, handle) => source.addEventListener(name, e => handle(JSON.parse(e.data)));
  hint.textContent = "waiting for the game...";
  on("game", data => { board.load(data); board.go(board.last()); hint.textContent = HINT; });
  // A notice lasts as the window's does: until the game moves on after it, and at least
  // NOTICE_MS ("press an arrow key" while the game waits, "frame time 0.05 s" for a moment).
  // (The server sends its notice with every status, a pause's too: only a new one is shown.)
  let sent = "", noticeSince = 0, movedSince = false;
  const dropNotice = () => { live.notice = ""; board.status(); };
  const noticeOver = () => movedSince && performance.now() - noticeSince >= NOTICE_MS;
  on("frame", m => {
    board.push(m.f, m.n); movedSince = true;
    if (live.notice && noticeOver()) dropNotice();
  });
  on("status", s => {
    live.paused = s.paused;
    if (s.notice !== sent) {
      sent = live.notice = s.notice; noticeSince = performance.now(); movedSince = false;
      if (s.notice) setTimeout(() => { if (live.notice === s.notice && noticeOver()) dropNotice(); }, NOTICE_MS);
    }
    board.status();
  });
  on("end", m => board.finish(m.end));
  on("bye", () => {
    source.close(); board.live = null; board.status();
    hint.textContent = "pacman has stopped: this page keeps the last game as a replay (space plays it)";
  });
  source.onopen = () => { if (board.live) hint.textContent = HINT; };
  source.onerror = () => { if (board.live) hint.textContent = "lost pacman: trying again..."; };
  const STEER = {ArrowLeft: "West", a: "West", A: "West", ArrowRight: "East", d: "East", D: "East",
    ArrowUp: "North", w: "North", W: "North", ArrowDown: "South", s: "South", S: "South", q: "Stop", Q: "Stop"};
  const held = new Set();
  board.keys = e => {
    if (!board.live) return false;
    if (e.key === " " || e.key === "p" || e.key === "P") { if (!e.repeat) send("pause"); return true; }
    if (e.key === "ArrowRight" && live.paused) { send("step"); return true; }  // a step, not a turn
    if (e.key === "+" || e.key === "=") { send("faster"); return true; }
    if (e.key === "-" || e.key === "_") { send("slower"); return true; }
    if (e.key === "Escape") { send("quit"); return true; }
    const turn = STEER[e.key];
    if (turn) { held.add(turn); send("down:" + turn); return true; }
    return false;
  };
  board.keysUp = e => { const turn = STEER[e.key]; if (board.live && turn) { held.delete(turn); send("up:" + turn); } };
  // A key let go in another window never comes here: let go of them all.
  window.addEventListener("blur", () => { for (const turn of held) send("up:" + turn); held.clear(); });
  window.addEventListener("pagehide", () => source.close());
})();
"""


def live_page(token: str) -> str:
    """The live view's page; ``token`` goes with its requests to the server."""
    script = SCRIPT + f"const HINT = {json.dumps(HINT)}, NOTICE_MS = {NOTICE_MS};\n" + _LIVE
    return page(
        "Pac-Man, live",
        STYLE,
        json_block("replay-data", {"live": {"token": token}}) + BODY.format(title="Pac-Man, live"),
        script,
    )
