"""Run a command as root of a new user namespace with the maps given, as a rootless container
runs its root: ``python userns_exec.py --map 0:1990000000:1 [--map 1:2000000000:65536] --
COMMAND...``.

Each ``--map INNER:OUTER:COUNT`` is a line of both ``uid_map`` and ``gid_map``. The parent
(root here) writes the child's maps, which a process can do for a child only; util-linux
``unshare --map-users`` needs ``newuidmap``, which a test machine may lack. The command
runs as uid and gid 0 inside, holding the namespace's capabilities; the exit status is its.
"""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000


def main(argv: list[str]) -> int:
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    maps = [options[i + 1].replace(":", " ") for i, flag in enumerate(options) if flag == "--map"]
    ready_r, ready_w = os.pipe()
    mapped_r, mapped_w = os.pipe()
    child = os.fork()
    if child == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWUSER) != 0:
            os.write(2, f"unshare: {os.strerror(ctypes.get_errno())}\n".encode())
            os._exit(125)
        os.write(ready_w, b"x")
        os.read(mapped_r, 1)
        os.setgroups([])
        os.setresgid(0, 0, 0)
        os.setresuid(0, 0, 0)
        os.execvp(command[0], command)
    os.read(ready_r, 1)
    for name in ("uid_map", "gid_map"):
        with open(f"/proc/{child}/{name}", "w") as handle:
            handle.write("\n".join(maps) + "\n")
    os.write(mapped_w, b"x")
    _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
