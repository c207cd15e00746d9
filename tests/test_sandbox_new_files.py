"""The seccomp rule for process isolation without Landlock: no new file or folder anywhere,
while reading and writing files that exist go on as before; links are never made."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pacman.sandbox import seccomp

if seccomp.architecture() is None:
    pytest.skip(
        "seccomp filters are written for Linux on x86-64 and AArch64", allow_module_level=True
    )

# Runs in a child of its own: a seccomp filter cannot be taken off a process.
CHILD = r"""
import json, os, sys
from pacman.sandbox import seccomp
from pacman.sandbox.syscalls import prctl

folder, existing = sys.argv[1], sys.argv[2]
prctl(38, 1)  # no_new_privs, which an unprivileged process needs to install a filter
seccomp.install(seccomp.architecture(), no_new_files=sys.argv[3] == "1")


def outcome(action):
    try:
        action()
    except OSError as error:
        return error.errno
    return 0


found = {
    "create": outcome(lambda: os.close(os.open(os.path.join(folder, "new"), os.O_WRONLY | os.O_CREAT))),
    "tmpfile": outcome(lambda: os.close(os.open(folder, os.O_WRONLY | os.O_TMPFILE))),
    "mkdir": outcome(lambda: os.mkdir(os.path.join(folder, "made"))),
    "symlink": outcome(lambda: os.symlink(existing, os.path.join(folder, "link"))),
    "link": outcome(lambda: os.link(existing, os.path.join(folder, "hard"))),
    "devnull_w": outcome(lambda: open(os.devnull, "w").close()),
    "read": outcome(lambda: open(existing).read()),
    "append_existing": outcome(lambda: open(existing, "r+").write("more")),
}
print(json.dumps(found))
"""


def _run(tmp_path, no_new_files: bool) -> dict[str, int]:
    existing = tmp_path / "existing.txt"
    existing.write_text("kept")
    folder = tmp_path / "shared"
    folder.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), str(existing), "1" if no_new_files else "0"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


def test_no_new_files_refuses_every_way_of_making_one_and_keeps_existing_files(tmp_path):
    eperm = 1
    assert _run(tmp_path, no_new_files=True) == {
        "create": eperm,
        "tmpfile": eperm,
        "mkdir": eperm,
        "symlink": eperm,
        "link": eperm,
        "devnull_w": eperm,  # Python opens "w" with O_CREAT: the one honest cost, documented
        "read": 0,
        "append_existing": 0,
    }
    assert sorted(p.name for p in (tmp_path / "shared").iterdir()) == []


def test_without_the_rule_files_and_folders_are_made_but_never_links(tmp_path):
    eperm = 1
    assert _run(tmp_path, no_new_files=False) == {
        "create": 0,
        "tmpfile": 0,
        "mkdir": 0,
        "symlink": eperm,  # outside the allow list in every mode
        "link": eperm,
        "devnull_w": 0,
        "read": 0,
        "append_existing": 0,
    }
    assert sorted(p.name for p in (tmp_path / "shared").iterdir()) == ["made", "new"]
