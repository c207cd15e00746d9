"""examples/generalise.py: trained on generated boards only, it beats random play on CS188's."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

ROOT = Path(__file__).resolve().parents[1]


def test_a_short_run_trains_on_generated_boards_and_beats_random_play_on_unseen_ones():
    script = ROOT / "examples" / "generalise.py"
    args = ["--train-games", "30", "--num-envs", "4", "--eval-games", "10"]
    result = subprocess.run(
        [sys.executable, str(script), *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.fullmatch(
        r"trained on 30 games on generated 20x11 boards \((\d+) boards dealt, \d+ moves, "
        r"4 games at once\) in \S+ s",
        lines[0],
    ), lines
    scores = {}
    for line in lines[2:4]:
        found = re.fullmatch(r"(\w+) \(never seen\): win rate (\d+)%, mean score (\S+)", line)
        assert found, line
        scores[found[1]] = float(found[3])
    assert list(scores) == ["smallClassic", "mediumClassic"]
    assert re.fullmatch(r"10 fresh 20x11 boards \(0 seen in training\): win rate .*", lines[4])
    random_play = re.fullmatch(r"random legal play on smallClassic: .* mean score (\S+)", lines[5])
    assert random_play and scores["smallClassic"] > float(random_play[1]) + 500
