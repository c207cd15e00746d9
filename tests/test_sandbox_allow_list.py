"""The seccomp allow list, seen from inside a student worker: a submission that switches the
audit hook off calls what is outside the list (message queues, renames, links, io_uring,
BPF, keyrings, ptrace...) with arguments that would fail otherwise without the filter, and
each call must come back refused with its exact errno, before the submission plays honestly
for full marks. Graded in process isolation and, where it works here, in namespaces."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from grading_attacks import HOOK_OFF
from grading_submissions import AFTER_IMPORTS, BERKELEY, SMALL, apply_changes, make_mini

from pacman.sandbox import seccomp
from pacman.sandbox.isolation import probe

REPO = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.skipif(
        seccomp.architecture() is None,
        reason="seccomp filters are written for Linux on x86-64 and AArch64",
    ),
    pytest.mark.skipif(not BERKELEY.is_dir(), reason="shared/berkeley not present"),
]

EPERM, ENOMEM, ENOSYS = 1, 12, 38

#: Each call, its arguments (written as Python in the submission; ``P`` is a path that does not
#: exist, ``H`` is AT_FDCWD) and the errno the filter answers with. Without the filter each
#: would fail otherwise (no such file, queue or process, a bad descriptor) or change nothing.
CALLS = {
    "mq_open": ("b'pacman-no-such-queue', 0, 0, None", EPERM),
    "mq_unlink": ("b'pacman-no-such-queue'", EPERM),
    "mq_timedsend": ("-1, None, 0, 0, None", EPERM),
    "rename": ("P, P", EPERM),
    "renameat": ("H, P, H, P", EPERM),
    "renameat2": ("H, P, H, P, 0", EPERM),
    "link": ("P, P", EPERM),
    "linkat": ("H, P, H, P, 0", EPERM),
    "symlink": ("P, P", EPERM),
    "symlinkat": ("P, H, P", EPERM),
    "mknodat": ("H, P, 0o10600, 0", EPERM),
    "openat2": ("H, P, None, 0", EPERM),
    "fchmodat": ("H, P, 0", EPERM),
    "fchownat": ("H, P, 0, 0, 0", EPERM),
    "setxattr": ("P, b'user.x', None, 0, 0", EPERM),
    "truncate": ("P, 0", EPERM),
    "chroot": ("P", EPERM),
    "io_uring_setup": ("1, None", EPERM),
    "io_uring_enter": ("-1, 0, 0, 0, None, 0", EPERM),
    "userfaultfd": ("0", EPERM),
    "bpf": ("-1, None, 0", EPERM),
    "perf_event_open": ("None, 0, -1, -1, 0", EPERM),
    "keyctl": ("-1, 0, 0, 0, 0", EPERM),
    "add_key": ("None, None, None, 0, 0", EPERM),
    "request_key": ("None, None, None, 0", EPERM),
    "ptrace": ("-1, 0, 0, 0", EPERM),
    "process_vm_readv": ("0, None, 0, None, 0, 0", EPERM),
    "process_vm_writev": ("0, None, 0, None, 0, 0", EPERM),
    "pidfd_open": ("0x7FFFFFFF, 0", EPERM),
    "pidfd_getfd": ("-1, 0, 0", EPERM),
    "kcmp": ("0, 0, 99, 0, 0", EPERM),
    "shmget": ("0x7AC0, 4096, 0", EPERM),
    "semget": ("0x7AC0, 1, 0", EPERM),
    "msgget": ("0x7AC0, 0", EPERM),
    "socket": ("-1, 0, 0", EPERM),
    "socketpair": ("-1, 0, 0, None", EPERM),
    "execve": ("P, None, None", EPERM),
    "unshare": ("0", EPERM),
    "setns": ("-1, 0", EPERM),
    "inotify_init1": ("0", EPERM),
    "personality": ("0xFFFFFFFF", EPERM),
    "getpgid": ("0", EPERM),
    # A process, not a thread (CLONE_SIGHAND without CLONE_VM: invalid without the filter).
    "clone": ("0x800, 0, None, None, 0", EPERM),
    "prctl": ("1, 0, 0, 0, 0", EPERM),  # PR_SET_PDEATHSIG: the parent-death signal cleared
    "ioctl": ("0, 0x5412, None", EPERM),  # TIOCSTI: a character pushed into a terminal
    "memfd_create": ("b'x', 0", ENOMEM),  # what it holds is outside the memory limit
    "clone3": ("None, 0", ENOSYS),  # glibc falls back to clone
    "a call newer than the list": ("", ENOSYS),
}

#: The numbers of those calls, per architecture (AArch64 has no rename, link or symlink).
NUMBERS = {
    "x86_64": {
        "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242, "rename": 82, "renameat": 264,
        "renameat2": 316, "link": 86, "linkat": 265, "symlink": 88, "symlinkat": 266,
        "mknodat": 259, "openat2": 437, "fchmodat": 268, "fchownat": 260, "setxattr": 188,
        "truncate": 76, "chroot": 161, "io_uring_setup": 425, "io_uring_enter": 426,
        "userfaultfd": 323, "bpf": 321, "perf_event_open": 298, "keyctl": 250, "add_key": 248,
        "request_key": 249, "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
        "pidfd_open": 434, "pidfd_getfd": 438, "kcmp": 312, "shmget": 29, "semget": 64,
        "msgget": 68, "socket": 41, "socketpair": 53, "execve": 59, "unshare": 272,
        "setns": 308, "inotify_init1": 294, "personality": 135, "getpgid": 121, "clone": 56,
        "prctl": 157, "ioctl": 16, "memfd_create": 319, "clone3": 435,
        "a call newer than the list": 470, "getppid": 110,
    },
    "aarch64": {
        "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182, "renameat": 38,
        "renameat2": 276, "linkat": 37, "symlinkat": 36, "mknodat": 33, "openat2": 437,
        "fchmodat": 53, "fchownat": 54, "setxattr": 5, "truncate": 45, "chroot": 51,
        "io_uring_setup": 425, "io_uring_enter": 426, "userfaultfd": 282, "bpf": 280,
        "perf_event_open": 241, "keyctl": 219, "add_key": 217, "request_key": 218,
        "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "pidfd_open": 434,
        "pidfd_getfd": 438, "kcmp": 272, "shmget": 194, "semget": 190, "msgget": 186,
        "socket": 198, "socketpair": 199, "execve": 221, "unshare": 97, "setns": 268,
        "inotify_init1": 26, "personality": 92, "getpgid": 155, "clone": 220, "prctl": 167,
        "ioctl": 29, "memfd_create": 279, "clone3": 435, "a call newer than the list": 470,
        "getppid": 173,
    },
}  # fmt: skip

PROBE = r"""
hook_off_by_code()
import ctypes as _ctypes
import json as _json

