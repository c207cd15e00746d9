"""The page that draws a game on a canvas: the HTML replay's, and the live view's too.

It draws what the window draws (wall tubes, food, Pac-Man, the ghosts, the agents' marks, the
search overlay and the score bar) with the window's rules for text: the score at the left, the
caption at the right in smaller letters and then losing its first words; the values placed as
:mod:`pacman.view.labels` says. A narrow layout is drawn at least 600 pixels wide where the page
allows, a large one fits the page.

The script keeps to itself: it fetches nothing. The live view (:mod:`pacman.view.web`) adds its
own script after it, which feeds it through ``window.board``: ``load(data)`` a game (the replay's
data), ``push(frame, notes)`` a move, ``status(s)`` the game's pause and notices, ``finish(end)``
its end; ``board.keys``, when set, takes the keys first.
"""

from __future__ import annotations

STYLE = """
body{margin:0;background:#111;color:#eee;font:14px system-ui,-apple-system,"Segoe UI",sans-serif}
main{display:flex;flex-direction:column;align-items:center;padding:10px;gap:8px}
h1{font-size:15px;margin:0;font-weight:600}
canvas{max-width:100%;image-rendering:auto}
.bar{display:flex;gap:8px;align-items:center;flex-wrap:wrap;justify-content:center}
button,select{font:inherit;padding:2px 10px}
input[type=range]{width:min(560px,80vw)}
#pos{font-variant-numeric:tabular-nums;min-width:16em;text-align:center}
.hint{color:#999;font-size:12px}
"""

BODY = """
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
<div class="hint" id="hint">space plays or pauses, arrows step, V shows the search overlay</div></main>
"""

