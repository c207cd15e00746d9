"""The Gradescope bundle: built by the autograder, set up and run as Gradescope runs it.

The end-to-end test lays out ``/autograder`` in a private mount namespace (a tmpfs over
it, so nothing of the machine changes), unpacks the zip into ``/autograder/source``, runs
``setup.sh`` (offline: the interpreter it installs into already has tqdm), then
``run_autograder`` from ``/autograder`` on a full-marks CS188-style file and on a mutant,
as root and as root holding only Docker's default capabilities.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from grading_settings import in_setting, python_with_tqdm
from grading_submissions import BERKELEY, HONEST, MINI, make_mini, submission_text

from pacman.grade_cli import main
from pacman.grading.gradescope import find_files, hidden_names
from pacman.grading.suite import load_suite

REPO = Path(__file__).resolve().parents[1]

needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="laying out /autograder needs a mount namespace (root)",
)
needs_berkeley = pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")

MUTANT = "broken_ab_equality"


def _suite(arena: Path) -> Path:
    """A few CS188 trees per question, and CS188's q5 games cut to 2 (for the leaderboard)."""
    suite = make_mini(arena, {**MINI, "q5": []})
    shutil.copy(BERKELEY / "q5" / "grade-agent.test", suite / "q5" / "grade-agent.test")
    test = suite / "q5" / "grade-agent.test"
    test.write_text(test.read_text().replace('numGames: "10"', 'numGames: "2"'))
    return suite


#: The course's secret the bundle is made with (its ghosts draw with it, for every
#: submission): a local run given it plays the same games.
BUNDLE_SECRET = "the course's own"


