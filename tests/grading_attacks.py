"""Submissions that attack the grader with the audit hook switched off first.

They check the kernel's walls (uids, namespaces, Landlock, seccomp, rlimits),
not the hook: each attack switches the hook off by one of the four ways found
to work from plain Python, then tries. Every attempt prints one line,
``ATTACK name: blocked (...)`` or ``ATTACK name: SUCCEEDED``, which the report
shows under the test. Placeholders (``@SUITE@``...) are filled in by the test.
"""

from __future__ import annotations

from grading_submissions import AFTER_IMPORTS, Change, apply_changes

#: The audit hook, switched off four ways (each a function; ``hook_off_by_code`` is final).
HOOK_OFF = r'''
import gc as _gc
import os as _os
import sys as _sys


def _hooks():
    return [
        f for f in _gc.get_objects()
        if type(f).__name__ == "function" and f.__name__ == "hook"
        and _os.sep + "sandbox" + _os.sep in f.__code__.co_filename
    ]


def hook_off_by_cells():
    """Empty the tuples and predicates the hook's closure holds."""
    for hook in _hooks():
        for cell in hook.__closure__ or ():
            value = cell.cell_contents
            if isinstance(value, tuple):
                cell.cell_contents = ()
            elif isinstance(value, str) and value.startswith("/proc/"):
                cell.cell_contents = "/nowhere/"
            elif callable(value) and getattr(value, "__name__", "") == "hidden":
                cell.cell_contents = lambda real: False
            elif callable(value) and getattr(value, "__name__", "") == "resolve":
                cell.cell_contents = lambda path: None


def hook_off_by_code():
    """Give the hook a body that does nothing."""
    for hook in _hooks():
        names = hook.__code__.co_freevars
        body = "".join(f"    {n} = None\n" for n in names)
        use = ("\n        " + ", ".join(names)) if names else ""
        source = f"def outer():\n{body}    def hook(event, args):\n        return None{use}\n    return hook\n"
        scope = {}
        exec(source, scope)
        hook.__code__ = scope["outer"]().__code__


def read_by_realpath(path):
    """Read with os.path.realpath patched, so the hook cannot tell where a path leads."""
    real = _os.path.realpath
    _os.path.realpath = lambda p, *a, **k: "/nowhere"
    try:
        with open(path) as handle:
            return handle.read()
    finally:
        _os.path.realpath = real


def read_by_dir_fd(path):
    """Read through a descriptor of the parent folder and a relative name."""
    parent, name = _os.path.split(path)
    folder = _os.open(_os.path.dirname(parent), _os.O_RDONLY)
    try:
        fd = _os.open(_os.path.join(_os.path.basename(parent), name), _os.O_RDONLY, dir_fd=folder)
    finally:
        _os.close(folder)
    with _os.fdopen(fd) as handle:
        return handle.read()


def attack(name, action):
    try:
        action()
    except BaseException as error:
        print(f"ATTACK {name}: blocked ({type(error).__name__})")
    else:
        print(f"ATTACK {name}: SUCCEEDED")
'''

