"""The Gradescope bundle: ``pacman autograde --gradescope-bundle autograder.zip``.

The zip holds what Gradescope asks for at its root (``setup.sh`` and ``run_autograder``),
the project as a wheel, the suite, and ``pacman-bundle.json`` with the grading options the
bundle was made with. Gradescope unpacks it into ``/autograder/source`` and runs
``setup.sh`` once while it builds the image (it installs the wheel); for each submission
it runs ``run_autograder`` from ``/autograder``, which calls :func:`main` here: the files
in ``/autograder/submission`` are graded exactly as ``autograder.py`` grades them (same
sandbox, same proof, same refusals) and ``/autograder/results/results.json`` is written
in Gradescope's format, whatever happens.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import traceback
import zipfile
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TextIO

from pacman import untrusted
from pacman.errors import PacmanError, UsageError
from pacman.execution import interruption_handled
from pacman.extras import DISTRIBUTION
from pacman.grading.bundle_safety import (
    DEFAULT_PLATFORM_LIMIT,
    PlatformTimer,
    ReportCopy,
    check_bundle_suite,
    leaderboard_name,
    stopped_by_signal_note,
)
from pacman.grading.options import HIDDEN_VISIBILITIES, GradingJob, GradingOptions
from pacman.seeding import new_secret

BUNDLE_FORMAT = "pacman-gradescope-bundle"
BUNDLE_VERSION = 2  # 2: the grading options as JSON, no longer as autograder flags
CONFIG_NAME = "pacman-bundle.json"

_SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder's image.
# It installs the grader from the wheel beside it, with its one dependency (tqdm): from
# PyPI, unless it is installed already (then no network is needed).
set -euo pipefail
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WHEEL="$SOURCE/@WHEEL@"
PYTHON="${PACMAN_PYTHON:-}"
if [ -z "$PYTHON" ]; then
    for candidate in python3.13 python3.12 python3.11 python3.10 python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
            PYTHON="$(command -v "$candidate")"
            break
        fi
    done
fi
if [ -z "$PYTHON" ] || ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
    apt-get update -qq
    apt-get install -y -qq python3 python3-pip >/dev/null
    PYTHON="${PYTHON:-$(command -v python3)}"
fi
# Gradescope's images are thrown away after grading: a system-wide install is what they expect.
export PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1
if ! "$PYTHON" -m pip install -q --no-index --find-links "$SOURCE" "$WHEEL" 2>/dev/null; then
    "$PYTHON" -m pip install -q "$WHEEL"
fi
"$PYTHON" -c 'import sys; print(sys.executable)' > "$SOURCE/.python"
"$PYTHON" -I -m pacman.grading.gradescope --check "$SOURCE"
"""

_RUN = """#!/usr/bin/env bash
# Gradescope runs this from /autograder for every submission: it grades
# /autograder/submission and writes /autograder/results/results.json (saying why,
# with no points, when grading cannot run). Tests are named as in the suite
# (test_cases/q2/...), from the bundle's own folder.
SOURCE=/autograder/source
cd "$SOURCE"
PYTHON="$(cat "$SOURCE/.python" 2>/dev/null || command -v python3)"
exec "$PYTHON" -I -m pacman.grading.gradescope /autograder
"""


# ------------------------------------------------------------------------------ building


def hidden_names(text: str | None, questions: Sequence[Any]) -> list[str]:
    """``--hidden q4,q2/1-one-ghost-depth1``: questions and tests of the suite, checked."""
    if not text:
        return []
    known = {q.name for q in questions}
    tests = {f"{q.name}/{_test_name(test)}" for q in questions for test, _ in q.tests}
    names = [name.strip().strip("/") for name in text.split(",") if name.strip()]
    for name in names:
        if name.endswith(".test"):
            name = name[: -len(".test")]
        if name not in known and name not in tests:
            raise UsageError(
                f"--hidden {name}: no such question or test in the suite "
                f"(questions: {' '.join(sorted(known))}; a test is written q2/NAME)"
            )
    return [n[: -len(".test")] if n.endswith(".test") else n for n in names]