_libc = _ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = _ctypes.c_long
P, H = b"/nonexistent/pacman-allow-list", -100


def _call(number, *arguments):
    values = [_ctypes.c_long(a) if isinstance(a, int) else a for a in arguments]
    _ctypes.set_errno(0)
    result = _libc.syscall(_ctypes.c_long(number), *values)
    return _ctypes.get_errno() if result < 0 else 0


print("CALLS " + _json.dumps({name: _call(number, *arguments) for name, (number, arguments) in {@CALLS@}.items()}))
"""


def _probe_submission(root: Path) -> Path:
    numbers = NUMBERS[os.uname().machine.lower().replace("arm64", "aarch64")]
    calls = {name: arguments for name, (arguments, _) in CALLS.items() if name in numbers}
    calls["getppid"] = ""  # in the list: answered by the kernel
    table = ", ".join(
        f"{name!r}: ({numbers[name]}, ({arguments},))"
        if arguments
        else f"{name!r}: ({numbers[name]}, ())"
        for name, arguments in calls.items()
    )
    text = apply_changes(
        "allow_list_probe",
        "calls what the seccomp allow list leaves out, then plays honestly",
        [(None, AFTER_IMPORTS, AFTER_IMPORTS + HOOK_OFF + PROBE.replace("@CALLS@", table))],
    )
    folder = root / "submissions" / "probe"
    folder.mkdir(parents=True)
    (folder / "multiAgents.py").write_text(text)
    return folder.parent


@pytest.mark.parametrize("isolation", ["process", "namespaces"])
def test_every_call_outside_the_list_is_refused_inside_the_worker(arena, isolation):
    if isolation == "namespaces" and not probe("namespaces"):
        pytest.skip("namespaces do not work on this machine")
    suite = make_mini(arena, SMALL)
    submissions = _probe_submission(arena)
    summary = arena / "out" / "grades"
    summary.parent.mkdir()
    command = [
        sys.executable, str(REPO / "autograder.py"), "--test-directory", str(suite),
        "--submissions", str(submissions), "--summary", str(summary), "--isolation", isolation,
        "--unsafe-weak-sandbox",  # where the grader is not root: the calls are the point here
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads(Path(str(summary) + ".json").read_text())["submissions"][0]
    printed = record["import_report"]
    found = json.loads(printed.split("CALLS ", 1)[1].splitlines()[0])
    numbers = NUMBERS[os.uname().machine.lower().replace("arm64", "aarch64")]
    expected = {name: code for name, (_, code) in CALLS.items() if name in numbers}
    assert found == {**expected, "getppid": 0}
    assert record["protections"]["seccomp"] is True
    assert record["protections"]["isolation"] == isolation
    assert [record["questions"][q]["points"] for q in ("q2", "q3", "q4")] == [5, 5, 5]


def test_the_list_is_numbered_on_both_architectures_and_fits_bpf_jumps():
    x86_64, aarch64 = seccomp._X86_64, seccomp._AARCH64
    assert [name for name in seccomp.ALLOWED if name not in x86_64[1]] == []
    # AArch64 has only the *at and newer forms of x86-64's older calls.
    assert [name for name in seccomp.ALLOWED if name not in aarch64[1]] == [
        "dup2", "open", "stat", "lstat", "readlink", "access", "mkdir", "unlink", "rmdir",
        "time", "select", "poll",
    ]  # fmt: skip
    for arch in (x86_64, aarch64):
        for no_new_files in (False, True):
            program = seccomp.seccomp_program(arch, no_new_files)
            assert len(program) % 8 == 0 and len(program) // 8 < 256


PROVE = r"""
import os, sys
from pacman.sandbox import seccomp
from pacman.sandbox.proof import prove
from pacman.sandbox.syscalls import prctl
from pacman.sandbox.walls import Walls

if sys.argv[1] == "allow-list":
    prctl(38, 1)  # no_new_privs, which an unprivileged process needs to install a filter
    seccomp.install(seccomp.architecture())
found = prove(Walls(), isolation="process", grader_pid=os.getppid(), grader_uid=-1,
              canaries=[], read_search_allowed=False)
print(found["seccomp"])
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="tests/docker_seccomp.py is x86-64's")
def test_the_proof_counts_seccomp_only_where_the_filter_is_the_allow_list():
    def proved(*launcher: str, mode: str) -> str:
        command = [*launcher, sys.executable, "-c", PROVE, mode]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout

    # A filter in force (Seccomp: 2) that lets message queues, renames and getpgid through.
    docker = [sys.executable, str(REPO / "tests" / "docker_seccomp.py")]
    assert proved(*docker, mode="docker") == "False\n"
    assert proved(mode="none") == "False\n"
    assert proved(mode="allow-list") == "True\n"
