"""The wheel carries the layouts, and an installed copy finds them by name."""

from __future__ import annotations

import base64
import hashlib
import io
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


def test_an_installed_grader_makes_the_gradescope_bundle_from_its_own_files(wheel, tmp_path):
    """README's install is not editable: the bundle command packs the installed distribution
    (run inside the checkout too, where it once said the source was not there)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    command = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps"]
    done = subprocess.run(
        [*command, "--no-index", "-q", str(wheel)], capture_output=True, text=True, timeout=300
    )
    if "no such option: --python" in done.stderr:
        pytest.skip("this pip cannot install into another environment (--python)")
    assert done.returncode == 0, done.stderr
    bundle = tmp_path / "autograder.zip"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        [str(venv / "bin" / "pacman"), "autograde", "--gradescope-bundle", str(bundle), "-q", "q2"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        f"Wrote {bundle}: 1 question (5 points), multiAgents.py, {wheel.name}; grading with "
    )
    built = zipfile.ZipFile(wheel)
    packed = zipfile.ZipFile(io.BytesIO(zipfile.ZipFile(bundle).read(wheel.name)))
    assert sorted(packed.namelist()) == sorted(built.namelist())
    record = next(n for n in built.namelist() if n.endswith(".dist-info/RECORD"))
    assert [n for n in built.namelist() if n != record and built.read(n) != packed.read(n)] == []
    # Its RECORD lists every other file with the file's own hash and size.
    rows = [line.split(",") for line in packed.read(record).decode().splitlines()]
    for name, digest, size in rows:
        if name == record:
            assert (digest, size) == ("", "")
            continue
        data = packed.read(name)
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        assert (digest, size) == (f"sha256={expected.decode()}", str(len(data))), name
    assert len(rows) == len(packed.namelist())


def test_a_grader_neither_checked_out_nor_installed_says_what_to_run(tmp_path):
    from pacman.errors import UsageError
    from pacman.grading.gradescope import pack_installed

    with pytest.raises(UsageError) as raised:
        pack_installed(str(tmp_path), str(tmp_path / "copied"))
    assert str(raised.value) == (
        f"--gradescope-bundle: the grader at {tmp_path / 'copied'} is neither a checkout (no "
        "pyproject.toml) nor an installed pacman-multiagent with a RECORD; make the bundle from "
        "a checkout of the project (pip install -e CHECKOUT, then pacman autograde "
        "--gradescope-bundle ZIP)"
    )
