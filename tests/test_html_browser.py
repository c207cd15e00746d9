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


def _command(page: Path, out: Path, size: str) -> list[str]:
    return [
        BROWSER,
        "--headless",
        "--no-sandbox",  # tests may run as root, where the sandbox refuses to start
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={out.parent / ('profile-' + out.stem)}",
        f"--window-size={size}",
        f"--screenshot={out}",
        page.resolve().as_uri(),
    ]


def pixels_of(png: Path, color: tuple[int, int, int]) -> int:
    """How many pixels of ``png`` are exactly ``color``."""
    pygame = pytest.importorskip("pygame")
    numpy = pytest.importorskip("numpy")
    rgb = pygame.image.tobytes(pygame.image.load(str(png)), "RGB")
    pixels = numpy.frombuffer(rgb, dtype=numpy.uint8).reshape(-1, 3)
    return int((pixels == numpy.array(color, dtype=numpy.uint8)).all(axis=1).sum())


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> dict[str, Path]:
    """A tree, a replay and a grader report, each screenshotted; the browsers run side by side."""
    from test_grading_tree_report import MINIMAX_CALLS
    from test_searchtree import LECTURE_FIELDS

    from pacman.grading.tree_report import failure_data, report_page

    folder = tmp_path_factory.mktemp("browser")
    pages = {name: folder / f"{name}.html" for name in ("tree", "replay", "report")}
    assert main(["tree", "-p", "AlphaBetaAgent", "-a", "depth=2", "-l", "minimaxClassic",
                 "--html", str(pages["tree"])]) == 0  # fmt: skip
    assert main(["-p", "GreedyAgent", "-l", "smallClassic", "-k", "2", "-q", "--seed", "5",
                 "--html", str(pages["replay"])]) == 0  # fmt: skip
    data = failure_data(LECTURE_FIELDS, "AlphaBetaAgent", 1, "Center", MINIMAX_CALLS, "Center", [])
    pages["report"].write_text(report_page(data, "FAIL: lecture"), encoding="utf-8")
    sizes = {"tree": "1000,500", "replay": "700,420", "report": "900,420"}
    pngs = {name: folder / f"{name}.png" for name in pages}
    running = [
        subprocess.Popen(_command(pages[n], pngs[n], sizes[n]), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
        for n in pages
    ]  # fmt: skip
    for process in running:
        assert process.wait(timeout=120) == 0
    return pngs


def test_tree_page_draws_in_a_browser(shots):
    # The principal variation's thick orange edges and the MIN nodes' fill exist only once
    # the page's script has laid the tree out.
    assert pixels_of(shots["tree"], (230, 126, 34)) > 20
    assert pixels_of(shots["tree"], (255, 217, 214)) > 100


def test_replay_page_draws_the_maze_and_agents_in_a_browser(shots):
    assert pixels_of(shots["replay"], (33, 33, 222)) > 200  # the classic theme's wall outline
    assert pixels_of(shots["replay"], (255, 255, 0)) > 50  # Pac-Man


def test_grader_report_draws_the_divergence_in_a_browser(shots):
    assert pixels_of(shots["report"], (255, 138, 128)) > 20  # the extra state I, filled red
    assert pixels_of(shots["report"], (142, 36, 170)) > 10  # its purple divergence outline
