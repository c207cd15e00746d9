"""The Gradescope bundle in a container without Landlock, with Docker's default capabilities.

No namespaces (no CAP_SYS_ADMIN) and no Landlock (the bundle's hidden ``--landlock-abi 0``
stands in for an older kernel or Docker's older seccomp profile): the only wall left
between a student's worker and the answers is file permissions. The bundle knows every
copy of the tests in its container (its own folder, the wheel it installed), so it locks
them, the proof checks each, and grading goes on, recorded as hidden by permissions.

The container is a root of its own (tmpfs, the system's folders bound read-only, the
Python the bundle installs into, a fresh /autograder), entered with chroot, so nothing of
the test machine (this checkout, other copies of the suite) is in it, as in Gradescope's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from grading_settings import DOCKER_CAPS, python_with_tqdm
from grading_submissions import BERKELEY, HONEST

REPO = Path(__file__).resolve().parents[1]

#: Walks the container for every copy of the tests and the reference code it can find, and
#: tries to read each; then plays honestly (its searches are the honest file's).
THIEF = r'''
import os as _os

def _loot(path, name):
    """A copy of the tests, the project's wheel, or the reference search (or its bytecode)."""
    in_suite = _os.sep + "test_cases" + _os.sep in path
    grading = _os.sep + "grading" + _os.sep in path
    return (
        name.endswith(".solution")
        or (in_suite and name.endswith((".test", "CONFIG")))
        or name.startswith("pacman_multiagent")
        or (grading and name.startswith(("reference", "diagnose")))
    )


def _steal():
    found, read = [], []
    for top, folders, files in _os.walk("/"):
        folders[:] = [f for f in folders if _os.path.join(top, f) not in ("/proc", "/sys", "/dev")]
        for name in files:
            path = _os.path.join(top, name)
            if _loot(path, name):
                found.append(path)
                try:
                    with open(path, "rb") as handle:
                        handle.read(64)
                    read.append(path)
                except OSError:
                    pass
    for path in ("/autograder/source", "/autograder/source/test_cases"):
        try:
            read += [_os.path.join(path, n) for n in _os.listdir(path)]
        except OSError:
            pass
    print("THIEF found", len(found), "read", len(read), *read[:5])


_steal()
'''


def _container_script(arena: Path, root: Path, python: Path, runs: list[str]) -> str:
    """Shell, run as root in a private mount namespace: the container's root, setup.sh in
    it, then run_autograder for each hand-in with Docker's default capabilities."""
    quote = lambda text: "'" + str(text).replace("'", "'\\''") + "'"  # noqa: E731
    r = quote(root)
    lines = ["set -e", f"mount -t tmpfs -o mode=0755 none {r}"]
    for folder in ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc"):
        if os.path.islink(folder):
            lines.append(f"ln -s {quote(os.readlink(folder))} {r}{folder}")
        elif os.path.isdir(folder):
            lines.append(f"mkdir -p {r}{folder} && mount --rbind {folder} {r}{folder}")
    # The Python the image has, readable by everyone (Gradescope's is /usr/bin/python3).
    for path in sorted({os.path.realpath(sys.base_prefix), str(python.parent.parent)}):
        lines.append(f"mkdir -p {r}{quote(path)} && mount --bind {quote(path)} {r}{quote(path)}")
    lines += [
        f"mkdir -p {r}/proc {r}/dev {r}/tmp {r}/autograder/source {r}/autograder/submission",
        f"mkdir -p {r}/autograder/results && chmod 1777 {r}/tmp",
        f"mount -t proc proc {r}/proc && mount --rbind /dev {r}/dev",
        f"cd {r}/autograder/source && {quote(python)} -m zipfile -e "
        f"{quote(arena / 'build' / 'autograder.zip')} .",
        f"cp {r}/autograder/source/run_autograder {r}/autograder/run_autograder",
        f"chmod 755 {r}/autograder/run_autograder {r}/autograder/source/setup.sh",
        f"chroot {r} /usr/bin/env PACMAN_PYTHON={quote(python)} PIP_NO_INDEX=1 "
        f"bash /autograder/source/setup.sh > {quote(arena / 'setup.log')} 2>&1",
    ]
    caps = "--inh-caps=-all --ambient-caps=-all --bounding-set=-all," + ",".join(
        "+" + cap for cap in DOCKER_CAPS.split(",")
    )
    for name in runs:
        lines += [
            f"rm -rf {r}/autograder/submission/* {r}/autograder/results/results.json",
            f"cp {quote(arena / 'hand-in' / name / 'multiAgents.py')} {r}/autograder/submission/",
            f"chroot {r} /bin/sh -c 'cd /autograder && exec setpriv {caps} -- "
            f"/autograder/run_autograder' > {quote(arena / (name + '.stdout'))} 2>&1",
            f"cp {r}/autograder/results/results.json {quote(arena / (name + '.json'))}",
        ]
    return "\n".join(lines) + "\n"


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="the container is built as root"
)
@pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present")
@pytest.mark.skipif(not shutil.which("unshare"), reason="util-linux unshare is needed")
def test_the_bundle_hides_the_answers_by_permissions_where_landlock_is_missing():
    # (The bundle's secret is fixed: with another, CS188's q5 may cost an honest file a
    # point of luck; docs/grading.md gives the odds.)
    arena = Path(tempfile.mkdtemp(prefix="pacman-container-"))
    try:
        arena.chmod(0o755)
        (arena / "build").mkdir()
        suite = arena / "build" / "test_cases"
        shutil.copytree(BERKELEY, suite)
        made = subprocess.run(
            [sys.executable, str(REPO / "autograder.py"), "--gradescope-bundle",
             str(arena / "build" / "autograder.zip"), "--test-directory", str(suite),
             "--landlock-abi", "0", "--game-secret", "the course's own"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        for name, text in (("honest", HONEST.read_text()), ("thief", THIEF + HONEST.read_text())):
            (arena / "hand-in" / name).mkdir(parents=True)
            (arena / "hand-in" / name / "multiAgents.py").write_text(text)
        python = python_with_tqdm(arena)
        root = arena / "root"
        root.mkdir()
        script = arena / "container.sh"
        script.write_text(_container_script(arena, root, python, ["honest", "thief"]))
        done = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "/bin/sh", str(script)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        setup_log = (arena / "setup.log").read_text() if (arena / "setup.log").exists() else ""
        assert done.returncode == 0, done.stderr + setup_log
        for name in ("honest", "thief"):
            results = json.loads((arena / f"{name}.json").read_text())
            assert "Traceback" not in (arena / f"{name}.stdout").read_text()
            assert results["score"] == 25, (name, results["output"][-2000:])
            protections = results["extra_data"]["protections"]
            assert results["extra_data"]["isolation"] == "process"
            assert protections["landlock"] == 0 and protections["answers_hidden"] is True
            assert protections["answers_hidden_by"] == ["permissions"], protections
            assert protections["separate_uid"] is True and protections["no_capabilities"]
        thief = json.loads((arena / "thief.json").read_text())["output"]
        line = next(line for line in thief.splitlines() if "THIEF found" in line)
        found = int(line.split("THIEF found ")[1].split()[0])
        assert found > 0 and line.split(" read ")[1].split()[0] == "0", line
    finally:
        shutil.rmtree(arena, ignore_errors=True)