def _test_name(test: Any) -> str:
    return os.path.splitext(os.path.basename(test.path))[0]


def build_wheel(folder: str) -> str:
    """The project as a wheel in ``folder``; returns its path.

    From a checkout (an editable install, or run from the source) it is built with
    ``pip wheel --no-deps``; a grader installed from a wheel (``pip install ".[pygame]"``)
    packs the installed distribution again, file for file (:func:`pack_installed`).
    """
    from pacman.sandbox.isolation import PROJECT_ROOT

    if not os.path.isfile(os.path.join(PROJECT_ROOT, "pyproject.toml")):
        return pack_installed(folder, PROJECT_ROOT)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", folder, PROJECT_ROOT]
    done = subprocess.run(command, capture_output=True, text=True)
    wheels = [name for name in os.listdir(folder) if name.endswith(".whl")]
    if done.returncode != 0 or len(wheels) != 1:
        said = [line for line in done.stderr.splitlines() if line.strip()]
        reason = said[-1] if said else f"exit status {done.returncode}"
        raise UsageError(f"--gradescope-bundle: building the wheel failed: {reason}")
    return os.path.join(folder, wheels[0])


#: What an installer adds to a dist-info folder: they describe one installation, not the
#: project (RECORD is written anew for the packed files).
_INSTALLER_FILES = frozenset({"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"})


def pack_installed(folder: str, root: str) -> str:
    """The installed distribution whose package is under ``root`` as a wheel in ``folder``:
    every file its RECORD lists inside ``root`` (not the console script an installer wrote
    elsewhere, nor byte code), with its metadata and a RECORD of their hashes."""
    import base64
    import hashlib
    from importlib import metadata

    checkout_hint = (
        "make the bundle from a checkout of the project (pip install -e CHECKOUT, then "
        "pacman autograde --gradescope-bundle ZIP)"
    )
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        dist = None
    files = (dist.files if dist is not None else None) or []
    # The dist-info folder, as the installed copy names it; and it must be the running copy.
    info = next((e.parent.as_posix() for e in files if e.name == "METADATA"), None)
    running = os.path.realpath(os.path.join(root, "pacman", "__init__.py"))
    if (
        dist is None
        or info is None
        # str(): locate_file is typed as returning a bare SimplePath; it is a pathlib.Path.
        or os.path.realpath(str(dist.locate_file("pacman/__init__.py"))) != running
    ):
        raise UsageError(
            f"--gradescope-bundle: the grader at {root} is neither a checkout (no "
            f"pyproject.toml) nor an installed {DISTRIBUTION} with a RECORD; {checkout_hint}"
        )
    wheel_text = dist.read_text("WHEEL") or ""
    tags = [
        line.split(":", 1)[1].strip() for line in wheel_text.splitlines() if line.startswith("Tag:")
    ]
    name = f"{info.removesuffix('.dist-info')}-{'.'.join(tags) or 'py3-none-any'}.whl"
    record = []
    target = os.path.join(folder, name)
    with zipfile.ZipFile(target, "w") as archive:
        for entry in sorted(files, key=str):
            path = entry.as_posix()
            if (
                path.startswith(("../", "/"))
                or "__pycache__/" in path
                or path.endswith(".pyc")
                or (path.startswith(info + "/") and entry.name in _INSTALLER_FILES)
            ):
                continue
            try:
                data = entry.read_binary()
            except OSError as error:
                raise UsageError(
                    f"--gradescope-bundle: cannot read the installed {path} "
                    f"({error.strerror}); {checkout_hint}"
                ) from None
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{path},sha256={digest.decode()},{len(data)}\n")
            _add(archive, path, data)
        record.append(f"{info}/RECORD,,\n")
        _add(archive, f"{info}/RECORD", "".join(record).encode())
    return target


def _add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    archive.writestr(info, data)