def _local(suite: Path, text: str, folder: Path) -> dict:
    """What ``autograder.py --results`` says of the file ``text``, graded here with the
    secret the bundle gives every file."""
    folder.mkdir(parents=True)
    (folder / "multiAgents.py").write_text(text)
    results = folder / "results.json"
    command = [
        sys.executable,
        str(REPO / "autograder.py"),
        "--test-directory",
        str(suite),
        "--code-directory",
        str(folder),
        "--move-timeout",
        "10",
        "--results",
        str(results),
        "--game-secret",
        BUNDLE_SECRET,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(results.read_text())


def _gradescope_script(arena: Path, bundle: Path, python: Path, runs: dict[str, list[str]]) -> str:
    """Shell run as root in a private mount namespace: /autograder as Gradescope lays it
    out, setup.sh once, then run_autograder per submission (each run's command given)."""
    quote = lambda text: "'" + str(text).replace("'", "'\\''") + "'"  # noqa: E731
    lines = [
        "set -e",
        "mount -t tmpfs -o mode=0755 none /autograder",
        "mkdir -p /autograder/source /autograder/submission /autograder/results",
        f"cd /autograder/source && {quote(python)} -m zipfile -e {quote(bundle)} .",
        "chmod 755 setup.sh run_autograder",
        "cp /autograder/source/run_autograder /autograder/run_autograder",
        f"PACMAN_PYTHON={quote(python)} PIP_NO_INDEX=1 bash /autograder/source/setup.sh"
        f" > {quote(arena / 'setup.log')} 2>&1",
    ]
    for name, command in runs.items():
        lines += [
            "rm -rf /autograder/submission/* /autograder/results/results.json",
            f"cp {quote(arena / 'hand-in' / name / 'multiAgents.py')} /autograder/submission/",
            f"cd /autograder && {' '.join(quote(part) for part in command)}"
            f" > {quote(arena / (name + '.stdout'))} 2>&1",
            f"cp /autograder/results/results.json {quote(arena / (name + '.json'))}",
        ]
    return "\n".join(lines) + "\n"


def _questions(results: dict) -> dict[str, float]:
    return {
        t["name"].split()[-1]: t["score"] for t in results["tests"] if t["name"].startswith("Q")
    }


@needs_root
@needs_berkeley
@pytest.mark.skipif(not shutil.which("unshare"), reason="util-linux unshare is needed")
def test_bundle_grades_on_gradescope_as_root_and_with_docker_capabilities(arena):
    suite = _suite(arena)
    bundle = arena / "autograder.zip"
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "autograder.py"),
            "--gradescope-bundle",
            str(bundle),
            "--test-directory",
            str(suite),
            "--move-timeout",
            "10",
            "--hidden",
            "q4,q3/6-tied-root",
            "--leaderboard",
            "--game-secret",
            BUNDLE_SECRET,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Wrote {bundle}: 4 questions (21 points), multiAgents.py, ")
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
    assert names[:3] == ["setup.sh", "run_autograder", "pacman-bundle.json"]
    assert names[3] == "pacman_multiagent-0.1.0-py3-none-any.whl"
    assert sorted(n for n in names[4:]) == sorted(
        "test_cases/" + str(p.relative_to(suite)) for p in suite.rglob("*") if p.is_file()
    )
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    with zipfile.ZipFile(bundle) as archive:
        config = json.loads(archive.read("pacman-bundle.json"))
    assert config["platform_time_limit"] == 600.0  # Gradescope's default timeout

    hand_in = arena / "hand-in"
    texts = {"honest": HONEST.read_text(), "mutant": submission_text(MUTANT)}
    local = {name: _local(suite, text, hand_in / name) for name, text in texts.items()}
    assert local["honest"]["score"] == 21 - 6 + local["honest"]["tests"][-1]["score"]
    python = python_with_tqdm(arena)
    needed = sorted(
        {os.path.realpath(p) for p in (sys.base_prefix, os.path.dirname(os.path.realpath(python)))}
    )
    runs = {}
    for setting in ("root", "docker"):
        for name in texts:
            runs[f"{name}-{setting}"] = in_setting(["/autograder/run_autograder"], needed, setting)
    for run in runs:
        (hand_in / run).mkdir()
        shutil.copy(hand_in / run.split("-")[0] / "multiAgents.py", hand_in / run)
    created = not os.path.exists("/autograder")
    if created:
        os.mkdir("/autograder")  # the mount point only: everything lives on the private tmpfs
    try:
        script = arena / "gradescope.sh"
        script.write_text(_gradescope_script(arena, bundle, python, runs))
        shell = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "/bin/sh", str(script)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        if created:
            os.rmdir("/autograder")
    setup_log = (arena / "setup.log").read_text() if (arena / "setup.log").exists() else ""
    assert shell.returncode == 0, shell.stderr + setup_log
    assert "pacman-multiagent grader installed" in setup_log

    for run in runs:
        name, setting = run.split("-")
        results = json.loads((arena / f"{run}.json").read_text())
        stdout = (arena / f"{run}.stdout").read_text()
        assert "Traceback" not in stdout, stdout
        # The same points as autograder.py gives here, question by question.
        assert results["score"] == local[name]["score"], (run, results["output"])
        assert _questions(results) == {
            t["name"].split()[-1]: t["score"] for t in local[name]["tests"]
        }
        protections = results["extra_data"]["protections"]
        assert all(
            protections[k] is True
            for k in ("no_capabilities", "own_uid", "seccomp", "answers_hidden")
        ), (run, protections)
        assert results["extra_data"]["isolation"] == (
            "namespaces" if setting == "root" else "process"
        )
        tests = {t["name"]: t for t in results["tests"]}
        assert [t["name"] for t in results["tests"]][:4] == [
            "Question q2",
            "q2/0-small-tree",
            "q2/2-1a-vary-depth",
            "q2/2-1b-vary-depth",
        ]
        assert {n for n, t in tests.items() if t["visibility"] == "after_published"} == {
            "Question q3",
            "q3/6-tied-root",
            "Question q4",
            "q4/0-expectimax1",
            "q4/3-one-ghost-4level",
        }
        assert [e["name"] for e in results["leaderboard"]] == [
            "Player",
            "Score",
            "Wins",
            "Average score",
            "Crashes",
            "Timeouts",
        ]
        if name == "honest":
            assert all(t["status"] == "passed" for n, t in tests.items() if "q5" not in n)
            assert results["leaderboard"][2]["value"] == 2  # both games won
        else:
            failed = tests["q3/6-tied-root"]
            assert failed["status"] == "failed" and tests["Question q3"]["score"] == 0
            assert "*** FAIL: test_cases/q3/6-tied-root.test" in failed["output"]
            assert (
                "Diagnosis: your move and generated states are exactly those of alpha-beta pruning on equality"
                in failed["output"]
            )
    # Root and Docker's capabilities grade alike, to the leaderboard's numbers.
    for name in texts:
        a, b = (json.loads((arena / f"{name}-{s}.json").read_text()) for s in ("root", "docker"))
        assert a["leaderboard"] == b["leaderboard"] and a["score"] == b["score"]