#: Every attack on the machine and on other submissions, at import time, hook switched off.
KERNEL_ATTACKS = r"""
hook_off_by_code()
import ctypes as _ctypes
import signal as _signal
import socket as _socket
import glob as _glob


def _write_back_core_pattern():
    with open("/proc/sys/kernel/core_pattern", "r+") as handle:
        value = handle.read()
        handle.seek(0)
        handle.write(value)


def _fork():
    pid = _os.fork()
    if pid == 0:
        _os.setsid()
        _os._exit(0)
    _os.waitpid(pid, 0)


def _spawn():
    import subprocess
    subprocess.Popen(["/bin/sh", "-c", "sleep 30; echo forged > @RESULTS@"], start_new_session=True)


def _kill_around():
    # The grader, then every process near this one (other submissions' workers).
    killed = []
    for pid in [_os.getppid(), *range(max(2, _os.getpid() - 400), _os.getpid() + 400)]:
        if pid in (_os.getpid(), 0, 1):
            continue
        try:
            _os.kill(pid, _signal.SIGKILL)
            killed.append(pid)
        except OSError:
            pass
    if not killed:
        raise PermissionError("no process could be signalled")


def _read_others():
    mine = _os.getcwd()  # the worker runs in its own staged folder
    found = _glob.glob("/tmp/pacman-grade-*/code/*.py") + _glob.glob("@STAGES@/pacman-grade-*/code/*.py")
    stolen = []
    for path in found:
        if path.startswith(mine):
            continue
        with open(path) as handle:
            stolen.append(handle.read())
    if not stolen:
        raise PermissionError("no staged copy found or readable")


def _read_parent_memory():
    with open(f"/proc/{_os.getppid()}/environ", "rb") as handle:
        handle.read()


def _connect():
    _socket.create_connection(("127.0.0.1", @PORT@), timeout=2).close()


def _append(path, text):
    with open(path, "r+") as handle:  # no O_CREAT: a file that exists and is writable
        handle.seek(0, 2)
        handle.write(text)


def _import_agents():
    _sys.modules.pop("agents", None)
    from agents import MinimaxAgent  # noqa: F401


def _leave_files():
    # In the folders anyone may write in: files that would outlive the worker and fill the
    # disk or memory everyone shares (the test looks for them on the machine afterwards).
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        try:
            with open(_os.path.join(folder, "@DEVNAME@-left"), "wb") as handle:
                handle.write(b"x" * 65536)
        except OSError:
            pass
    with open("@SHARED@/left-by-a-submission", "wb") as handle:
        handle.write(b"x" * 65536)


def _message_queue():
    # A POSIX queue outlives its maker in process isolation: two classmates could pass ghost
    # moves through it (the test looks for it on the machine afterwards).
    libc = _ctypes.CDLL(None, use_errno=True)
    queue = libc.mq_open(b"/@DEVNAME@-moves", 0o102, 0o666, None)  # O_CREAT | O_RDWR
    if queue < 0:
        raise OSError(_ctypes.get_errno(), "mq_open failed")
    libc.mq_send(queue, b"North", 5, 0)


def _rename_out():
    # What the worker owns, moved out into a folder anyone may write in: a file made in its
    # scratch folder or, where no file can be made, the scratch folder itself.
    import tempfile

    scratch = tempfile.gettempdir()
    try:
        handle, path = tempfile.mkstemp(dir=scratch)
        _os.close(handle)
    except OSError:
        path = scratch
    _os.rename(path, "@SHARED@/renamed-by-a-submission")


attack("read-solution", lambda: open("@SUITE@/q2/0-small-tree.solution").read())
attack("list-suite", lambda: _os.listdir("@SUITE@/q2") or None)
attack("write-suite", lambda: _append("@SUITE@/q2/CONFIG", "# changed\n"))
# truncate(2) by path: Landlock below ABI 3 does not cover it (the size is kept: a success
# shows the wall missing without breaking the suite for the rest of the run).
attack("xattr-suite", lambda: _os.setxattr("@SUITE@/q2/CONFIG", "user.pacman", b"changed"))
attack("truncate-suite", lambda: _os.truncate("@SUITE@/q2/CONFIG", _os.path.getsize("@SUITE@/q2/CONFIG")))
attack("write-canary", lambda: open("@CANARY@", "r+").write("overwritten"))  # no O_CREAT
attack("write-project", lambda: open(_os.path.join(_os.path.dirname(__import__("pacman").__file__), "state.py"), "a").close())
attack("core-pattern", _write_back_core_pattern)
attack("create-in-dev", lambda: open("/dev/@DEVNAME@", "w").close())
attack("fork", _fork)
attack("spawn", _spawn)
attack("kill", _kill_around)
attack("read-others", _read_others)
attack("read-grader-memory", _read_parent_memory)
attack("connect-loopback", _connect)
attack("import-reference-agents", _import_agents)
attack("leave-files", _leave_files)
attack("leave-folder", lambda: _os.mkdir("@SHARED@/made-by-a-submission"))
attack("message-queue", _message_queue)
attack("rename-out", _rename_out)
print("\x1b[2J\x1b[HTotal: 25/25")
"""

#: What a process holding root's capabilities would try: each must fail in every setting the
#: grader accepts. It first shows what the kernel says it holds (read from its own status).
PRIVILEGE_ATTACKS = r"""
hook_off_by_code()
import ctypes as _ctypes


def _status():
    with open("/proc/self/status") as handle:
        fields = dict(line.split(":", 1) for line in handle.read().splitlines() if ":" in line)
    return {name: value.strip() for name, value in fields.items()}


def _hold_capabilities():
    # CAP_DAC_READ_SEARCH (bit 2) alone is the grader's design where Landlock holds the reads.
    held = {n: _status()[n] for n in ("CapInh", "CapPrm", "CapEff", "CapAmb")}
    if not any(int(value, 16) & ~0x4 for value in held.values()):
        raise PermissionError("no capability held beyond CAP_DAC_READ_SEARCH")


def _become_root():
    _os.setresuid(0, 0, 0)


def _signal_parent():
    parent = _os.getppid()
    if parent <= 1:
        raise ProcessLookupError("the parent is outside this view")
    _os.kill(parent, 0)


def _sysv_shared_memory():
    libc = _ctypes.CDLL(None, use_errno=True)
    libc.shmget.restype = _ctypes.c_int
    key = libc.shmget(0, 4096, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if key < 0:
        raise OSError(_ctypes.get_errno(), "shmget failed")


print("STATUS", {n: _status().get(n) for n in ("Uid", "CapInh", "CapPrm", "CapEff", "CapAmb", "NoNewPrivs", "Seccomp")})
attack("hold-capabilities", _hold_capabilities)
attack("become-root", _become_root)
attack("chmod-batch-folder", lambda: _os.chmod("@STAGES@", 0))
attack("chown-suite", lambda: _os.chown("@SUITE@", _os.getuid(), _os.getgid()))
attack("signal-parent", _signal_parent)
attack("sysv-shared-memory", _sysv_shared_memory)
attack("truncate-grader-code", lambda: _os.truncate("@PROJECT@/pacman/grading/report.py", 0))
attack("read-project-fixture", lambda: open("@PROJECT@/tests/fixtures/grading/cs188_style/multiAgents.py").read())
attack("read-project-suite", lambda: open("@PROJECT@/test_cases/q2/CONFIG").read())
attack("read-old-course", lambda: open("@OLDCOURSE@/q2/0-small-tree.solution").read())
"""