def build_bundle(job: GradingJob, options: GradingOptions) -> str:
    """Write the zip ``job.bundle``; returns a one-line summary of what it holds."""
    from pacman.grading.submission import suite_to_send
    from pacman.outputs import prepare_output_file

    target = job.bundle or ""
    if not target.endswith(".zip"):
        raise UsageError(f"--gradescope-bundle {target}: name the zip to write (a .zip file)")
    prepare_output_file("--gradescope-bundle", target)
    questions, suite = suite_to_send(job, options)  # a broken suite fails here, not on Gradescope
    hidden = hidden_names(job.hidden, questions)
    with tempfile.TemporaryDirectory(prefix="pacman-bundle-") as scratch:
        wheel = build_wheel(scratch)
        config: dict[str, Any] = {
            "format": BUNDLE_FORMAT,
            "version": BUNDLE_VERSION,
            "student_code": list(job.student_code),
            "options": replace(options, game_secret=None).to_json(),
            "hidden": hidden,
            "hidden_visibility": job.hidden_visibility,
            "leaderboard": job.leaderboard,
            "platform_time_limit": job.platform_time_limit,
            "wheel": os.path.basename(wheel),
            # The ghosts' secret: kept with the hidden files, so a regrade plays the same games.
            "game_secret": options.game_secret or new_secret(),
        }
        partial = target + ".part"
        with zipfile.ZipFile(partial, "w") as archive:
            _add(archive, "setup.sh", _SETUP.replace("@WHEEL@", config["wheel"]).encode(), True)
            _add(archive, "run_autograder", _RUN.encode(), True)
            _add(archive, CONFIG_NAME, (json.dumps(config, indent=2) + "\n").encode())
            with open(wheel, "rb") as handle:
                _add(archive, config["wheel"], handle.read())
            for relative, data in sorted(suite.items()):
                _add(archive, "test_cases/" + relative.replace(os.sep, "/"), data)
        os.replace(partial, target)
    points = sum(q.max_points for q in questions)
    return (
        f"Wrote {target}: {len(questions)} question{'' if len(questions) == 1 else 's'} "
        f"({points} points), "
        f"{', '.join(job.student_code)}, {config['wheel']}; grading with "
        + shlex.join(options.as_flags())
    )


# ------------------------------------------------------------------------------ on Gradescope


def find_files(folder: str, names: list[str]) -> list[str]:
    """Each student file's path inside ``folder``: at its top, else the one file of that name
    below it (students hand in folders and zips). Links are never followed."""
    found = []
    for name in names:
        if os.path.lexists(os.path.join(folder, name)):
            found.append(name)
            continue
        matches = []
        for top, folders, files in os.walk(folder):
            folders[:] = sorted(f for f in folders if not f.startswith((".", "__MACOSX")))
            if os.path.basename(name) in files:
                matches.append(os.path.relpath(os.path.join(top, os.path.basename(name)), folder))
        if len(matches) != 1:
            why = "was not handed in" if not matches else f"was handed in {len(matches)} times"
            raise UsageError(f"{untrusted.line(name)} {why}: hand in {', '.join(names)}")
        found.append(matches[0])
    return found


def _visibility(hidden: set[str], names: Sequence[str], when: str) -> str:
    return when if any(name in hidden for name in names) else "visible"


#: What the visible output says of hidden questions' results, by their visibility.
_LATER = {
    "after_published": "appear when the grades are published",
    "after_due_date": "appear after the due date",
    "hidden": "are for the course staff only",
}


def _visible_output(run: Any, held_back: list[Any], when: str, mute: bool) -> str:
    """The output every student sees at once when some questions are hidden: the import's
    report and the total over the visible questions, as their points would tell nothing of
    the hidden ones; then how many questions are held back and when they appear."""
    from pacman.grading.report import import_report, protection_summary

    shown = [q for q in run.questions if q not in held_back]
    points = sum(q.points for q in shown)
    most = sum(q.max_points for q in shown)
    more = f"{len(held_back)} more question{'' if len(held_back) == 1 else 's'}"
    return "\n".join(
        [
            *import_report(run.load_error, run.import_output, mute),
            f"Total of the visible questions: {points:g}/{most} "
            f"(isolation: {protection_summary(run)})",
            f"The results of {more} {_LATER.get(when, _LATER['hidden'])}.",
        ]
    )


