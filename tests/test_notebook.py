"""The example notebook, run headless as Jupyter runs it (nbclient and an IPython kernel):
its output holds the game, move for move, and the tree; ``pacman.show`` outside a notebook."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from pacman.runner import GameSpec, play
from pacman.view.html import embedded_data

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "notebook.ipynb"


def embedded_page(output_html: str) -> str:
    """The page inside an output's ``<iframe srcdoc="...">``."""
    found = re.search(r'srcdoc="([^"]*)"', output_html)
    assert found, output_html[:200]
    return html.unescape(found.group(1))


def test_the_example_notebook_runs_and_its_output_holds_the_game():
    nbformat = pytest.importorskip("nbformat", reason="nbformat is in the [test] extra")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is in the [test] extra")
    pytest.importorskip("ipykernel", reason="ipykernel is in the [test] extra")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": ROOT}}
    ).execute()
    game_cell, result_cell, tree_cell, search_cell = (
        cell for cell in notebook.cells if cell.cell_type == "code"
    )
    # The same game, played here: the notebook's replay must be it, move for move.
    spec = GameSpec("minimaxClassic", "AlphaBetaAgent", {"depth": "2"}, seed=5,
                    catch_exceptions=True)  # fmt: skip
    expected = play(spec)
    assert (expected.win, expected.score, expected.moves) == (True, 510, 37)  # a game it wins
    shown = [o for o in game_cell.outputs if "text/html" in o.get("data", {})]
    # The live view's last update is the replay; the cell's value is its summary.
    data = embedded_data(embedded_page(shown[0]["data"]["text/html"]), "replay-data")
    assert len(data["frames"]) == expected.moves + 1
    assert data["frames"][-1]["s"] == expected.score
    assert data["end"] == ("win" if expected.win else "lose")
    assert data["values"] is True and data["notes"]
    summary = shown[-1]["data"]["text/html"]
    assert f"score {expected.score:g} in {expected.moves} moves" in summary
    assert f"score {expected.score:g}" in result_cell.outputs[0]["data"]["text/html"]
    tree = embedded_data(embedded_page(tree_cell.outputs[0]["data"]["text/html"]), "tree-data")
    assert len(tree["nodes"]) == 180  # alpha-beta depth 2 from minimaxClassic's start
    assert "principal variation" in search_cell.outputs[0]["data"]["text/html"]


def test_show_outside_a_notebook_returns_the_game_and_its_replay():
    import pacman

    game = pacman.show("minimaxClassic", "GreedyAgent", seed=3, max_moves=5)
    assert game.frames == game.result.moves + 1
    assert not game.shown
    page = embedded_page(game._repr_html_())
    frames = json.loads(json.dumps(game.data["frames"]))  # cells as JSON lists
    assert embedded_data(page, "replay-data")["frames"] == frames


def test_import_pacman_and_its_show_load_neither_ipython_nor_pygame():
    import subprocess
    import sys

    code = (
        "import sys, pacman; pacman.show; "
        "print(sorted(m for m in ('IPython', 'pygame', 'nbformat') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert (out.returncode, out.stdout) == (0, "[]\n")


SHOWN = re.compile(r"pacman\.show\(\s*(\"\w+Classic\".*?)\s*\)", re.DOTALL)


@pytest.mark.parametrize("doc", ["README.md", "docs/viewer.md"])
def test_the_games_the_docs_show_are_won(doc):
    import pacman

    calls = SHOWN.findall((ROOT / doc).read_text(encoding="utf-8"))
    assert calls  # the pattern still finds them
    for call in calls:
        game = eval(f"pacman.show({call}, live=False)", {"pacman": pacman})
        assert (game.result.win, game.result.score) == (True, 1775), call


@pytest.mark.parametrize("frame_time", [float("nan"), float("inf"), -0.5, 61.0])
def test_show_refuses_a_frame_time_no_page_can_keep(frame_time):
    import pacman
    from pacman.errors import PacmanError

    with pytest.raises(PacmanError, match=r"^frame_time "):
        pacman.show("testClassic", frame_time=frame_time, live=False)