# The rules of pacman.view.labels and of draw.py's score bar, with the browser's fonts.
SCRIPT = r"""
"use strict";
const $ = id => document.getElementById(id);
const canvas = $("board"), g = canvas.getContext("2d");
const board = window.board = {keys: null, live: null};
let D = null, F = [], W = 0, H = 0, CELL = 30, BAR = 36, maze = null;
let foodAt = [], capsAt = [], notesAt = [], movesAt = [], food = null, caps = null, note = null;
let at = 0, playing = false, timer = null;
const key = (x, y) => x + "," + y;
const isWall = (x, y) => x >= 0 && y >= 0 && x < W && y < H && D.walls[H - 1 - y][x] === "%";
const cx = x => (x + 0.5) * CELL, cy = y => (H - 1 - y + 0.5) * CELL;
function fitCell() {  // the page's width and height; narrow layouts at least 600 pixels wide
  const byWidth = Math.floor((window.innerWidth - 30) / W);
  const byHeight = Math.floor((window.innerHeight - 150) / (H + 1.2));
  return Math.max(8, Math.min(byWidth, byHeight, Math.max(30, Math.ceil(600 / W))));
}
function paintMaze() {  // once per size, as the window paints it: outlined tubes on the walls
  maze = document.createElement("canvas"); maze.width = W * CELL; maze.height = H * CELL;
  const m = maze.getContext("2d"), outer = Math.round(CELL * 0.3), line = Math.max(1, Math.round(CELL * 0.075));
  m.fillStyle = D.theme.background; m.fillRect(0, 0, maze.width, maze.height);
  for (const [color, r] of [[D.theme.wall, outer], [D.theme.wall_fill, outer - line]]) {
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
}
function resize() {
  if (!D) return;
  CELL = fitCell(); BAR = Math.max(12, Math.round(CELL * 1.2));
  canvas.width = W * CELL; canvas.height = H * CELL + BAR; paintMaze(); draw();
}
function addFrame(f, n) {  // food, capsules and notes at each frame, from the eaten lists
  if (n) D.notes[f.n] = n;
  if (f.e) { food = new Set(food); for (const [x, y] of f.e) food.delete(key(x, y)); }
  if (f.c) { caps = new Set(caps); for (const [x, y] of f.c) caps.delete(key(x, y)); }
  if (f.n !== undefined) note = D.notes[f.n];
  F.push(f); foodAt.push(food); capsAt.push(caps); notesAt.push(note);
  movesAt.push((movesAt.length ? movesAt[movesAt.length - 1] : 0) + (f.a === 0 ? 1 : 0));  // Pac-Man's
}
board.go = i => go(i);
board.frame = () => F[at];  // what is shown: agents (x, y, facing, scared), score
board.frames = () => F;
board.last = () => F.length - 1;
board.load = function (data) {
  pause(); at = 0; D = data; W = D.width; H = D.height; F = []; foodAt = []; capsAt = []; notesAt = []; movesAt = [];
  food = new Set(D.food.map(([x, y]) => key(x, y))); caps = new Set(D.capsules.map(([x, y]) => key(x, y)));
  note = null; D.notes = D.notes || [];
  for (const f of data.frames) addFrame(f);
  $("vals").checked = !!D.values; $("scrub").max = F.length - 1; title(); resize();
};
board.push = function (f, n) {
  const following = at >= F.length - 1;  // a page scrolled back stays where it was
  addFrame(f, n); $("scrub").max = F.length - 1; title();
  if (following) go(F.length - 1);
};
board.finish = function (end) { D.end = end; title(); draw(); };
board.status = function () { draw(); };
const FACING = {East: 0, North: 90, West: 180, South: 270};
const LOOK = {East: [1, 0], West: [-1, 0], North: [0, -1], South: [0, 1]};
function pacman(x, y, facing, mouth) {
  const r = CELL * 0.45, half = 5 + 40 * mouth, a = (FACING[facing] || 0), rad = Math.PI / 180;
  g.fillStyle = D.theme.pacman; g.beginPath(); g.moveTo(cx(x), cy(y));
  // Canvas angles turn clockwise (y grows down): the mouth is centred on -a.
  g.arc(cx(x), cy(y), r, (-a + half) * rad, (-a - half + 360) * rad, false);
  g.closePath(); g.fill();
}
function ghost(index, x, y, facing, timer) {
  const TH = D.theme, X = cx(x), Y = cy(y), r = CELL * 0.42, head = Y - CELL * 0.06, bottom = Y + CELL * 0.42;
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
function valueText(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "?";
  return Math.abs(v) >= 10 || Number.isInteger(v) ? v.toFixed(0) : v.toFixed(1);
}
function shortValue(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return valueText(v);
  for (const [unit, scale] of [["M", 1e6], ["k", 1e3]]) if (Math.abs(v) >= scale * 0.9995) {
    const s = v / scale; return (Math.abs(s) < 9.95 ? s.toFixed(1) : s.toFixed(0)).replace(/\.0$/, "") + unit;
  }
  return valueText(v);
}
const SCREEN = {North: [0, -1], South: [0, 1], East: [1, 0], West: [-1, 0], Stop: [0, 0]};
const overlaps = (a, b) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
const inside = (a, b) => a[0] >= b[0] && a[1] >= b[1] && a[0] + a[2] <= b[0] + b[2] && a[1] + a[3] <= b[1] + b[3];
function placeLabels(values, origin, agents, marks) {  // pacman.view.labels.place_labels
  const around = (x, y, half) => [cx(x) - half, cy(y) - half, 2 * half, 2 * half];
  const zone = Math.max(1, Math.round(CELL * 0.3)), reach = Math.ceil(CELL * 0.46);
  const gap = Math.max(3, Math.floor(CELL / 8));
  // Each agent where it is and where it came from (the page slides it between them too).
  const bodies = [];
  for (const [x, y, facing] of agents) {
    const [lx, ly] = LOOK[facing] || [0, 0];
    bodies.push(around(x, y, reach)); if (lx || ly) bodies.push(around(x - lx, y + ly, reach));
  }
  const marked = (marks || []).map(([x, y]) => around(x, y, Math.floor(CELL / 2)));
  const onWalls = b => {
    for (let x = Math.floor(b[0] / CELL); x <= Math.floor((b[0] + b[2] - 1) / CELL); x++)
      for (let row = Math.floor(b[1] / CELL); row <= Math.floor((b[1] + b[3] - 1) / CELL); row++)
        if (isWall(x, H - 1 - row) && overlaps(b, around(x, H - 1 - row, zone))) return true;
    return false;
  };
  const placed = [], mazeBox = [0, 0, W * CELL, H * CELL], half = Math.floor(CELL / 2);
  const free = b => inside(b, mazeBox) && !bodies.some(o => overlaps(b, o)) &&
    !placed.some(p => overlaps([b[0] - gap, b[1] - gap, b[2] + 2 * gap, b[3] + 2 * gap], p.box));
  const checks = [b => !onWalls(b) && !marked.some(m => overlaps(b, m)), b => !onWalls(b), () => true];
  // Browser pixels: 14-pixel letters have capitals 10 pixels tall, as the window's smallest.
  const sizes = [Math.max(14, Math.round(CELL * 0.45))];
  while (sizes[sizes.length - 1] > 14) sizes.push(Math.max(14, Math.round(sizes[sizes.length - 1] * 0.8)));
  for (const [act, v] of Object.entries(values)) {
    const [sx, sy] = SCREEN[act] || [0, 0], X = cx(origin[0] + sx), Y = cy(origin[1] - sy);
    const across = [[-sy, sx], [sy, -sx]], beside = across.map(([ax, ay]) => [ax * half, ay * half]);
    const spots = sx || sy
      ? [[0, 0], [sx * half, sy * half], ...beside, ...beside.map(([ox, oy]) => [sx * half + ox, sy * half + oy]),
         ...across.map(([ax, ay]) => [ax * CELL, ay * CELL]), [sx * CELL, sy * CELL],
         ...beside.map(([ox, oy]) => [sx * CELL + ox, sy * CELL + oy])]
      : [[0, half], [0, -half], [0, 0], [0, CELL], [0, -CELL], [-CELL, half], [CELL, half]];
    const texts = [...new Set([(act === "Stop" ? "Stop " : act[0] + " ") + valueText(v), valueText(v), shortValue(v)])];
    let found = null;
    for (const clear of checks) {
      for (const size of sizes) { g.font = size + "px sans-serif";
        for (const text of texts) { const w = Math.ceil(g.measureText(text).width) + 4, h = Math.round(size * 0.75) + 2;
          for (const [ox, oy] of spots) {
            const b = [Math.round(X + ox - w / 2), Math.round(Y + oy - h / 2), w, h];
            if (free(b) && clear(b)) { found = {act, text, size, box: b}; break; }
          }
          if (found) break; }
        if (found) break; }
      if (found) break;
    }
    if (found) placed.push(found);
  }
  return placed;
}
function overlay(n) {  // the paths, under the agents (the labels go over them)
  const s = n.search; if (!s) return "";
  const paths = s.paths || [];
  for (let a = paths.length - 1; a >= 0; a--) {
    const p = paths[a]; if (!p || p.length < 2) continue;
    g.strokeStyle = a === 0 ? "#ff8c00" : D.theme.ghosts[(a - 1) % D.theme.ghosts.length];
    g.lineWidth = a === 0 ? Math.max(2, CELL / 6) : Math.max(1, CELL / 14);
    g.beginPath(); g.moveTo(cx(p[0][0]), cy(p[0][1])); for (const [x, y] of p.slice(1)) g.lineTo(cx(x), cy(y)); g.stroke();
  }
  return s.depth === null ? "" : "depth " + s.depth + ", " + s.nodes + " nodes";
}
function drawLabels(s, labels) {
  g.textAlign = "center"; g.textBaseline = "middle";
  for (const l of labels) {
    g.fillStyle = "#000"; g.fillRect(...l.box);  // opaque: nothing shows through a value
    g.font = l.size + "px sans-serif"; g.fillStyle = l.act === s.action ? "#ff8c00" : D.theme.text;
    g.fillText(l.text, l.box[0] + l.box[2] / 2, l.box[1] + l.box[3] / 2 + 1);
  }
}
function fitted(text, size, width, bold) {  // draw.py's _fitted: smaller, then its first words out
  const font = s => { g.font = (bold ? "bold " : "") + s + "px sans-serif"; };
  font(size);
  while (size > 14 && g.measureText(text).width > width) font(--size);
  const words = text.split(/\s+/).filter(Boolean), options = [text];
  for (let i = 1; i < words.length; i++) options.push("\u2026" + words.slice(i).join(" "));
  const last = words.length ? words[words.length - 1] : "";
  for (let c = 1; c < last.length; c++) options.push("\u2026" + last.slice(c));
  return options.find(o => g.measureText(o).width <= width) || "";
}
function scoreBar(score, caption) {  // draw.py's _draw_score_bar
  const mid = H * CELL + BAR / 2, pad = Math.max(2, Math.floor(CELL / 3)), room = canvas.width - 2 * pad;
  const scoreText = "SCORE " + (Number.isInteger(score) ? score : +score.toFixed(2));
  const words = caption.split(/\s+/).filter(Boolean);
  g.font = "14px sans-serif";  // the caption whole in the smallest letters, up to half the bar
  const tail = g.measureText("\u2026" + words.slice(-2).join(" ")).width;
  const need = words.length ? Math.max(tail, Math.min(g.measureText(caption).width, room / 2)) + pad : 0;
  let size = Math.max(10, Math.round(BAR * 0.75));
  g.font = "bold " + size + "px sans-serif";
  while (size > 10 && g.measureText(scoreText).width + need > room) g.font = "bold " + (--size) + "px sans-serif";
  g.textBaseline = "middle"; g.textAlign = "left"; g.fillStyle = D.theme.score;
  const shown = fitted(scoreText, size, room, true), used = g.measureText(shown).width;
  g.fillText(shown, pad, mid);
  const beside = room - used - pad;
  if (!caption || beside <= 0) return;
  const text = fitted(caption, Math.max(9, Math.round(BAR * 0.6)), beside, false);
  g.textAlign = "right"; g.fillStyle = D.theme.text; g.fillText(text, pad + room, mid);
}
function placeBanner(text, values, agents) {  // draw.py's _place_banner
  const largest = Math.max(10, Math.round(CELL * 1.4)), least = Math.max(14, Math.floor(CELL / 2));
  const sizes = [largest];  // smaller letters where the large ones would hide an agent or a value
  while (sizes[sizes.length - 1] > least) sizes.push(Math.max(least, Math.round(sizes[sizes.length - 1] * 0.8)));
  const shown = sizes.map(start => {
    let size = start, w = 0;
    do { g.font = "bold " + size + "px sans-serif"; w = g.measureText(text).width + CELL; } while (w > W * CELL && --size > 8);
    const h = size + Math.floor(CELL / 2);
    return {text, size, box: [W * CELL / 2 - w / 2, H * CELL / 2 - h / 2, w, h]};
  });
  const step = Math.max(1, Math.floor(CELL / 2));
  const offsets = spare => { const o = []; for (let d = 0; d <= spare / 2; d += step) { o.push(d); if (d) o.push(-d); } return o; };
  for (const clearOf of [agents.concat(values), agents])  // hiding no agent, no value if it can
    for (const {size, box: [x0, y0, w, h]} of shown)
      for (const dx of offsets(Math.max(0, W * CELL - w))) for (const dy of offsets(Math.max(0, H * CELL - h))) {
        const box = [x0 + dx, y0 + dy, w, h];
        if (!clearOf.some(o => overlaps(box, o))) return {text, size, box};
      }
  return shown[0];
}
function paintBanner(b, color) {
  g.fillStyle = "rgba(0,0,0,0.78)"; g.fillRect(...b.box); g.font = "bold " + b.size + "px sans-serif";
  g.textAlign = "center"; g.textBaseline = "middle"; g.fillStyle = color; g.fillText(b.text, b.box[0] + b.box[2] / 2, b.box[1] + b.box[3] / 2);
}
function draw() {
  if (!D || !F.length) return;
  const f = F[at], TH = D.theme, live = board.live;
  g.fillStyle = TH.background; g.fillRect(0, 0, canvas.width, canvas.height);
  g.drawImage(maze, 0, 0);
  const n = notesAt[at];
  if (n && n.marks && $("marks").checked) for (const [x, y, c] of n.marks) {
    if (x < 0 || y < 0 || x >= W || y >= H) continue;
    g.globalAlpha = 0.43; g.fillStyle = c; g.fillRect(cx(x) - CELL / 2, cy(y) - CELL / 2, CELL, CELL);
    g.globalAlpha = 1; g.strokeStyle = c; g.lineWidth = Math.max(1, Math.floor(CELL / 12));
    g.strokeRect(cx(x) - CELL / 2, cy(y) - CELL / 2, CELL, CELL);
  }
  g.fillStyle = TH.food;
  for (const k of foodAt[at]) { const [x, y] = k.split(",").map(Number); g.beginPath(); g.arc(cx(x), cy(y), Math.max(1, CELL * 0.1), 0, 7); g.fill(); }
  g.fillStyle = TH.capsule;
  for (const k of capsAt[at]) { const [x, y] = k.split(",").map(Number); g.beginPath(); g.arc(cx(x), cy(y), Math.max(2, CELL * 0.25), 0, 7); g.fill(); }
  let found = "";  // as in the window: paths under the agents, values over them
  const shown = n && $("vals").checked;
  if (shown) found = overlay(n);
  for (let i = 1; i < f.p.length; i++) ghost(i, f.p[i][0], f.p[i][1], f.p[i][2], f.p[i][3]);
  pacman(f.p[0][0], f.p[0][1], f.p[0][2], movesAt[at] % 2 === 0 ? 1 : 0.3);
  const paths = shown && n.search ? n.search.paths || [] : [];
  let labels = paths.length ? placeLabels(n.search.values, paths[0][0], f.p, n.marks) : [];
  const won = at === F.length - 1 && (D.end === "win" || D.end === "lose");
  const said = won ? (D.end === "win" ? "YOU WIN!" : "GAME OVER") : live && live.paused ? "PAUSED" : "";
  const agents = f.p.map(([x, y]) => [cx(x) - CELL / 2, cy(y) - CELL / 2, CELL, CELL]);
  const placed = said ? placeBanner(said, labels.map(l => l.box), agents) : null;
  if (placed) labels = labels.filter(l => !overlaps(l.box, placed.box));  // under it: left out
  if (labels.length) drawLabels(n.search, labels);
  const caption = [D.agent, "move " + at];
  if (live && live.paused) caption.push("space resumes, right arrow steps");
  if (live && live.notice) caption.push(live.notice);
  if (found) caption.push(found);
  scoreBar(f.s, caption.filter(Boolean).join("  "));
  if (placed) paintBanner(placed, won ? (D.end === "win" ? TH.score : TH.game_over) : TH.text);
  $("scrub").value = at;
  const score = Number.isInteger(f.s) ? f.s : +f.s.toFixed(2);
  $("pos").textContent = "move " + at + " of " + (F.length - 1) + " \u00b7 score " + score +
    (f.m ? " \u00b7 " + (f.a === 0 ? "Pac-Man" : "ghost " + f.a) + " " + f.m : "");
}
function title() {
  const end = D.end ? " \u00b7 " + D.end : board.live ? " \u00b7 live" : "";
  $("title").textContent = (D.agent ? D.agent + " on " : "") + D.layout + " \u00b7 " + (F.length - 1) + " moves" + end;
}
function go(i) { at = Math.max(0, Math.min(F.length - 1, i)); draw(); if (at === F.length - 1) pause(); }
function tick() { go(at + 1); if (playing) timer = setTimeout(tick, 1000 * Math.max(0.005, D.frame_time || 0.1) / +$("speed").value); }
function play() { if (at >= F.length - 1) at = 0; playing = true; $("play").textContent = "pause"; clearTimeout(timer); timer = setTimeout(tick, 10); }
function pause() { playing = false; clearTimeout(timer); $("play").textContent = "play"; }
$("scrub").addEventListener("input", e => { pause(); go(+e.target.value); });
$("play").addEventListener("click", () => playing ? pause() : play());
$("back").addEventListener("click", () => { pause(); go(at - 1); });
$("fwd").addEventListener("click", () => { pause(); go(at + 1); });
for (const id of ["vals", "marks"]) $(id).addEventListener("change", draw);
window.addEventListener("resize", resize);
document.addEventListener("keydown", e => {
  if (e.key === "v" || e.key === "V") { const b = $("vals"); b.checked = !b.checked; draw(); return; }
  if (board.keys && board.keys(e)) { e.preventDefault(); return; }
  if (e.target.tagName === "INPUT" && e.target.type === "range") return;
  if (e.key === " ") { e.preventDefault(); playing ? pause() : play(); }
  else if (e.key === "ArrowRight") { pause(); go(at + 1); }
  else if (e.key === "ArrowLeft") { pause(); go(at - 1); }
});
document.addEventListener("keyup", e => { if (board.keysUp) board.keysUp(e); });
const embedded = JSON.parse($("replay-data").textContent);
if (embedded.frames) {
  board.load(embedded);
  const asked = /^#(\d+)$/.exec(location.hash);  // replay.html#40 opens at move 40
  go(asked ? +asked[1] : 0);
}
"""