def gradescope_results(
    run: Any,
    warning: str | None,
    config: dict[str, Any],
    mute: bool,
    graded: dict[str, Any] | None = None,
    player: tuple[str, str | None] = ("", None),
) -> dict[str, Any]:
    """Gradescope's results.json for one graded run (``graded``: what was graded, named in
    ``extra_data`` and in the output's first line).

    One entry per question carries its points (CS188's question kinds decide them); one
    entry per test, without points of its own, says whether it passed and shows its
    report. A question is hidden when it or any of its tests is (its points would tell).
    """
    from pacman.grading.report import format_test, graded_line, results_json

    base = results_json(run, mute)
    hidden = set(config.get("hidden", []))
    when = config.get("hidden_visibility", HIDDEN_VISIBILITIES[0])
    tests: list[dict[str, Any]] = []
    held_back = []
    for number, question in enumerate(run.questions, start=1):
        names = [
            f"{question.name}/{os.path.splitext(os.path.basename(r.path))[0]}"
            for r in question.tests
        ]
        shown_as = _visibility(hidden, [question.name, *names], when)
        if shown_as != "visible":
            held_back.append(question)
        passed = sum(1 for r in question.tests if r.passed)
        tests.append(
            {
                "name": f"Question {question.name}",
                "number": str(number),
                "score": question.points,
                "max_score": question.max_points,
                "status": "passed" if question.points >= question.max_points else "failed",
                "output": "\n".join(
                    [f"{passed} of {len(question.tests)} tests passed.", *question.messages]
                ),
                "visibility": shown_as,
            }
        )
        for index, (name, result) in enumerate(zip(names, question.tests, strict=True), start=1):
            tests.append(
                {
                    "name": name,
                    "number": f"{number}.{index}",
                    "score": 0.0,
                    "max_score": 0.0,
                    "status": "passed" if result.passed else "failed",
                    "output": "\n".join(format_test(result, mute)),
                    "visibility": _visibility(hidden, [question.name, name], when),
                }
            )
    output = base["output"] if not held_back else _visible_output(run, held_back, when, mute)
    if warning is not None:
        output = f"{warning}\n{output}"
    if graded is not None:
        output = f"{graded_line(graded)}\n{output}"
    if config.get("leaderboard") and player[1]:
        output = f"{output}\n{player[1]}"
    results: dict[str, Any] = {
        "score": run.total,
        "execution_time": base["execution_time"],
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            "protections": run.protections,
            "isolation": run.isolation,
            **({"graded": graded} if graded is not None else {}),
        },
    }
    if config.get("leaderboard"):
        results["leaderboard"] = leaderboard_entries(run, player[0])
    return results


def leaderboard_entries(run: Any, player: str) -> list[dict[str, Any]]:
    """Gradescope's leaderboard columns: the student's leaderboard name, the total, and
    the run's EvalAgentTest games."""
    from pacman.grading.leaderboard import game_totals

    totals = game_totals(result for q in run.questions for result in q.tests)
    return [
        {"name": "Player", "value": player},
        {"name": "Score", "value": run.total},
        {"name": "Wins", "value": totals["wins"]},
        {"name": "Average score", "value": round(totals["mean_score"], 2)},
        {"name": "Crashes", "value": totals["crashes"], "order": "asc"},
        {"name": "Timeouts", "value": totals["timeouts"], "order": "asc"},
    ]


def failed_results(why: str) -> dict[str, Any]:
    """What Gradescope shows when nothing could be graded: no points, and why."""
    return {"score": 0.0, "output": why, "visibility": "visible", "tests": []}


def read_config(source: str) -> dict[str, Any]:
    path = os.path.join(source, CONFIG_NAME)
    try:
        with open(path, encoding="utf-8") as handle:
            config = json.load(handle)
    except (OSError, ValueError) as error:
        raise UsageError(f"{path}: not a readable bundle configuration ({error})") from None
    if not isinstance(config, dict) or config.get("format") != BUNDLE_FORMAT:
        raise UsageError(f"{path}: not a {BUNDLE_FORMAT} configuration")
    if config.get("version") != BUNDLE_VERSION or not isinstance(config.get("options"), dict):
        raise UsageError(
            f"{path}: a bundle of version {config.get('version')}; this grader reads version "
            f"{BUNDLE_VERSION}: make the bundle again"
        )
    return config


