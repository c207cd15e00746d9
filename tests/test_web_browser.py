"""``pacman --web`` in a real browser: Debian's chromium, driven by Playwright for Python.

Skipped where either is missing (CI installs neither). Screenshots of the live page go to
``$PACMAN_SCREENSHOTS`` when it is set (to look at them), else to the test's folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
if BROWSER is None:
    pytest.skip("no chromium here (Debian: apt-get install -y chromium)", allow_module_level=True)
playwright = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)"
)

ROOT = Path(__file__).resolve().parents[1]
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=BROWSER, args=ARGS)
        yield launched
        launched.close()


class Pacman:
    """``python -m pacman --web --no-browser ARGS`` running, its stderr read line by line."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pacman", "--web", "--no-browser", *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self._new = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        first = self.wait_for("the game is at ")
        self.url = re.search(r"(http://127\.0\.0\.1:\d+/\?token=[\w-]+)", first).group(1)

    def _read(self) -> None:
        for line in self.process.stderr:
            with self._new:
                self.lines.append(line.rstrip("\n"))
                self._new.notify_all()

    def wait_for(self, text: str, timeout: float = 60) -> str:
        with self._new:
            assert self._new.wait_for(lambda: any(text in line for line in self.lines), timeout)
            return next(line for line in self.lines if text in line)

    def end(self) -> tuple[int, str]:
        """The exit status and stdout, once every stderr line is in :attr:`lines` (stderr is
        the reader thread's alone: ``communicate`` would take lines from under it)."""
        code = self.process.wait(timeout=60)  # (its stdout is a few summary lines)
        out = self.process.stdout.read()
        self._reader.join(timeout=60)
        return code, out


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("PACMAN_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def moves(page) -> int:
    return page.evaluate("board.last()")


def test_an_alphabeta_game_plays_to_its_end_on_the_page(browser, tmp_path):
    folder = shots(tmp_path)
    game = Pacman("-p", "AlphaBetaAgent", "-a", "depth=2", "-l", "mediumClassic", "-k", "2",
                  "--seed", "1", "--frameTime", "0.2")  # fmt: skip
    page = browser.new_page(viewport={"width": 900, "height": 640})
    try:
        page.goto(game.url)
        page.wait_for_function("window.board.frames().length > 0")
        page.screenshot(path=folder / "web-start.png")
        page.keyboard.press("v")  # the values, as in the window
        page.wait_for_function("window.board.last() >= 9")
        page.keyboard.press("Space")  # the game pauses, as in the window
        page.wait_for_function("window.board.live.paused")
        paused_at = moves(page)
        page.wait_for_timeout(300)
        assert moves(page) == paused_at  # no move while paused
        page.keyboard.press("ArrowRight")  # one more move
        page.wait_for_function(f"window.board.last() > {paused_at}")
        page.screenshot(path=folder / "web-mid-values.png")
        for _ in range(5):  # 0.2 s halved five times: no waiting at all
            page.keyboard.press("+")
        page.keyboard.press("Space")
        page.wait_for_function(
            "document.getElementById('hint').textContent.startsWith('pacman has stopped')",
            timeout=60_000,
        )
        page.screenshot(path=folder / "web-end.png")
        shown = page.inner_text("#pos")
        title = page.inner_text("#title")
    finally:
        page.close()
    code, out = game.end()
    assert code == 0
    final = re.search(r"Score: (-?\d+)", out).group(1)
    assert f"score {final} " in shown + " "
    assert title.endswith(" \u00b7 win") or title.endswith(" \u00b7 lose")
    assert "the game waits" not in "\n".join(game.lines)


def test_keys_on_the_page_move_pacman_and_tabs_come_and_go(browser, tmp_path):
    game = Pacman("-l", "smallClassic", "-k", "0", "--frameTime", "0.05")  # the keyboard's game
    first = browser.new_page()
    second = None
    try:
        refused = first.goto(game.url.replace("token=", "token=x"))
        assert refused.status == 403 and "replay-data" not in first.content()
        first.goto(game.url)
        first.wait_for_function("window.board.frames().length > 0")
        start = first.evaluate("board.frame().p[0]")
        first.keyboard.press("ArrowLeft")
        first.wait_for_function(f"board.frame().p[0][0] < {start[0]}")
        assert first.evaluate("board.frame().p[0][1]") == start[1]
        # A second tab is sent the game so far, and then each move, as the first is.
        second = browser.new_page()
        second.goto(game.url)
        second.wait_for_function("window.board.frames().length > 2")
        seen = second.evaluate("board.frames().slice(0, 3)")
        assert seen == first.evaluate("board.frames().slice(0, 3)")
        first.reload()  # a reload gets the whole game again
        first.wait_for_function("window.board.frames().length > 2")
        assert first.evaluate("board.frames().slice(0, 3)") == seen
        first.close()
        second.close()
        game.wait_for("the browser page was closed; the game waits for it at")
        first = browser.new_page()
        first.goto(game.url)
        game.wait_for("a browser page is open again; the game goes on")
        first.wait_for_function("window.board.frames().length > 2")
        first.keyboard.press("Escape")
        code, _ = game.end()
    finally:
        first.close()
    assert code == 0
    assert "pacman: Esc pressed in the browser; stopping" in game.lines


def test_the_keyboard_s_start_notice_goes_once_the_game_moves(browser, tmp_path):
    game = Pacman("-l", "smallClassic", "-k", "1", "--seed", "2", "--frameTime", "0.1")
    page = browser.new_page(viewport={"width": 900, "height": 640})
    try:
        page.goto(game.url)
        page.wait_for_function("window.board.live.notice !== ''")
        waiting = page.evaluate("board.live.notice")
        page.keyboard.press("ArrowLeft")
        page.wait_for_function("window.board.last() >= 3")
        page.keyboard.press("Space")  # a pause's status carries the old notice: not shown again
        page.wait_for_function("window.board.live.paused && window.board.live.notice === ''")
        page.keyboard.press("Space")
        page.wait_for_function("window.board.last() >= 12 && !window.board.live.paused")
        after = page.evaluate("[board.live.notice, board.last()]")
        page.screenshot(path=shots(tmp_path) / "web-keyboard.png")
        page.keyboard.press("Escape")
        game.end()
    finally:
        page.close()
    assert waiting == "press an arrow key or WASD to start"
    assert after[0] == "" and after[1] >= 12


# ----------------------------------------------------------------------- trees

OPEN_CHECK = """() => {
  const view = document.getElementById("view").getBoundingClientRect();
  const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 &&
                           a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  const nodes = [...document.querySelectorAll("g.node")];
  const labels = nodes.filter(g => {
    const shape = g.querySelector(".shape").getBoundingClientRect();
    return !inside(g.querySelector(".val").getBoundingClientRect(), shape);
  }).map(g => g.dataset.id);
  const line = nodes.filter(g => g.classList.contains("onpv"));
  const hidden = line.filter(g => !inside(g.querySelector(".shape").getBoundingClientRect(), view));
  const root = nodes.find(g => g.dataset.id === "0");
  return {nodes: nodes.length, outside: labels, line: line.length, hidden: hidden.map(g => g.dataset.id),
          root: inside(root.querySelector(".shape").getBoundingClientRect(), view)};
}"""


@pytest.mark.parametrize(
    ("name", "args", "height"),
    [
        ("tree-mediumClassic-depth3-1024", ["-p", "AlphaBetaAgent", "-a", "depth=3"], 1024),
        ("tree-mediumClassic-depth3", ["-p", "AlphaBetaAgent", "-a", "depth=3"], 720),
        ("tree-mcts", ["-p", "MCTSAgent", "-a", "simulations=60"], 1024),
        ("tree-big-values", ["-p", "ExpectimaxAgent", "-a", "depth=2,evalFn=better"], 720),
    ],
)
def test_a_tree_opens_with_its_root_and_chosen_line_in_view_and_values_inside_their_nodes(
    browser, tmp_path, name, args, height
):
    from pacman.cli import main

    page_file = tmp_path / f"{name}.html"
    assert main(["tree", *args, "-l", "mediumClassic", "-k", "2", "--html", str(page_file)]) == 0
    page = browser.new_page(viewport={"width": 1280, "height": height})
    try:
        page.goto(page_file.as_uri())
        page.wait_for_selector("g.node")
        found = page.evaluate(OPEN_CHECK)
        page.screenshot(path=shots(tmp_path) / f"{name}.png")
    finally:
        page.close()
    assert found["outside"] == [] and found["nodes"] > 20
    assert found["line"] >= 2 and found["hidden"] == [] and found["root"]


def test_the_notebook_s_tree_opens_with_its_root_and_chosen_line_in_its_frame(browser, tmp_path):
    from agents import AlphaBetaAgent
    from pacman.layout import load_layout
    from pacman.state import GameState
    from pacman.view.searchtree import observe

    tree = observe(AlphaBetaAgent(depth=2), GameState.initial(load_layout("minimaxClassic")))
    holder = tmp_path / "cell.html"  # the notebook's output: the page in a 640-pixel frame
    holder.write_text(f"<!doctype html><body style='width:900px'>{tree._repr_html_()}</body>")
    page = browser.new_page(viewport={"width": 940, "height": 700})
    try:
        page.goto(holder.as_uri())
        frame = page.frames[1]
        frame.wait_for_selector("g.node")
        found = frame.evaluate(OPEN_CHECK)
        page.screenshot(path=shots(tmp_path) / "tree-notebook.png")
    finally:
        page.close()
    assert found["outside"] == [] and found["nodes"] == 180
    assert found["line"] == 9 and found["hidden"] == [] and found["root"]


def test_an_html_replay_opens_on_its_first_move_and_scrubs_to_the_game_s_end(browser, tmp_path):
    from pacman.cli import main

    page_file, results = tmp_path / "game.html", tmp_path / "game.jsonl"
    assert main(["-p", "examples/marking_agent.py:MarkingAgent", "-a", "depth=2", "-l",
                 "smallClassic", "-q", "--seed", "7", "--values", "--html", str(page_file),
                 "--json", str(results)]) == 0  # fmt: skip
    game = json.loads(results.read_text())
    page = browser.new_page(viewport={"width": 700, "height": 420})
    try:
        page.goto(page_file.as_uri())
        page.wait_for_function("window.board && board.last() > 0")
        first = page.inner_text("#pos")
        for _ in range(40):
            page.keyboard.press("ArrowRight")
        at_40 = page.inner_text("#pos")
        page.screenshot(path=shots(tmp_path) / "replay-smallClassic.png")
        last, final_score = page.evaluate("[board.last(), board.frames()[board.last()].s]")
    finally:
        page.close()
    assert (last, final_score) == (game["moves"], game["score"])
    assert first.startswith(f"move 0 of {game['moves']}")
    assert at_40.startswith(f"move 40 of {game['moves']}")
