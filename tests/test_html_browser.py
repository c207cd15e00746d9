"""The HTML pages in a real headless browser (Debian's chromium), where one is installed.

Each page is opened from disk with ``chromium --headless --screenshot``; the
screenshot must show what the page's script draws (colours only the script
paints), which proves the page runs with nothing fetched.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pacman.cli import main

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no chromium here (Debian: apt-get install -y chromium)"
)

CASES = Path(__file__).resolve().parents[2] / "shared" / "berkeley" / "test_cases"


def screenshot(page: Path, out: Path, size: str = "1000,500") -> Path:
    """A PNG of ``page`` as the browser shows it once its scripts ran."""
    subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",  # tests may run as root, where the sandbox refuses to start
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            f"--user-data-dir={out.parent / 'profile'}",
            f"--window-size={size}",
            f"--screenshot={out}",
            page.resolve().as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out


def pixels_of(png: Path, color: tuple[int, int, int]) -> int:
    """How many pixels of ``png`` are exactly ``color``."""
    pygame = pytest.importorskip("pygame")
    image = pygame.image.load(str(png))
    width, height = image.get_size()
    return sum(
        1
        for x in range(0, width, 2)
        for y in range(0, height, 2)
        if image.get_at((x, y))[:3] == color
    )


def test_tree_page_draws_in_a_browser(tmp_path):
    page = tmp_path / "tree.html"
    assert main(["tree", "-p", "AlphaBetaAgent", "-a", "depth=2", "-l", "minimaxClassic",
                 "--html", str(page)]) == 0  # fmt: skip
    png = screenshot(page, tmp_path / "tree.png")
    # The principal variation's thick orange edges and the MIN nodes' fill exist only once
    # the page's script has laid the tree out.
    assert pixels_of(png, (230, 126, 34)) > 20
    assert pixels_of(png, (255, 217, 214)) > 100


def test_replay_page_draws_the_maze_and_agents_in_a_browser(tmp_path):
    page = tmp_path / "replay.html"
    assert main(["-p", "GreedyAgent", "-l", "smallClassic", "-k", "2", "-q", "--seed", "5",
                 "--html", str(page)]) == 0  # fmt: skip
    png = screenshot(page, tmp_path / "replay.png", "700,420")
    assert pixels_of(png, (33, 33, 222)) > 200  # the classic theme's wall outline
    assert pixels_of(png, (255, 255, 0)) > 50  # Pac-Man
