"""Generated layouts: connected Pac-Man mazes in CS188's format, the same board for the same seed.

``generate(20, 11, ghosts=2, capsules=2, seed=7)`` returns a ``Layout``; a layout name
``random:20x11,seed=7`` (see :func:`parse_spec`) does the same wherever a layout name is taken
(``pacman -l``, ``load_layout``, the environments). Without ``seed=`` a spec is a *distribution*:
``load_layout`` draws a seed at random and names the board by it, and the environments draw a
new board each episode.

How a board is made: corridors run along a lattice of columns and rows (one or two wall cells
apart, at random), so every crossing is a junction; corridor segments between junctions are
then walled up at random as long as every junction keeps two ways out and all junctions stay
connected. So every open cell is reachable (no unreachable food) and none is a dead end, like
CS188's classic boards, on which ghosts, which may not reverse, never get stuck.

This is its own module rather than ``pacman/layouts.py`` because the wheel ships the ``layouts/``
data folder as ``pacman/layouts``: a module of that name would clash with it.

Only ``rng.random()`` is drawn (turned into integers here), because Python promises that
sequence for a seed across versions but not those of ``randrange`` or ``shuffle``.
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from pacman.errors import LayoutError
from pacman.layout_text import Layout, parse_layout

#: A layout name that asks for a generated board.
PREFIX = "random:"
MIN_SIZE, MAX_SIZE = 5, 100
MAX_AGENTS = 10
DEFAULT_GHOSTS, DEFAULT_CAPSULES, DEFAULT_FOOD = 2, 2, 1.0

Cell = tuple[int, int]


@dataclass(frozen=True)
class BoardSpec:
    """What a ``random:`` layout name asks for; ``seed`` None means a new board each draw."""

    width: int
    height: int
    ghosts: int = DEFAULT_GHOSTS
    capsules: int = DEFAULT_CAPSULES
    food: float = DEFAULT_FOOD
    seed: int | None = None

    def name(self, seed: int | None = None) -> str:
        """The spec as a layout name; with ``seed``, the name of that one board."""
        seed = self.seed if seed is None else seed
        parts = [f"{PREFIX}{self.width}x{self.height}"]
        if seed is not None:
            parts.append(f"seed={seed}")
        if self.ghosts != DEFAULT_GHOSTS:
            parts.append(f"ghosts={self.ghosts}")
        if self.capsules != DEFAULT_CAPSULES:
            parts.append(f"capsules={self.capsules}")
        if self.food != DEFAULT_FOOD:
            parts.append(f"food={self.food:g}")
        return ",".join(parts)

    def board(self, seed: int | None = None) -> Layout:
        """The board of ``seed`` (default: the spec's own; a random one if it has none)."""
        if seed is None:
            seed = self.seed if self.seed is not None else random.SystemRandom().randrange(2**31)
        return generate(self.width, self.height, self.ghosts, self.capsules, self.food, seed=seed)


def is_spec(name: object) -> bool:
    """Whether ``name`` is a ``random:`` layout name."""
    return isinstance(name, str) and name.startswith(PREFIX)


_SIZE = re.compile(r"([0-9]+)x([0-9]+)")
#: Longer specs are shown cut short in messages, so that a mistake stays one readable line.
_SHOWN = 60
#: More digits than any size, count or seed needs: refused before Python's int() reads them.
_MAX_DIGITS = 30


def parse_spec(text: str) -> BoardSpec:
    """``random:WxH[,seed=S][,ghosts=G][,capsules=C][,food=F]`` as a spec; LayoutError if bad."""
    where = f"layout spec {_shown(text)}"
    if not is_spec(text):
        raise LayoutError(f"{where} must start with {PREFIX!r}")
    size, *options = text[len(PREFIX) :].split(",")
    match = _SIZE.fullmatch(size.strip())
    if match is None:
        raise LayoutError(f"{where}: size {_shown(size)} must be WIDTHxHEIGHT, e.g. random:20x11")
    values: dict[str, str] = {}
    for option in options:
        key, equals, value = option.partition("=")
        key = key.strip()
        if not equals or key not in ("seed", "ghosts", "capsules", "food") or key in values:
            raise LayoutError(
                f"{where}: bad option {_shown(option)} "
                "(give each of seed=, ghosts=, capsules=, food= at most once)"
            )
        values[key] = value.strip()
    for label, digits in (("width", match[1]), ("height", match[2])):
        if len(digits) > _MAX_DIGITS:
            raise LayoutError(
                f"{where}: {label} of {len(digits)} digits is out of range {MIN_SIZE} to {MAX_SIZE}"
            )
    numbers: dict[str, float | int] = {}
    for key, value in values.items():
        if len(value) > _MAX_DIGITS:
            raise LayoutError(f"{where}: {key}= has more than {_MAX_DIGITS} characters")
        try:
            numbers[key] = float(value) if key == "food" else int(value)
        except ValueError:
            kind = "a number" if key == "food" else "a whole number"
            raise LayoutError(f"{where}: {key}={value!r} is not {kind}") from None
    spec = BoardSpec(int(match[1]), int(match[2]), **numbers)  # type: ignore[arg-type]
    check_spec(spec, where)
    return spec


def _shown(text: str) -> str:
    """``text`` quoted for a message, cut short past :data:`_SHOWN` characters."""
    if len(text) <= _SHOWN:
        return repr(text)
    return repr(text[:_SHOWN]) + f"... ({len(text)} characters)"


def check_spec(spec: BoardSpec, where: str) -> None:
    """LayoutError naming ``where`` if a spec's numbers cannot make a board."""
    for label, size in (("width", spec.width), ("height", spec.height)):
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise LayoutError(f"{where}: {label} {size} is out of range {MIN_SIZE} to {MAX_SIZE}")
    for label, count in (("ghosts", spec.ghosts), ("capsules", spec.capsules)):
        if not 0 <= count <= MAX_AGENTS:
            raise LayoutError(f"{where}: {label}={count} is out of range 0 to {MAX_AGENTS}")
    if not 0 < spec.food <= 1:
        raise LayoutError(
            f"{where}: food={spec.food:g} must be a fraction of the free cells, above 0 and up to 1"
        )
    if spec.seed is not None and spec.seed < 0:
        raise LayoutError(f"{where}: seed={spec.seed} must be 0 or more")


def generate(
    width: int,
    height: int,
    ghosts: int = DEFAULT_GHOSTS,
    capsules: int = DEFAULT_CAPSULES,
    food: float = DEFAULT_FOOD,
    *,
    seed: int = 0,
) -> Layout:
    """A connected maze of ``width`` x ``height`` cells (border included), the same for a seed.

    Pac-Man starts on a random cell, the ghosts on cells far from it, capsules on random
    cells; ``food`` is the fraction of the remaining open cells that hold food (at least one).
    """
    spec = BoardSpec(width, height, ghosts, capsules, food, seed)
    name = spec.name()
    check_spec(spec, name)
    draw = random.Random(seed).random
    columns = _lattice(width, draw)
    rows = _lattice(height, draw)
    open_cells = _carve(columns, rows, draw)
    needed = 2 + ghosts + capsules  # Pac-Man, the ghosts, the capsules and one food
    if len(open_cells) < needed:
        raise LayoutError(
            f"{name}: the board has {len(open_cells)} open cells, fewer than the "
            f"{needed} that Pac-Man, {ghosts} ghosts, {capsules} capsules and one food need"
        )
    chars = _place(sorted(open_cells), ghosts, capsules, food, draw)
    lines = []
    for y in range(height - 1, -1, -1):
        lines.append("".join(chars.get((x, y), "%") for x in range(width)))
    return parse_layout("\n".join(lines), name=name)


def _pick(count: int, draw: Callable[[], float]) -> int:
    """An integer in ``range(count)`` from one draw."""
    return min(int(draw() * count), count - 1)


def _lattice(size: int, draw: Callable[[], float]) -> list[int]:
    """Corridor lines from 1 to ``size - 2``, two or three apart (walls one or two thick)."""
    lines = [1]
    last = size - 2
    while lines[-1] < last:
        left = last - lines[-1]
        step = left if left <= 3 else 2 if left == 4 else 3 if draw() < 0.3 else 2
        lines.append(lines[-1] + step)
    return lines


def _carve(columns: list[int], rows: list[int], draw: Callable[[], float]) -> set[Cell]:
    """The open cells: the lattice's junctions and the segments left after walling some up."""
    junctions = [(x, y) for x in columns for y in rows]
    links: dict[Cell, set[Cell]] = {cell: set() for cell in junctions}
    segments = []
    for i, x in enumerate(columns):
        for j, y in enumerate(rows):
            if i + 1 < len(columns):
                segments.append(((x, y), (columns[i + 1], y)))
            if j + 1 < len(rows):
                segments.append(((x, y), (x, rows[j + 1])))
    for a, b in segments:
        links[a].add(b)
        links[b].add(a)
    # Wall up a share of the segments, visited in a random order.
    share = 0.25 + 0.3 * draw()
    for index in range(len(segments) - 1, 0, -1):
        other = _pick(index + 1, draw)
        segments[index], segments[other] = segments[other], segments[index]
    kept = []
    for a, b in segments:
        if draw() < share and len(links[a]) > 2 and len(links[b]) > 2:
            links[a].discard(b)
            links[b].discard(a)
            if _linked(links, a, b):
                continue
            links[a].add(b)
            links[b].add(a)
        kept.append((a, b))
    cells = set(junctions)
    for (ax, ay), (bx, by) in kept:
        cells.update((x, y) for x in range(ax, bx + 1) for y in range(ay, by + 1))
    return cells


def _linked(links: dict[Cell, set[Cell]], start: Cell, goal: Cell) -> bool:
    """Whether ``goal`` can be reached from ``start`` along ``links`` (breadth first)."""
    seen = {start}
    frontier = deque([start])
    while frontier:
        here = frontier.popleft()
        for there in links[here]:
            if there == goal:
                return True
            if there not in seen:
                seen.add(there)
                frontier.append(there)
    return False


def _place(
    cells: list[Cell], ghosts: int, capsules: int, food: float, draw: Callable[[], float]
) -> dict[Cell, str]:
    """Layout characters of the open cells: Pac-Man, ghosts far from it, capsules, food."""
    chars = dict.fromkeys(cells, " ")
    pacman = cells[_pick(len(cells), draw)]
    chars[pacman] = "P"
    steps = _steps_from(pacman, chars)
    # Ghosts start in the farther half of the board, as in CS188's boards.
    by_distance = sorted((c for c in cells if c != pacman), key=lambda c: (-steps[c], c))
    far = by_distance[: max(ghosts, len(by_distance) // 2)]
    for _ in range(ghosts):
        chars[far.pop(_pick(len(far), draw))] = "G"
    free = [c for c in cells if chars[c] == " "]
    for _ in range(capsules):
        chars[free.pop(_pick(len(free), draw))] = "o"
    keep = max(1, round(food * len(free)))
    for _ in range(keep):
        chars[free.pop(_pick(len(free), draw))] = "."
    return chars


def _steps_from(start: Cell, cells: dict[Cell, str]) -> dict[Cell, int]:
    """Moves from ``start`` to every open cell (all are connected)."""
    steps = {start: 0}
    frontier = deque([start])
    while frontier:
        x, y = here = frontier.popleft()
        for there in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
            if there in cells and there not in steps:
                steps[there] = steps[here] + 1
                frontier.append(there)
    return steps


def board_draw(layout: object) -> Callable[[int], Layout] | None:
    """A ``random:`` spec without ``seed=`` as its ``seed -> board`` function; else None.

    The environments draw a new board per episode from such a spec.
    """
    if is_spec(layout):
        spec = parse_spec(str(layout))
        if spec.seed is None:
            return spec.board
    return None


def load_spec(text: str) -> Layout:
    """The board a ``random:`` layout name stands for (a random seed if it names none)."""
    return parse_spec(text).board()


def save_layout(layout: Layout, path: str | None) -> None:
    """Write ``layout`` as a ``.lay`` file that ``load_layout(path)`` reads back as the same
    board (nothing without a path: ``--save-layout`` was not given)."""
    if not path:
        return
    try:
        with open(path, "w", encoding="utf-8") as file:
            file.write(str(layout) + "\n")
    except OSError as error:
        raise LayoutError(f"--save-layout {path}: cannot write ({error.strerror})") from None