# ------------------------------------------------------------------------------ fast checks


@needs_berkeley
def test_refusal_rules_hold_inside_the_bundle(tmp_path, capsys):
    """Where a worker cannot prove its walls, run_autograder grades nothing and says why
    in results.json (no Landlock and no namespaces: the answers would be readable)."""
    if os.geteuid() != 0:
        pytest.skip("the refused setting (root, process isolation, no Landlock) needs root")
    root = tmp_path / "autograder"
    source = root / "source"
    (root / "submission").mkdir(parents=True)
    shutil.copy(HONEST, root / "submission" / "multiAgents.py")
    shutil.copytree(make_mini(tmp_path, {"q2": ["0-small-tree"]}), source / "test_cases")
    config = {
        "format": "pacman-gradescope-bundle",
        "version": 2,
        "student_code": ["multiAgents.py"],
        "options": {"isolation": "process", "landlock_abi_cap": 0},
        "hidden": [],
        "leaderboard": False,
        "game_secret": "the course's",
    }
    (source / "pacman-bundle.json").write_text(json.dumps(config))
    from pacman.grading.gradescope import main as run_autograder

    assert run_autograder([str(root)]) == 0
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0.0 and results["tests"] == []
    assert results["output"].startswith(
        "autograder: refusing to grade with Gradescope: student code could "
    )
    assert "read the test answers" in results["output"]
    assert capsys.readouterr().err == results["output"] + "\n"


def test_student_files_are_found_in_handed_in_folders(tmp_path):
    (tmp_path / "top.py").write_text("")
    (tmp_path / "project" / "sub").mkdir(parents=True)
    (tmp_path / "project" / "sub" / "multiAgents.py").write_text("")
    assert find_files(str(tmp_path), ["top.py", "multiAgents.py"]) == [
        "top.py",
        "project/sub/multiAgents.py",
    ]
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "multiAgents.py").write_text("")
    with pytest.raises(Exception, match=r"^multiAgents.py was handed in 2 times: hand in "):
        find_files(str(tmp_path), ["multiAgents.py"])
    with pytest.raises(Exception, match=r"^missing.py was not handed in: hand in missing.py$"):
        find_files(str(tmp_path), ["missing.py"])


def test_hidden_names_are_checked_against_the_suite(capsys):
    questions = load_suite(str(REPO / "test_cases"))
    assert hidden_names("q5, q2/1-one-ghost-depth1.test", questions) == [
        "q5",
        "q2/1-one-ghost-depth1",
    ]
    code = main(["--gradescope-bundle", "x.zip", "--hidden", "q9"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == (
        "autograder: --hidden q9: no such question or test in the suite "
        "(questions: q1 q2 q3 q4 q5 q6 q7; a test is written q2/NAME)\n"
    )
    assert main(["--hidden", "q2"]) == 2
    assert capsys.readouterr().err == (
        "autograder: --hidden and --hidden-visibility go with --gradescope-bundle ZIP\n"
    )


def test_a_leaderboard_needs_games(capsys):
    """Neither a bundle's leaderboard nor a class's has anything to rank without games."""
    for flags in (["--gradescope-bundle", "x.zip"], ["--submissions", str(REPO / "tests")]):
        assert main([*flags, "-q", "q2", "--leaderboard"]) == 2
        assert capsys.readouterr().err == (
            "autograder: --leaderboard ranks by the suite's EvalAgentTest games, and the "
            "questions graded have none (choose them with -q, or leave out --leaderboard)\n"
        )
