"""A game as one self-contained HTML page that replays it in any browser.

``HtmlReplay("game.html")`` is a game observer, like the frame recorder: it
keeps every move (agents' positions, facing, scared timers, score, food and
capsules eaten) and, when the game ends, writes one file whose script draws
the maze as the window draws it (wall tubes, Pac-Man, ghosts, the score bar)
on a canvas. Play/pause (Space), step (arrow keys), a scrub bar, a speed
choice, and, when they were recorded, the agents' marks and the search overlay
(V) with each root action's value, the principal variation, depth and nodes.
Nothing is fetched; it needs no pygame.

With several games, game 1 goes to ``FILE.html``, game 2 to ``FILE-2.html``...
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pacman.view.html import json_block, page
from pacman.view.themes import FLASH_BELOW, GAME_OVER_RED, get_theme

if TYPE_CHECKING:
    from pacman.game import GameResult
    from pacman.state import GameState

__all__ = ["HtmlReplay", "ending", "replay_page", "write_replay"]


def _hex(color: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*color)


def _agents(state: GameState) -> list[list[Any]]:
    found = []
    for index in range(state.get_num_agents()):
        agent = state.get_pacman_state() if index == 0 else state.get_ghost_state(index)
        x, y = agent.get_position()
        found.append([x, y, agent.get_direction(), agent.scared_timer])
    return found


#: A crash reason that says a time limit ended the game: the game's own limits ("Pac-Man
#: (X) timed out on move 3: ...", "... ran out of time on move 3: ..."), the grader's ("Your
#: code timed out: ...") or a sandboxed agent's ("... crashed on move 3: timed out in its
#: sandbox: ..."). Only those leading clauses count: the agent's own error text comes after.
_TIME_LIMIT = re.compile(r"^(?:[^:]* crashed [^:]*: )?[^:]*\b(?:timed out|ran out of time)\b")


def ending(win: bool, lose: bool, crash: str | None) -> str:
    """How a game ended, as its replay's title says: win, lose, timed out, crash or stop
    (a move limit, or a record that ends there)."""
    if win:
        return "win"
    if lose:
        return "lose"
    if crash:
        return "timed out" if _TIME_LIMIT.match(crash) else "crash"
    return "stop"


class HtmlReplay:
    """A game observer that writes the game as a self-contained HTML replay when it ends."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        theme: Any = "classic",
        agent_name: str | None = None,
        frame_time: float = 0.1,
        values: bool = False,
    ) -> None:
        self.path = Path(path)
        self.theme = get_theme(theme)
        self.agent_name = agent_name
        self.frame_time = frame_time
        self.values = values
        #: Files written so far, in order.
        self.written: list[Path] = []
        self._games = 0
        self._data: dict[str, Any] | None = None
        self._food: set[tuple[int, int]] = set()
        self._capsules: set[tuple[int, int]] = set()
        self._notes: list[dict[str, Any]] = []
        self._pending: int | None = None
        #: The game record being replayed (by :func:`write_replay`): a record cut short by a
        #: crash or a time limit replays to its last move and then stops on its replayer.
        self.recorded: dict[str, Any] | None = None

    def _file(self) -> Path:
        if self._games == 1:
            return self.path
        return self.path.with_name(f"{self.path.stem}-{self._games}{self.path.suffix or '.html'}")

    def initialize(self, state: GameState) -> None:
        self._games += 1
        layout = state.layout
        self._food = set(state.get_food_positions())
        self._capsules = set(state.get_capsules())
        self._notes = []
        self._pending = None
        walls = layout.walls
        self._data = {
            "layout": layout.name,
            "agent": self.agent_name or "",
            "width": layout.width,
            "height": layout.height,
            # Row strings from the top, as a layout file is written: '%' a wall.
            "walls": [
                "".join("%" if walls[x][y] else " " for x in range(layout.width))
                for y in range(layout.height - 1, -1, -1)
            ],
            "food": sorted(self._food),
            "capsules": sorted(self._capsules),
            "frames": [{"p": _agents(state), "s": state.get_score()}],
            "notes": self._notes,
            "frame_time": self.frame_time,
            "values": self.values,
            "flash_below": FLASH_BELOW,
            "theme": {
                name: _hex(getattr(self.theme, name))
                for name in (
                    "background",
                    "wall",
                    "wall_fill",
                    "food",
                    "capsule",
                    "pacman",
                    "scared",
                    "scared_face",
                    "flash",
                    "flash_face",
                    "eye",
                    "pupil",
                    "text",
                    "score",
                )
            }
            | {"ghosts": [_hex(c) for c in self.theme.ghosts], "game_over": _hex(GAME_OVER_RED)},
        }

    def annotate(self, notes: Any) -> None:
        """Marks and search results: kept once, referred to by the frames that show them."""
        self._notes.append(notes.to_json())
        self._pending = len(self._notes) - 1

    def update(self, state: GameState, agent_index: int, action: str) -> None:
        if self._data is None:
            return
        frame: dict[str, Any] = {
            "a": agent_index,
            "m": action,
            "p": _agents(state),
            "s": state.get_score(),
        }
        food = set(state.get_food_positions())
        if food != self._food:
            frame["e"] = sorted(self._food - food)
            self._food = food
        capsules = set(state.get_capsules())
        if capsules != self._capsules:
            frame["c"] = sorted(self._capsules - capsules)
            self._capsules = capsules
        if self._pending is not None:
            frame["n"] = self._pending
            self._pending = None
        self._data["frames"].append(frame)

    def finish(self, state: GameState, result: GameResult) -> None:
        if self._data is None:
            return
        crash = result.crash if result.crashed else None
        if self.recorded is not None:  # a replayed record: its own end, not the replayer's
            crash = self.recorded.get("crash")
        self._data["end"] = ending(state.is_win(), state.is_lose(), crash)
        from pacman.outputs import write_atomically

        target = self._file()
        write_atomically(target, replay_page(self._data))
        self.written.append(target)
        self._data = None

    def close(self) -> None:
        """Nothing to flush: each game's file is written whole when it ends."""