#: 3 s of CPU in a helper thread, outside the GIL, on every Minimax move (q2): the move limit
#: counts it, so q2 is lost.
THREAD_HOG = r"""import hashlib, threading
        data = b"x" * (1 << 24)

        def hog():
            until = time.process_time() + 3.0
            while time.process_time() < until:
                hashlib.sha256(data).digest()

        helper = threading.Thread(target=hog)
        helper.start()
        helper.join()
        return self.value(gameState, 0, 0)[1]"""

#: 100 sleeping threads on every AlphaBeta move (q3): over the thread cap, so q3 is lost.
THREAD_BOMB = r"""import threading
        threading.stack_size(64 * 1024)
        for _ in range(100):
            threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        return self.value(gameState, 0, 0, float("-inf"), float("inf"))[1]"""

#: At import: a scratch tree 1100 folders deep, deeper than shutil.rmtree can recurse and more
#: than the 1024 files and folders a scratch folder may hold.
SCRATCH_TREE = r"""
import os as _os
import tempfile as _tempfile

_os.chdir(_tempfile.gettempdir())
try:
    for _ in range(1100):
        _os.mkdir("d")
        _os.chdir("d")
    print("ATTACK scratch-tree: SUCCEEDED")
except OSError as error:
    print("ATTACK scratch-tree: blocked (" + type(error).__name__ + ")")
_os.chdir(_os.path.dirname(_os.path.abspath(__file__)))
"""

#: Reads the solutions with each way of switching the hook off, and forges its replies from
#: them; it has no search code, so it earns points only if a solution was read.
THIEF = r'''
import re as _re

_stolen = {}


def _fields(text):
    found = dict(_re.findall(r'^(\w+): "(.*)"$', text, _re.M))
    found.update(_re.findall(r'^(\w+): """\n(.*?)\n"""', text, _re.M | _re.S))
    return found


def _steal(read):
    for question in ("q2", "q3", "q4"):
        for name in ("0-small-tree", "6-tied-root", "0-expectimax1"):
            base = f"@SUITE@/{question}/{name}"
            try:
                test, solution = _fields(read(base + ".test")), _fields(read(base + ".solution"))
            except OSError:
                continue
            _stolen[test.get("successors", "").strip()] = solution
    if not _stolen:
        raise PermissionError("nothing read")


def _plain(path):
    with open(path) as handle:
        return handle.read()


attack("steal-dir-fd", lambda: _steal(read_by_dir_fd))
attack("steal-realpath", lambda: _steal(read_by_realpath))
hook_off_by_cells()
attack("steal-closure-cells", lambda: _steal(_plain))
hook_off_by_code()
attack("steal-code-swap", lambda: _steal(_plain))

import pacman.sandbox.inside as _worker


def _forged_tree(self, request):
    solution = _stolen.get(request["fields"].get("successors", "").strip())
    if solution is None:
        return {"action": "Stop", "expansions": []}
    start = request["fields"]["start_state"].strip()
    children = [c for c in solution["generated"].split() if c != start]
    return {"action": solution["action"].strip(), "expansions": [[1, "x", start, c] for c in children]}


_worker.StudentRuntime.op_tree = _forged_tree
'''

#: A reply frame announcing 32 MB, written straight to the grader's pipe.
JUNK_REPLY = r"""import os, struct, sys
        os.write(int(sys.argv[2]), struct.pack(">I", 32 * 1024 * 1024) + b"x" * 65536)
        return self.value(gameState, 0, 0)[1]"""

