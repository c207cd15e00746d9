"""A search tree as one self-contained HTML page, drawn as lecture notes draw game trees.

MAX nodes are upward triangles, MIN nodes downward ones, chance nodes circles
and evaluated leaves squares; each shows its value, its number in expansion
order above it and, for alpha-beta, the alpha and beta it was searched with.
Pruned actions hang off their node as short dashed stubs crossed out; the
chosen action and the principal variation are drawn thick. Hovering a node
shows its game state and numbers; a click folds or unfolds it. Trees of
thousands of nodes open folded below the ply that keeps a few hundred nodes in
view; "unfold to ply", "fold all" and a search box (node number ``#12``, an
action, or text of a state) find the rest.

An optional ``compare`` overlay (used by the grader's report) marks nodes as
expected-only, student-only or the first divergence.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from pacman.view.html import json_block, page
from pacman.view.tree_model import TreeModel

__all__ = ["tree_page"]

_STYLE = """
body{margin:0;font:14px system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;background:#fafaf7;
display:flex;flex-direction:column;height:100vh}
header{padding:8px 12px;border-bottom:1px solid #ccc;background:#fff}
header h1{font-size:16px;margin:0 0 4px}
.bar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin-top:6px}
.bar input[type=search]{width:16em}.bar input[type=number]{width:4em}
button{font:inherit;padding:2px 8px}
#main{flex:1;display:flex;min-height:0}
#view{flex:1;overflow:auto;background:#fff}
#side{width:300px;border-left:1px solid #ccc;padding:8px;overflow:auto;background:#fcfcfa}
#side pre{font:12px/1.15 ui-monospace,Menlo,Consolas,monospace;background:#111;color:#eee;
padding:6px;overflow:auto}
.legend svg{vertical-align:middle}
.pv{color:#d35400;font-weight:600}
svg text{font-family:system-ui,sans-serif}
.edge{stroke:#888;stroke-width:1.2;fill:none}
.edge.pv{stroke:#e67e22;stroke-width:4}
.act{font-size:10px;fill:#555}
.act.pv{fill:#c0392b;font-weight:700}
.prob{font-size:9px;fill:#2e7d32}
.cut{stroke:#bbb;stroke-dasharray:3 3;stroke-width:1.2}
.cutx{stroke:#c0392b;stroke-width:2}
.cutl{font-size:10px;fill:#aaa}
.node{cursor:pointer}
.node .shape{stroke:#333;stroke-width:1.2}
.max .shape{fill:#d6e4ff}.min .shape{fill:#ffd9d6}.chance .shape{fill:#dff5e1}
.leaf .shape{fill:#fff3c4}
.node.onpv .shape{stroke:#e67e22;stroke-width:3}
.node.sel .shape{stroke:#000;stroke-width:3.5}
.node.hit .shape{fill:#ffe066}
.node.extra .shape{fill:#ff8a80}.node.missing .shape{fill:#eee;stroke-dasharray:3 2}
.node.diverge .shape{stroke:#8e24aa;stroke-width:4}
.val{font-size:12px;font-weight:600;text-anchor:middle;pointer-events:none}
.num{font-size:9px;fill:#777;pointer-events:none}
.name{font-size:10px;fill:#333;text-anchor:middle;font-style:italic;pointer-events:none}
.ab{font-size:9px;fill:#1565c0;pointer-events:none}
.visits{font-size:9px;fill:#2e7d32;text-anchor:middle;pointer-events:none}
.note{color:#b71c1c;font-weight:600}
.more{font-size:10px;fill:#8e24aa;text-anchor:middle}
"""

_BODY = """
<header><h1 id="title">{title}</h1><div id="summary"></div>
<div class="bar">
<input type="search" id="find" placeholder="find: #12, an action, a state">
<button id="next">find next</button><span id="found"></span>
<label>unfold to ply <input type="number" id="ply" min="0"></label>
<button id="fold">fold all</button><button id="unfold">unfold all</button>
<span class="legend" id="legend"></span></div></header>
<div id="main"><div id="view"><svg id="svg"></svg></div>
<div id="side"><div id="info">Hover a node to see its state; click to fold or unfold it.</div></div></div>
"""

_SCRIPT = r"""
"use strict";
const T = JSON.parse(document.getElementById("tree-data").textContent);
const N = T.nodes, kids = N.map(() => []);
for (const n of N) if (n.parent !== null && n.parent !== undefined) kids[n.parent].push(n.id);
const onPV = new Set(T.pv || []), pvEdge = new Set(), pvNext = {};
for (let i = 1; i < (T.pv || []).length; i++) { pvEdge.add(T.pv[i]); pvNext[T.pv[i - 1]] = T.pv[i]; }
// A chosen line too wide for the page is drawn straight down: each of its nodes over the next.
let straight = false, shown = {x: {}};
const cmp = T.compare || {};
const mark = {};
for (const [k, ids] of Object.entries(cmp.marks || {})) for (const id of ids) (mark[id] = mark[id] || []).push(k);
const SVGNS = document.getElementById("svg").namespaceURI;  // no URL written in the file
const SLOT = 66, TOP = 40, LEFT = 40, R = 16, TALLEST = 76, FLATTEST = 48;
let LAYER = TALLEST;  // the distance between plies: less where the chosen line needs it (open)
const HALF = {leaf: 1.4 * R, chance: R, max: 1.485 * R, min: 1.485 * R};  // each shape's half width
const folded = new Set();
let selected = null, hits = [], hitAt = -1;
function exact(v) {  // what hovering a node says of its value
  if (typeof v !== "number") return fmt(v);
  return String(v).replace("-", "\u2212");
}
function shortValue(v) {  // pacman.view.labels.short_value
  if (typeof v !== "number" || !Number.isFinite(v)) return fmt(v);
  for (const [unit, scale] of [["M", 1e6], ["k", 1e3]]) if (Math.abs(v) >= scale * 0.9995) {
    const s = v / scale; return (Math.abs(s) < 9.95 ? s.toFixed(1) : s.toFixed(0)).replace(/\.0$/, "").replace("-", "\u2212") + unit;
  }
  return fmt(Math.round(v));
}
// Where a value sits in its shape, and how wide it may be there: a triangle's wide end.
const WIDE = 0.75 * 1.35 * R - 8;  // a triangle's wide end, less half a line of 12-pixel letters
const VALUE = {leaf: [0, 2 * HALF.leaf - 6], chance: [0, 1.6 * R], max: [WIDE, 1.75 * R], min: [-WIDE, 1.75 * R]};
function fitValue(g, n, v) {  // the longest text and largest letters that fit inside the shape
  const [y, room] = VALUE[kindOf(n)];
  const t = el("text", {class: "val", y, "dominant-baseline": "central"}, g);
  // Every digit while 10-pixel letters hold them, then the value shortened (1.2k).
  const whole = typeof v === "number" ? fmt(Math.round(v)) : fmt(v);
  const tries = [[fmt(v), [12, 11, 10]], [whole, [12, 11, 10]], [shortValue(v), [12, 11, 10, 9]]];
  for (const [text, sizes] of tries) for (const size of sizes) {
    t.textContent = text; t.style.fontSize = size + "px";
    if (t.getComputedTextLength() <= room) return t;
  }
  return t;  // at 9 pixels, as short as it goes
}
function fmt(v) {
  if (v === null || v === undefined) return "?";
  if (v === "inf") return "\u221e"; if (v === "-inf") return "\u2212\u221e"; if (v === "nan") return "NaN";
  const r = Math.round(v * 100) / 100; return String(r).replace("-", "\u2212");
}
const texts = {};
function stateOf(id) {  // a board is stored as the lines that differ from its parent's
  if (id in texts) return texts[id];
  const n = N[id];
  let t = null;
  if (n.state !== undefined) t = n.state;
  else if (n.lines !== undefined && n.parent !== null) {
    const up = stateOf(n.parent);
    if (up !== null) {
      const ls = up.split("\n");
      if (n.nlines !== undefined) ls.length = n.nlines;
      for (const [i, line] of n.lines) ls[i] = line;
      t = ls.join("\n");
    }
  }
  return (texts[id] = t);
}
function count(id) { let c = 0; const st = [id]; while (st.length) { const x = st.pop(); c++; st.push(...kids[x]); } return c; }
function foldTo(ply) {
  folded.clear();
  for (const n of N) if (n.ply >= ply && kids[n.id].length) folded.add(n.id);
}
function autoPly() {
  const per = []; for (const n of N) per[n.ply] = (per[n.ply] || 0) + 1;
  let total = 0, ply = 0;
  for (let p = 0; p < per.length; p++) { total += per[p] || 0; if (total > 400 && p > 1) break; ply = p; }
  return ply;
}
function el(tag, attrs, parent, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e); return e;
}
const kindOf = n => n.leaf ? "leaf" : n.kind;
function shape(g, n) {
  if (n.leaf) return el("rect", {class: "shape", x: -HALF.leaf, y: -R * 0.8, width: 2 * HALF.leaf, height: 1.6 * R}, g);
  if (n.kind === "chance") return el("circle", {class: "shape", r: R}, g);
  const h = R * 1.35;
  const pts = n.kind === "max" ? [[0, -h], [h * 1.1, h * 0.75], [-h * 1.1, h * 0.75]]
                               : [[0, h], [h * 1.1, -h * 0.75], [-h * 1.1, -h * 0.75]];
  return el("polygon", {class: "shape", points: pts.map(p => p.join(",")).join(" ")}, g);
}
function layout() {
  const x = {}; let slot = 0, maxPly = 0;
  const st = [[0, false]];
  while (st.length) {  // children before their parent, without recursion (deep trees)
    const [id, done] = st.pop(), n = N[id];
    const open = kids[id].length && !folded.has(id);
    maxPly = Math.max(maxPly, n.ply);
    if (!done && open) { st.push([id, true]); for (let i = kids[id].length - 1; i >= 0; i--) st.push([kids[id][i], false]); continue; }
    const stubs = (n.pruned || []).length;
    if (open) {
      const a = x[kids[id][0]], b = x[kids[id][kids[id].length - 1]];
      x[id] = (a + b) / 2;
      x["s" + id] = []; for (let i = 0; i < stubs; i++) { x["s" + id].push(slot); slot += 0.7; }
      if (stubs) x[id] = (a + x["s" + id][stubs - 1]) / 2;
      if (straight && pvNext[id] !== undefined && onPV.has(id)) x[id] = x[pvNext[id]];
    } else {
      x[id] = slot + 0.5 * 0.7 * stubs; x["s" + id] = [];
      for (let i = 0; i < stubs; i++) x["s" + id].push(slot + i * 0.7 + 0.35);
      slot += Math.max(1, 0.7 * stubs);
    }
  }
  return {x, slots: slot, maxPly};
}
function draw() {
  const svg = document.getElementById("svg");
  svg.textContent = "";
  const {x, slots, maxPly} = shown = layout();
  const W = LEFT * 2 + slots * SLOT + 120, H = TOP + (maxPly + 1) * LAYER + 30;
  svg.setAttribute("width", W); svg.setAttribute("height", H);
  const edges = el("g", {}, svg), nodes = el("g", {}, svg);
  const px = id => LEFT + x[id] * SLOT, py = n => TOP + n.ply * LAYER;
  const st = [0];
  while (st.length) {
    const id = st.pop(), n = N[id], X = px(id), Y = py(n);
    const open = kids[id].length && !folded.has(id);
    if (open) for (const c of kids[id]) {
      const m = N[c], cx = px(c), cy = py(m), pv = pvEdge.has(c) && onPV.has(id);
      el("line", {class: "edge" + (pv ? " pv" : ""), x1: X, y1: Y + R, x2: cx, y2: cy - R}, edges);
      const label = m.action;
      // The label near the child's end of the edge, on the outer side, so siblings' labels part.
      const t = 0.62, lx = X + (cx - X) * t, ly = Y + R + (cy - R - Y - R) * t;
      const side = Math.abs(cx - X) < 4 ? 1 : Math.sign(cx - X);
      el("text", {class: "act" + (pv ? " pv" : ""), x: lx + 4 * side, y: ly, "text-anchor": side < 0 ? "end" : "start"}, edges, label);
      // A chance edge's probability goes under its action, keeping labels narrow.
      if (m.p !== undefined) el("text", {class: "prob", x: lx + 4 * side, y: ly + 10, "text-anchor": side < 0 ? "end" : "start"}, edges, "p " + fmt(m.p));
      st.push(c);
    }
    (n.pruned || []).forEach((a, i) => {
      const sx = LEFT + x["s" + id][i] * SLOT, sy = Y + LAYER * 0.6;
      const mx = (X + sx) / 2, my = (Y + R + sy) / 2;
      el("line", {class: "cut", x1: X, y1: Y + R, x2: sx, y2: sy}, edges);
      el("line", {class: "cutx", x1: mx - 6, y1: my - 2, x2: mx + 2, y2: my + 6}, edges);
      el("line", {class: "cutx", x1: mx - 2, y1: my - 6, x2: mx + 6, y2: my + 2}, edges);
      const t = el("text", {class: "cutl", x: sx, y: sy + 11, "text-anchor": "middle"}, edges, a);
      el("title", {}, t, "pruned: " + a + " was never expanded");
    });
    const cls = ["node", n.leaf ? "leaf" : n.kind];
    if (onPV.has(id)) cls.push("onpv"); if (id === selected) cls.push("sel");
    if (hits.includes(id)) cls.push("hit"); if (mark[id]) cls.push(...mark[id]);
    const g = el("g", {class: cls.join(" "), transform: `translate(${X},${Y})`, "data-id": id}, nodes);
    shape(g, n);
    const value = n.visits !== undefined && n.mean !== undefined ? n.mean : n.value;
    fitValue(g, n, value);
    el("title", {}, g, "#" + id + ": " + exact(value) + (n.visits !== undefined ? ", n " + n.visits : ""));
    el("text", {class: "num", x: -HALF[kindOf(n)] - 2, y: -R + 2, "text-anchor": "end"}, g, "#" + id);
    if (n.state && n.state.length <= 10 && !n.state.includes("\n")) el("text", {class: "name", y: R + 12}, g, n.state);
    if (n.alpha !== undefined && !n.leaf) el("text", {class: "ab", x: R + 5, y: -3}, g, "\u03b1 " + fmt(n.alpha));
    if (n.beta !== undefined && !n.leaf) el("text", {class: "ab", x: R + 5, y: 8}, g, "\u03b2 " + fmt(n.beta));
    // The visit count under the node, apart from the value inside it.
    if (n.visits !== undefined) el("text", {class: "visits", y: R + 12}, g, "n " + n.visits);
    if (kids[id].length && folded.has(id)) el("text", {class: "more", y: R + 24}, g, "+" + (count(id) - 1));
    g.addEventListener("mouseenter", () => show(id));
    g.addEventListener("click", () => { selected = id; if (kids[id].length) { if (folded.has(id)) folded.delete(id); else folded.add(id); } draw(); show(id); });
  }
}
function path(id) { const p = []; while (id !== null && id !== undefined) { p.push(id); id = N[id].parent; } return p.reverse(); }
function show(id) {
  const n = N[id], info = document.getElementById("info");
  const who = n.agent === 0 ? "Pac-Man" : "ghost " + n.agent;
  const rows = [["node", "#" + id + " (ply " + n.ply + ")"], ["type", n.leaf ? "leaf (evaluated)" : n.kind.toUpperCase() + ", " + who + " to move"],
    ["path", path(id).slice(1).map(i => N[i].action).join(" ") || "(root)"], ["value", fmt(n.value)]];
  if (n.alpha !== undefined) rows.push(["\u03b1, \u03b2", fmt(n.alpha) + ", " + fmt(n.beta)]);
  if (n.p !== undefined) rows.push(["probability", fmt(n.p)]);
  if (n.visits !== undefined) rows.push(["visits", n.visits]);
  if (n.mean !== undefined) rows.push(["mean value", fmt(n.mean)]);
  if (n.terminal) rows.push(["terminal", n.terminal]);
  if (n.pruned) rows.push(["pruned", n.pruned.join(", ")]);
  rows.push(["children", kids[id].length + (kids[id].length ? " (" + (count(id) - 1) + " below)" : "")]);
  if (cmp.notes && cmp.notes[id]) rows.push(["grader", cmp.notes[id]]);
  info.textContent = "";
  const tbl = document.createElement("table");
  for (const [k, v] of rows) { const tr = tbl.insertRow(); tr.insertCell().textContent = k; tr.insertCell().textContent = v; }
  info.appendChild(tbl);
  const st = stateOf(id);
  if (st) info.appendChild(board(st));
}
const INK = {"%": "#4a6cf7", ".": "#ffb897", "o": "#ffb897", "G": "#ff4d4d", "^": "#ffd400",
  "v": "#ffd400", "<": "#ffd400", ">": "#ffd400", "P": "#ffd400"};
function board(text) {  // a state's text, its walls, food, ghosts and Pac-Man coloured
  const pre = document.createElement("pre");
  if (!text.includes("\n")) { pre.textContent = text; return pre; }
  let run = "", ink = null;
  const flush = () => { if (!run) return; const s = document.createElement("span");
    if (ink) s.style.color = ink; s.textContent = run; pre.appendChild(s); run = ""; };
  for (const line of text.split("\n")) {
    const plain = /^[%.oG^v<>P ]+$/.test(line);
    for (const ch of line + "\n") { const c = plain ? (INK[ch] || null) : null; if (c !== ink) { flush(); ink = c; } run += ch; }
  }
  flush(); return pre;
}
function find() {
  const q = document.getElementById("find").value.trim().toLowerCase();
  if (!q) { hits = []; hitAt = -1; document.getElementById("found").textContent = ""; draw(); return; }
  if (/^#\d+$/.test(q)) hits = N[+q.slice(1)] ? [+q.slice(1)] : [];
  else hits = N.filter(n => (n.action || "").toLowerCase() === q || (stateOf(n.id) || "").toLowerCase().includes(q)).map(n => n.id);
  hitAt = (hitAt + 1) % Math.max(1, hits.length);
  document.getElementById("found").textContent = hits.length ? (hitAt + 1) + " of " + hits.length : "no match";
  if (hits.length) { const id = hits[hitAt]; for (const a of path(id).slice(0, -1)) folded.delete(a); selected = id; draw(); show(id); reveal(id); }
  else draw();
}
function reveal(id) {
  const g = document.querySelector(`[data-id="${id}"]`); if (!g) return;
  const b = g.getBoundingClientRect(), v = document.getElementById("view"), r = v.getBoundingClientRect();
  v.scrollLeft += b.left - r.left - r.width / 2; v.scrollTop += b.top - r.top - r.height / 2;
}
document.getElementById("title").textContent = T.title || "search tree";
const pvActs = (T.pv || []).slice(1).map(i => N[i].action);
const sum = document.getElementById("summary");
sum.textContent = (T.agent || "search") + " \u00b7 " + T.algorithm + (T.depth ? " \u00b7 depth " + T.depth : "") +
  " \u00b7 " + N.length + " nodes" + (T.algorithm === "mcts" ? "" : " (" + (N.length - 1) + " successor calls)") + " \u00b7 chose ";
const b = document.createElement("span"); b.className = "pv"; b.textContent = (T.action || "?") + " = " + fmt(N[0].value); sum.appendChild(b);
sum.appendChild(document.createTextNode(" \u00b7 principal variation: " + (pvActs.join(" ") || "-")));
if (T.note) { const d = document.createElement("div"); d.className = "note"; d.textContent = "Note: " + T.note; sum.appendChild(d); }
if (cmp.summary) {
  const d = document.createElement("div"); d.textContent = cmp.summary; d.style.color = "#8e24aa"; sum.appendChild(d);
  const k = document.createElement("div"); k.style.fontSize = "12px";
  k.textContent = "Over the expected tree: grey dashed, a state you never generated; red, a state only your search generated; purple outline, the first divergence.";
  sum.appendChild(k);
}
document.getElementById("legend").innerHTML =
  '<svg width="330" height="20"><polygon points="8,3 15,16 1,16" fill="#d6e4ff" stroke="#333"/><text x="19" y="15" font-size="11">MAX</text>' +
  '<polygon points="58,17 65,4 51,4" fill="#ffd9d6" stroke="#333"/><text x="69" y="15" font-size="11">MIN</text>' +
  '<circle cx="110" cy="10" r="7" fill="#dff5e1" stroke="#333"/><text x="120" y="15" font-size="11">chance</text>' +
  '<rect x="165" y="4" width="13" height="12" fill="#fff3c4" stroke="#333"/><text x="182" y="15" font-size="11">leaf</text>' +
  '<line x1="215" y1="10" x2="240" y2="10" stroke="#bbb" stroke-dasharray="3 3"/><text x="244" y="15" font-size="11" fill="#c0392b">\u2715 pruned</text></svg>';
const start = autoPly();
document.getElementById("ply").value = start; foldTo(start);
document.getElementById("ply").addEventListener("change", e => { foldTo(+e.target.value); draw(); });
document.getElementById("fold").addEventListener("click", () => { foldTo(0); draw(); });
document.getElementById("unfold").addEventListener("click", () => { folded.clear(); draw(); });
document.getElementById("next").addEventListener("click", find);
document.getElementById("find").addEventListener("keydown", e => { if (e.key === "Enter") find(); });
document.getElementById("find").addEventListener("input", () => { hitAt = -1; });
const v = document.getElementById("view");
const asked = /^#(\d+)$/.exec(location.hash);  // page.html#12 opens with node 12 shown
if (asked && N[+asked[1]]) {
  const id = +asked[1]; for (const a of path(id).slice(0, -1)) folded.delete(a);
  selected = id; draw(); show(id); reveal(id);
} else {
  for (const id of T.pv || []) folded.delete(id);  // the chosen line drawn to its end
  draw(); show(0); revealLine();
}
function revealLine() {  // the chosen line in view as the page opens
  const line = () => (T.pv || []).filter(id => id in shown.x).map(id => LEFT + shown.x[id] * SLOT);
  let xs = line();
  if (Math.max(...xs) - Math.min(...xs) > v.clientWidth - 2 * LEFT) { straight = true; draw(); xs = line(); }
  // The root and the line's end both in view: plies drawn closer where the page is short.
  const deepest = Math.max(...(T.pv || [0]).filter(id => id in shown.x).map(id => N[id].ply));
  const room = Math.floor((v.clientHeight - TOP - R - 30) / Math.max(1, deepest));
  if (room < LAYER) { LAYER = Math.max(FLATTEST, room); draw(); xs = line(); }
  v.scrollLeft = Math.max(0, (Math.max(...xs) + Math.min(...xs)) / 2 - v.clientWidth / 2);
  v.scrollTop = 0;  // the root at the top; a line deeper than the page goes on below it
}
"""


def tree_page(
    tree: TreeModel,
    describe: Callable[[Any], str] = str,
    compare: dict[str, Any] | None = None,
) -> str:
    """The whole HTML page for ``tree``; ``describe`` turns a node's state into text.

    ``compare`` (optional): ``{"summary": str, "marks": {"extra"|"missing"|"diverge": [ids]},
    "notes": {id: str}}``, drawn over the tree.
    """
    data = tree.to_data(describe)
    if compare:
        data["compare"] = compare
    title = tree.title or f"{tree.agent_name or 'search'} tree"
    return page(
        title,
        _STYLE,
        json_block("tree-data", data) + _BODY.format(title=html.escape(title)),
        _SCRIPT,
    )