def write_replay(record: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """A game record (as ``--record`` writes it) as an HTML replay page at ``path``."""
    from pacman.runner import replay

    page = HtmlReplay(path, agent_name=record.get("pacman"))
    page.recorded = record
    replay(record, [page])
    return Path(path)


_STYLE = """
body{margin:0;background:#111;color:#eee;font:14px system-ui,-apple-system,"Segoe UI",sans-serif}
main{display:flex;flex-direction:column;align-items:center;padding:10px;gap:8px}
h1{font-size:15px;margin:0;font-weight:600}
canvas{max-width:100%;image-rendering:auto}
.bar{display:flex;gap:8px;align-items:center;flex-wrap:wrap;justify-content:center}
button,select{font:inherit;padding:2px 10px}
input[type=range]{width:min(560px,80vw)}
#pos{font-variant-numeric:tabular-nums;min-width:9em;text-align:center}
.hint{color:#999;font-size:12px}
"""

_BODY = """
<main><h1 id="title">{title}</h1><canvas id="board"></canvas>
<div class="bar"><button id="back" title="step back (left arrow)">&#9664;&#9664;</button>
<button id="play" title="play or pause (space)">play</button>
<button id="fwd" title="step forward (right arrow)">&#9654;&#9654;</button>
<label>speed <select id="speed"><option value="0.25">0.25x</option><option value="0.5">0.5x</option>
<option value="1" selected>1x</option><option value="2">2x</option><option value="4">4x</option>
<option value="16">16x</option></select></label>
<label><input type="checkbox" id="vals"> values (V)</label>
<label><input type="checkbox" id="marks" checked> marks</label></div>
<div class="bar"><input type="range" id="scrub" min="0" value="0"><span id="pos"></span></div>
<div class="hint">space plays or pauses, arrows step, V shows the search overlay</div></main>
"""

_SCRIPT = r"""
"use strict";
const D = JSON.parse(document.getElementById("replay-data").textContent);
const TH = D.theme, F = D.frames, W = D.width, H = D.height;
const canvas = document.getElementById("board"), g = canvas.getContext("2d");
const CELL = Math.max(8, Math.min(30, Math.floor((window.innerWidth - 30) / W)));
const BAR = Math.max(12, Math.round(CELL * 1.2));
canvas.width = W * CELL; canvas.height = H * CELL + BAR;
const isWall = (x, y) => x >= 0 && y >= 0 && x < W && y < H && D.walls[H - 1 - y][x] === "%";
const cx = x => (x + 0.5) * CELL, cy = y => (H - 1 - y + 0.5) * CELL;
// The maze, painted once as the window paints it: outlined tubes along the wall cells.
const maze = document.createElement("canvas"); maze.width = canvas.width; maze.height = H * CELL;
(function paintMaze() {
  const m = maze.getContext("2d"), outer = Math.round(CELL * 0.3), line = Math.max(1, Math.round(CELL * 0.075));
  m.fillStyle = TH.background; m.fillRect(0, 0, maze.width, maze.height);
  for (const [color, r] of [[TH.wall, outer], [TH.wall_fill, outer - line]]) {
    m.fillStyle = color;
    for (let x = 0; x < W; x++) for (let y = 0; y < H; y++) {
      if (!isWall(x, y)) continue;
      const X = cx(x), Y = cy(y);
      m.beginPath(); m.arc(X, Y, r, 0, 2 * Math.PI); m.fill();
      if (isWall(x + 1, y)) m.fillRect(X, Y - r, CELL + 1, 2 * r + 1);
      if (isWall(x, y - 1)) m.fillRect(X - r, Y, 2 * r + 1, CELL + 1);
      if (isWall(x + 1, y) && isWall(x, y - 1) && isWall(x + 1, y - 1)) m.fillRect(X, Y, CELL + 1, CELL + 1);
    }
  }
})();
// Food and capsules at each frame, from the eaten lists.
const key = (x, y) => x + "," + y;
const foodAt = [], capsAt = [];
{
  let food = new Set(D.food.map(([x, y]) => key(x, y))), caps = new Set(D.capsules.map(([x, y]) => key(x, y)));
  for (const f of F) {
    if (f.e) { food = new Set(food); for (const [x, y] of f.e) food.delete(key(x, y)); }
    if (f.c) { caps = new Set(caps); for (const [x, y] of f.c) caps.delete(key(x, y)); }
    foodAt.push(food); capsAt.push(caps);
  }
}
const notesAt = []; { let n = null; for (const f of F) { if (f.n !== undefined) n = D.notes[f.n]; notesAt.push(n); } }
const FACING = {East: 0, North: 90, West: 180, South: 270};
const LOOK = {East: [1, 0], West: [-1, 0], North: [0, -1], South: [0, 1]};
function pacman(x, y, facing, mouth) {
  const r = CELL * 0.45, half = 5 + 40 * mouth, a = (FACING[facing] || 0), rad = Math.PI / 180;
  g.fillStyle = TH.pacman; g.beginPath(); g.moveTo(cx(x), cy(y));
  // Canvas angles turn clockwise (y grows down): the mouth is centred on -a.
  g.arc(cx(x), cy(y), r, (-a + half) * rad, (-a - half + 360) * rad, false);
  g.closePath(); g.fill();
}
function ghost(index, x, y, facing, timer) {
  const X = cx(x), Y = cy(y), r = CELL * 0.42, head = Y - CELL * 0.06, bottom = Y + CELL * 0.42;
  const scared = timer > 0, flash = scared && timer <= D.flash_below && timer % 2 === 0;
  g.fillStyle = scared ? (flash ? TH.flash : TH.scared) : TH.ghosts[(index - 1) % TH.ghosts.length];
  g.beginPath(); g.arc(X, head, r, Math.PI, 0); g.lineTo(X + r, bottom);
  for (let t = 0; t < 3; t++) { const right = X + r - 2 * r * t / 3, step = 2 * r / 3;
    g.lineTo(right - step / 2, bottom - CELL * 0.12); g.lineTo(right - step, bottom); }
  g.closePath(); g.fill();
  const ey = Y - CELL * 0.1, dx = CELL * 0.16;
  if (scared) { g.fillStyle = flash ? TH.flash_face : TH.scared_face;
    for (const s of [-1, 1]) { g.beginPath(); g.arc(X + s * dx * 0.8, ey, Math.max(1, CELL * 0.05), 0, 7); g.fill(); }
    return; }
  const [lx, ly] = LOOK[facing] || [0, 0];
  for (const s of [-1, 1]) {
    const ex = X + s * dx + lx * CELL * 0.04, eyy = ey + ly * CELL * 0.04;
    g.fillStyle = TH.eye; g.beginPath(); g.ellipse(ex, eyy, CELL * 0.1, CELL * 0.13, 0, 0, 7); g.fill();
    g.fillStyle = TH.pupil; g.beginPath(); g.arc(ex + lx * CELL * 0.05, eyy + ly * CELL * 0.06, Math.max(1, CELL * 0.06), 0, 7); g.fill();
  }
}
function valueText(v) { if (v === null) return "?"; return Math.abs(v) >= 10 || Number.isInteger(v) ? v.toFixed(0) : v.toFixed(1); }
function overlay(n, part) {  // part: "paths" under the agents, "labels" over them
  const s = n.search; if (!s) return "";
  const paths = s.paths || [];
  for (let a = part === "paths" ? paths.length - 1 : -1; a >= 0; a--) {
    const p = paths[a]; if (!p || p.length < 2) continue;
    g.strokeStyle = a === 0 ? "#ff8c00" : TH.ghosts[(a - 1) % TH.ghosts.length];
    g.lineWidth = a === 0 ? Math.max(2, CELL / 6) : Math.max(1, CELL / 14);
    g.beginPath(); g.moveTo(cx(p[0][0]), cy(p[0][1])); for (const [x, y] of p.slice(1)) g.lineTo(cx(x), cy(y)); g.stroke();
  }
  const root = paths.length ? paths[0][0] : null;
  if (root && part === "labels") {
    // As small as the window's labels.
    g.font = Math.max(8, Math.round(CELL * 0.36)) + "px sans-serif"; g.textAlign = "center"; g.textBaseline = "middle";
    for (const [act, v] of Object.entries(s.values)) {
      const [dx, dy] = {West: [-1, 0], East: [1, 0], North: [0, 1], South: [0, -1]}[act] || [0, 0];
      let X = cx(root[0] + dx) + dx * CELL * 0.55, Y = cy(root[1] + dy) - dy * CELL * 0.55;
      if (act === "Stop") Y += CELL / 2;
      const label = (act === "Stop" ? "Stop " : act[0] + " ") + valueText(v), w = g.measureText(label).width + 4;
      g.fillStyle = "rgba(0,0,0,0.67)"; g.fillRect(X - w / 2, Y - CELL * 0.22, w, CELL * 0.44);
      g.fillStyle = act === s.action ? "#ff8c00" : TH.text; g.fillText(label, X, Y);
    }
  }
  return "depth " + s.depth + ", " + s.nodes + " nodes";
}
let at = 0, playing = false, timer = null;
function draw() {
  const f = F[at];
  g.drawImage(maze, 0, 0);
  g.fillStyle = TH.background; g.fillRect(0, H * CELL, canvas.width, BAR);
  const n = notesAt[at];
  if (n && n.marks && document.getElementById("marks").checked) for (const [x, y, c] of n.marks) {
    if (x < 0 || y < 0 || x >= W || y >= H) continue;
    g.globalAlpha = 0.43; g.fillStyle = c; g.fillRect(cx(x) - CELL / 2, cy(y) - CELL / 2, CELL, CELL);
    g.globalAlpha = 1; g.strokeStyle = c; g.lineWidth = Math.max(1, Math.floor(CELL / 12));
    g.strokeRect(cx(x) - CELL / 2, cy(y) - CELL / 2, CELL, CELL);
  }
  g.fillStyle = TH.food;
  for (const k of foodAt[at]) { const [x, y] = k.split(",").map(Number); g.beginPath(); g.arc(cx(x), cy(y), Math.max(1, CELL * 0.1), 0, 7); g.fill(); }
  g.fillStyle = TH.capsule;
  for (const k of capsAt[at]) { const [x, y] = k.split(",").map(Number); g.beginPath(); g.arc(cx(x), cy(y), Math.max(2, CELL * 0.25), 0, 7); g.fill(); }
  let extra = "";  // as in the window: paths under the agents, values over them
  const shown = n && document.getElementById("vals").checked;
  if (shown) extra = overlay(n, "paths");
  for (let i = 1; i < f.p.length; i++) ghost(i, f.p[i][0], f.p[i][1], f.p[i][2], f.p[i][3]);
  const pacMoves = F.slice(0, at + 1).filter(x => x.a === 0).length;
  pacman(f.p[0][0], f.p[0][1], f.p[0][2], pacMoves % 2 === 0 ? 1 : 0.3);
  if (shown) overlay(n, "labels");
  const mid = H * CELL + BAR / 2;
  g.textBaseline = "middle"; g.textAlign = "left"; g.fillStyle = TH.score;
  g.font = "bold " + Math.round(BAR * 0.62) + "px sans-serif";
  g.fillText("SCORE " + (Number.isInteger(f.s) ? f.s : f.s.toFixed(1)), CELL / 3, mid);
  g.textAlign = "right"; g.fillStyle = TH.text; g.font = Math.round(BAR * 0.5) + "px sans-serif";
  g.fillText([D.agent, "move " + at, extra].filter(Boolean).join("  "), canvas.width - CELL / 3, mid);
  if (at === F.length - 1 && (D.end === "win" || D.end === "lose")) {
    const text = D.end === "win" ? "YOU WIN!" : "GAME OVER";
    g.font = "bold " + Math.round(CELL * 1.2) + "px sans-serif"; g.textAlign = "center";
    const w = g.measureText(text).width + CELL;
    g.fillStyle = "rgba(0,0,0,0.78)"; g.fillRect(canvas.width / 2 - w / 2, H * CELL / 2 - CELL * 0.8, w, CELL * 1.6);
    g.fillStyle = D.end === "win" ? TH.score : TH.game_over; g.fillText(text, canvas.width / 2, H * CELL / 2);
  }
  document.getElementById("scrub").value = at;
  document.getElementById("pos").textContent = "move " + at + " of " + (F.length - 1) + (f.m ? " (" + (f.a === 0 ? "Pac-Man" : "ghost " + f.a) + " " + f.m + ")" : "");
}
function go(i) { at = Math.max(0, Math.min(F.length - 1, i)); draw(); if (at === F.length - 1) pause(); }
function tick() { go(at + 1); if (playing) timer = setTimeout(tick, 1000 * Math.max(0.005, D.frame_time || 0.1) / +document.getElementById("speed").value); }
function play() { if (at >= F.length - 1) at = 0; playing = true; document.getElementById("play").textContent = "pause"; clearTimeout(timer); timer = setTimeout(tick, 10); }
function pause() { playing = false; clearTimeout(timer); document.getElementById("play").textContent = "play"; }
document.getElementById("title").textContent = (D.agent ? D.agent + " on " : "") + D.layout + " \u00b7 " + (F.length - 1) + " moves \u00b7 " + D.end;
document.getElementById("scrub").max = F.length - 1;
document.getElementById("scrub").addEventListener("input", e => { pause(); go(+e.target.value); });
document.getElementById("play").addEventListener("click", () => playing ? pause() : play());
document.getElementById("back").addEventListener("click", () => { pause(); go(at - 1); });
document.getElementById("fwd").addEventListener("click", () => { pause(); go(at + 1); });
for (const id of ["vals", "marks"]) document.getElementById(id).addEventListener("change", draw);
document.addEventListener("keydown", e => {
  if (e.target.tagName === "INPUT" && e.target.type === "range") return;
  if (e.key === " ") { e.preventDefault(); playing ? pause() : play(); }
  else if (e.key === "ArrowRight") { pause(); go(at + 1); }
  else if (e.key === "ArrowLeft") { pause(); go(at - 1); }
  else if (e.key === "v" || e.key === "V") { const b = document.getElementById("vals"); b.checked = !b.checked; draw(); }
});
document.getElementById("vals").checked = !!D.values;
const asked = /^#(\d+)$/.exec(location.hash);  // replay.html#40 opens at move 40
go(asked ? +asked[1] : 0);
"""


def replay_page(data: dict[str, Any]) -> str:
    """The HTML page for a game's replay data (as :class:`HtmlReplay` collects it)."""
    title = f"{data.get('agent') or 'Pac-Man'} on {data['layout']}"
    return page(
        title,
        _STYLE,
        json_block("replay-data", data) + _BODY.format(title=html.escape(title)),
        _SCRIPT,
    )
