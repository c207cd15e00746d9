"""Search-tree pages: nodes, file size, time to build, and time for a browser to draw them.

    python benchmarks/bench_tree.py [--browser chromium]

For a few searches from layout starts (up to openClassic alpha-beta depth 4,
5,639 nodes, and mediumClassic full-width minimax depth 4, 8,362 nodes),
prints the nodes, the HTML file's size, the seconds to observe the search and
write the page, and, when chromium is installed, the seconds ``chromium
--headless --screenshot`` takes to open the page, run its script and draw it
(a browser's start-up included). Speed lives here, never in the tests.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import agents
from pacman.layout import load_layout
from pacman.state import GameState
from pacman.view.html_tree import tree_page
from pacman.view.searchtree import observe

RUNS = [
    ("AlphaBetaAgent", 2, "minimaxClassic"),
    ("AlphaBetaAgent", 3, "contestClassic"),
    ("AlphaBetaAgent", 4, "openClassic"),
    ("MinimaxAgent", 4, "mediumClassic"),
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browser", default="chromium")
    options = parser.parse_args(argv)
    browser = shutil.which(options.browser)
    print(f"{'search':<40}{'nodes':>7}{'bytes':>11}{'build s':>9}{'browser s':>11}")
    with tempfile.TemporaryDirectory() as folder:
        for name, depth, layout in RUNS:
            state = GameState.initial(load_layout(layout))
            started = time.perf_counter()
            tree = observe(getattr(agents, name)(depth=depth), state)
            page = Path(folder) / f"{layout}.html"
            page.write_text(tree_page(tree), encoding="utf-8")
            built = time.perf_counter() - started
            shown = "-"
            if browser:
                started = time.perf_counter()
                subprocess.run(
                    [browser, "--headless", "--no-sandbox", "--disable-gpu",
                     f"--user-data-dir={folder}/profile", "--window-size=1200,800",
                     f"--screenshot={folder}/shot.png", page.as_uri()],
                    check=True, capture_output=True, timeout=300,
                )  # fmt: skip
                shown = f"{time.perf_counter() - started:.2f}"
            label = f"{name} depth {depth} from {layout}"
            print(f"{label:<40}{len(tree):>7}{page.stat().st_size:>11,}{built:>9.2f}{shown:>11}")


if __name__ == "__main__":
    main()
