"""The wheel carries the layouts, and an installed copy finds them by name."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        pytest.fail(f"building the wheel failed: {done.stderr[-2000:]}")
    (found,) = out.glob("*.whl")
    return found


def test_the_wheel_ships_every_layout_and_the_grading_suite(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    bundled = sorted(path.name for path in (ROOT / "layouts").glob("*.lay"))
    assert sorted(Path(n).name for n in names if n.startswith("pacman/layouts/")) == bundled
    assert {n.split("/")[0] for n in names} >= {"pacman", "agents"}
    suite = sorted(
        str(p.relative_to(ROOT)) for p in (ROOT / "test_cases").rglob("*") if p.is_file()
    )
    assert (
        sorted(n.removeprefix("pacman/") for n in names if n.startswith("pacman/test_cases/"))
        == suite
    )


def test_an_installed_copy_finds_layouts_by_name_away_from_the_checkout(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = "import pacman.layout as m; l = m.load_layout('mediumClassic'); print(l.name, l.width, m.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=elsewhere,
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    name, width, module = done.stdout.split()
    assert (name, width) == ("mediumClassic", "20")
    assert Path(module).is_relative_to(target)