def bundle_secret(config: dict[str, Any]) -> str:
    """The ghosts' secret of every submission the bundle grades: the bundle's own, never
    mixed with a submission's files, so a regrade and a resubmission meet the same games
    (trees drawn per submission still mix in its files: :mod:`pacman.grading.suitegen`)."""
    secret = config.get("game_secret")
    if not isinstance(secret, str) or not secret:
        raise UsageError(f"{CONFIG_NAME}: the bundle has no game_secret; make it again")
    return secret


def grade_bundle(root: str, out: TextIO, timer: PlatformTimer | None = None) -> dict[str, Any]:
    """Grade ``root``/submission with the bundle in ``root``/source; Gradescope's JSON
    (``timer``, started here: the platform's time limit the bundle was made with)."""
    from pacman.grading.job import grade_one

    source = os.path.join(root, "source")
    config = read_config(source)
    if timer is not None:
        limit = float(config.get("platform_time_limit") or DEFAULT_PLATFORM_LIMIT)
        when = config.get("hidden_visibility", HIDDEN_VISIBILITIES[0])
        timer.start(limit, config.get("hidden", []), when)
    check_bundle_suite(os.path.join(source, "test_cases"))
    submission = os.path.join(root, "submission")
    if not os.path.isdir(submission):
        raise UsageError(f"{submission}: no submission folder")
    names = find_files(submission, list(config["student_code"]))
    options = replace(
        GradingOptions.from_json(config["options"]),
        game_secret=bundle_secret(config),
        # The bundle put every copy of the tests here (its own folder, the installed wheel):
        # file permissions hide them where Landlock is missing.
        lock_answers=True,
    )
    job = GradingJob(
        test_root=os.path.join(source, "test_cases"),
        code_root=submission,
        student_code=tuple(names),
        in_bundle=True,  # grades leave the run: the refusal rules of --results hold
        # The bundle's own folder (suite, configuration, secret, wheel) is answers, all of it.
        hide=(source,),
    )
    graded = grade_one(job, options, out)
    assert graded is not None  # never --generate-solutions here
    run, warning = graded
    player = leaderboard_name(root, str(config.get("game_secret")), os.path.dirname(names[0]))
    return gradescope_results(run, warning, config, options.mute, job.graded(), player)


def main(argv: Sequence[str] | None = None) -> int:
    """``run_autograder``: ``python -m pacman.grading.gradescope [/autograder]``.

    results.json is written in every case Gradescope can show: graded, refused (the sandbox
    cannot prove its walls there), or not gradable (a file missing): exit status 0 then,
    the reason in its output; 2 only when results.json cannot be written at all.
    """
    from pacman.grading.report import write_json

    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--check"]:
        # setup.sh's last step: the bundle's configuration reads and the grader imports.
        read_config(args[1] if len(args) > 1 else "/autograder/source")
        import pacman.grading.job  # noqa: F401

        print("pacman-multiagent grader installed")
        return 0
    root = args[0] if args else "/autograder"
    target = os.path.join(root, "results", "results.json")
    report = ReportCopy(sys.stdout)
    timer = PlatformTimer(lambda data: write_json(target, data), report)
    try:
        with interruption_handled():
            results = grade_bundle(root, report, timer)
    except KeyboardInterrupt:  # the timer's SIGTERM, or the platform's
        results = timer.fired or timer.stopped(stopped_by_signal_note())
    except PacmanError as error:
        line = str(error) if str(error).startswith("autograder:") else f"autograder: {error}"
        print(line, file=sys.stderr)
        results = failed_results(line)
    except Exception as error:  # the grader's own failure: the instructor needs the traceback
        traceback.print_exc()
        results = failed_results(
            f"autograder: the grader failed ({type(error).__name__}: {untrusted.line(error)}); "
            "nothing was graded: please tell the course staff"
        )
    finally:
        timer.cancel()
    results.setdefault("execution_time", round(timer.elapsed(), 3))
    try:
        write_json(target, results)
    except OSError as error:
        print(f"autograder: cannot write results.json: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
