"""Where a grader runs, as tests make it: the command line that runs a command there.

Runners: ``root`` (as it is), ``docker`` (root holding only Docker's default capabilities),
``docker-seccomp`` (the same under a seccomp filter like Docker's default profile before
20.10.18: no namespaces, and no Landlock: its calls fail with ENOSYS), ``docker-no-caps``
(root holding no capability at all: ``docker run --cap-drop ALL``),
``unprivileged`` (an ordinary uid, no capability), ``userns`` (root of a user namespace
that maps root alone to an ordinary uid: ``unshare --user --map-root-user`` run by a user,
a rootless container without subordinate ids) and ``userns-range`` (the same with 65,536
subordinate ids mapped from 1 up, as rootless Podman maps them).
"""

from __future__ import annotations

import compileall
import shutil
import subprocess
import sys
from pathlib import Path

from grading_submissions import HONEST

from pacman.sandbox.isolation import untraversable_top

REPO = Path(__file__).resolve().parents[1]
USERNS_EXEC = Path(__file__).resolve().parent / "userns_exec.py"
DOCKER_SECCOMP = Path(__file__).resolve().parent / "docker_seccomp.py"


#: The user the "unprivileged" grader runs as: no account, no groups.
GRADER_UID = 1_990_000_000

#: Docker's (and Podman's) default capabilities for root in a container: no CAP_SYS_ADMIN (so no
#: namespaces), no CAP_DAC_READ_SEARCH.
DOCKER_CAPS = (
    "chown,dac_override,fowner,fsetid,kill,setgid,setuid,setpcap,net_bind_service,net_raw,"
    "sys_chroot,mknod,audit_write,setfcap"
)


#: The subordinate ids ``userns-range`` maps from 1 up (65,536 of them, as Podman does).
SUBORDINATE_IDS = 2_000_000_000

#: The user namespace maps of each ``userns`` runner (inner:outer:count).
USERNS_MAPS = {
    "userns": [f"0:{GRADER_UID}:1"],
    "userns-range": [f"0:{GRADER_UID}:1", f"1:{SUBORDINATE_IDS}:65536"],
}


def in_setting(command: list[str], needed: list[str], runner: str) -> list[str]:
    """``command`` as ``runner`` runs it (see the module's list of runners).

    All but ``root`` run in a mount namespace where ``needed`` is reachable by anyone: an
    interpreter under /root is not, so the folder is covered with an open tmpfs and the
    needed paths are bound back, as a container image or a site admin installs a Python
    anyone can run.
    """
    if runner == "root":
        return command
    quote = lambda text: "'" + text.replace("'", "'\\''") + "'"  # noqa: E731
    lines = ["set -e"]
    tops = sorted({t for t in map(untraversable_top, needed) if t})
    for number, top in enumerate(tops, start=3):
        lines.append(f"exec {number}<{quote(top)}")
        lines.append(f"mount -t tmpfs -o mode=0755 none {quote(top)}")
        for path in needed:
            if path.startswith(top + "/"):
                lines.append(f"mkdir -p {quote(path)}")
                source = f"/proc/self/fd/{number}{path[len(top) :]}"
                lines.append(f"mount --no-canonicalize --bind {quote(source)} {quote(path)}")
    if runner in USERNS_MAPS:
        maps = " ".join(f"--map {entry}" for entry in USERNS_MAPS[runner])
        inner = " ".join(quote(c) for c in command)
        lines.append(f"exec {quote(sys.executable)} {quote(str(USERNS_EXEC))} {maps} -- {inner}")
    else:
        if runner in ("docker", "docker-seccomp"):
            caps = "--inh-caps=-all --ambient-caps=-all --bounding-set=-all," + ",".join(
                "+" + cap for cap in DOCKER_CAPS.split(",")
            )
        elif runner == "docker-no-caps":
            # Root whose bounding set is empty gains nothing at exec: no capability at all.
            caps = "--inh-caps=-all --ambient-caps=-all --bounding-set=-all"
        else:
            user = f"--reuid={GRADER_UID} --regid={GRADER_UID} --clear-groups"
            caps = f"{user} --inh-caps=-all --bounding-set=-all"
        # Docker's seccomp profile is in force before its capabilities are dropped.
        filtered = f"{quote(sys.executable)} {quote(str(DOCKER_SECCOMP))} "
        first = filtered if runner == "docker-seccomp" else ""
        lines.append(f"exec {first}setpriv {caps} -- " + " ".join(quote(c) for c in command))
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "--",
        "/bin/sh",
        "-c",
        "\n".join(lines),
    ]


def python_with_tqdm(arena: Path) -> Path:
    """A fresh interpreter environment that has the bundle's one dependency already, as a
    Gradescope image may: setup.sh then installs the wheel without the network."""
    venv = arena / "python"
    # pip comes as the image's would, copied rather than bootstrapped (ensurepip takes ~9 s).
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    import pip
    import tqdm

    site = next((venv / "lib").glob("python3*/site-packages"))
    for module in (pip, tqdm):
        source = Path(module.__file__).parent
        shutil.copytree(source, site / source.name)
        for info in source.parent.glob(f"{source.name}-*.dist-info"):
            shutil.copytree(info, site / info.name)
    return venv / "bin" / "python"


def project_copy(arena: Path) -> Path:
    """The grader as a course installs it, in a folder of its own (so attacks on its code
    change a copy, and the copy's suite and fixtures are answers to hide)."""
    project = arena / "project"
    for name in ("pacman", "agents", "layouts", "test_cases"):
        shutil.copytree(REPO / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "autograder.py", project / "autograder.py")
    fixture = project / "tests" / "fixtures" / "grading" / "cs188_style"
    fixture.mkdir(parents=True)
    shutil.copy(HONEST, fixture / "multiAgents.py")
    # Compiled now, as an installation is: otherwise the grader's own imports (bytecode writing
    # on, as Python's default is) fill __pycache__ during the run, which the check after the
    # run would take for an attack; compiled, a rewritten .pyc is caught as any file is.
    compileall.compile_dir(project, quiet=1)
    return project