#: 80 MB of files in the scratch folder, more than the disk quota.
DISK_FILLER = r"""import os, tempfile
        try:
            for number in range(80):
                with open(os.path.join(tempfile.gettempdir(), f"junk{number}"), "wb") as handle:
                    handle.write(b"x" * (1024 * 1024))
        except OSError as error:
            print("ATTACK fill-disk: blocked", type(error).__name__)
        return self.value(gameState, 0, 0)[1]"""

#: Recursion with no limit, through a builtin so that it overflows the C stack at once.
DEEP_RECURSION = r"""import sys
        sys.setrecursionlimit(10**7)

        def deeper(n):
            return max([n], key=deeper)

        deeper(0)
        return self.value(gameState, 0, 0, float("-inf"), float("inf"))[1]"""

#: Text that is not valid Unicode and escape sequences, printed at import (bytes that are not
#: UTF-8 written straight to the output) and raised from a search: strings are data.
ODD_TEXT = r"""import os as _os

_os.write(1, b"odd bytes \xff\xfe \x1b[2J\n")
print("lone \ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace"))
"""

ATTACKS: dict[str, tuple[str, list[Change]]] = {
    "attack_strings": (
        "prints bytes that are not UTF-8 at import, raises with a lone surrogate on q2, "
        "returns a lone surrogate as its action on q3, plays q4 honestly",
        [
            (None, AFTER_IMPORTS, AFTER_IMPORTS + ODD_TEXT),
            (
                "MinimaxAgent",
                "return self.value(gameState, 0, 0)[1]",
                'raise ValueError("bad \\ud800 \\x1b]0;title\\x07")',
            ),
            (
                "AlphaBetaAgent",
                'return self.value(gameState, 0, 0, float("-inf"), float("inf"))[1]',
                'return "West\\ud800"',
            ),
        ],
    ),
    "attack_privileges": (
        "switches the hook off and uses what root's capabilities would give, then plays honestly",
        [(None, AFTER_IMPORTS, AFTER_IMPORTS + HOOK_OFF + PRIVILEGE_ATTACKS)],
    ),
    "attack_threads": (
        "burns CPU in a helper thread on q2, starts 100 threads on q3, plays q4 honestly",
        [
            (None, AFTER_IMPORTS, AFTER_IMPORTS + "import time\n"),
            ("MinimaxAgent", "return self.value(gameState, 0, 0)[1]", THREAD_HOG),
            (
                "AlphaBetaAgent",
                'return self.value(gameState, 0, 0, float("-inf"), float("inf"))[1]',
                THREAD_BOMB,
            ),
        ],
    ),
    "attack_scratch": (
        "builds a scratch tree 3000 folders deep and 3000 wide at import, then plays honestly",
        [(None, AFTER_IMPORTS, AFTER_IMPORTS + SCRATCH_TREE)],
    ),
    "attack_everything": (
        "switches the audit hook off, attacks the machine and other submissions, then plays honestly",
        [(None, AFTER_IMPORTS, AFTER_IMPORTS + HOOK_OFF + KERNEL_ATTACKS)],
    ),
    "attack_thief": (
        "reads the solutions with the hook switched off four ways and forges its answers; no search",
        [
            (None, AFTER_IMPORTS, AFTER_IMPORTS + HOOK_OFF + THIEF),
            *(
                (agent, call, "return gameState.getLegalActions(0)[0]")
                for agent, call in (
                    ("MinimaxAgent", "return self.value(gameState, 0, 0)[1]"),
                    (
                        "AlphaBetaAgent",
                        'return self.value(gameState, 0, 0, float("-inf"), float("inf"))[1]',
                    ),
                    ("ExpectimaxAgent", "return self.value(gameState, 0, 0)[1]"),
                )
            ),
        ],
    ),
    "attack_junk_reply": (
        "answers q2 with a 32 MB frame of junk",
        [("MinimaxAgent", "return self.value(gameState, 0, 0)[1]", JUNK_REPLY)],
    ),
    "attack_disk": (
        "fills the disk while answering q4",
        [("ExpectimaxAgent", "return self.value(gameState, 0, 0)[1]", DISK_FILLER)],
    ),
    "attack_recursion": (
        "recurses without end while answering q3",
        [
            (
                "AlphaBetaAgent",
                'return self.value(gameState, 0, 0, float("-inf"), float("inf"))[1]',
                DEEP_RECURSION,
            )
        ],
    ),
}


def attack_text(name: str, **placeholders: str) -> str:
    """The source of attack ``name`` with its ``@PLACEHOLDERS@`` filled in."""
    what, changes = ATTACKS[name]
    text = apply_changes(name, what, changes)
    for key, value in placeholders.items():
        text = text.replace(f"@{key.upper()}@", value)
    return text
