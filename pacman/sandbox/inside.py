"""The student side of the sandbox: runs submitted agents, reports raw observations.

Started by :mod:`pacman.sandbox.process` as ``python -I -B -c BOOT RFD WFD``.
It reads frames from RFD and answers on WFD (see :mod:`pacman.sandbox.protocol`).
The first frame is the setup: resource limits, the paths to hide, the student
files. Then each request asks for one observation: the action a tree search
picks and the successor calls it made, or the action (and explored-state
count) of one move in a game the parent plays. The worker never sees a
solution file and never decides a grade; it only says what the code did.

Everything here runs in the same process as the student's code, so none of it
is trusted by the parent: this module's job is to make honest code observable
and to make mistakes (exceptions, exits, memory errors) come back as clear
messages instead of a dead process.
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import os
import random
import sys
import traceback
from typing import Any

from pacman.sandbox import protocol
from pacman.sandbox.audit import install_tripwire
from pacman.seeding import CS188_SEED, seed_agent, seed_modules


def _set_limits(setup: dict[str, Any]) -> None:
    try:
        import resource
    except ImportError:  # not a POSIX system: the parent's wall-clock limit still applies
        return

    def limit(kind: int, value: int | None) -> None:
        if value is None:
            return
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(kind, (value, value))

    memory = setup.get("memory_mb")
    limit(resource.RLIMIT_AS, int(memory) * 1024 * 1024 if memory else None)
    cpu = setup.get("cpu_seconds")
    limit(resource.RLIMIT_CPU, int(cpu) if cpu else None)
    limit(resource.RLIMIT_FSIZE, int(setup.get("fsize_mb", 16)) * 1024 * 1024)
    limit(resource.RLIMIT_CORE, 0)
    limit(resource.RLIMIT_NOFILE, 256)
    if setup.get("uid") is not None:
        # Counted per uid, threads included, by the kernel: the submission's own uid has only
        # a few beyond the thread cap (the grader, counting from outside, stops the worker
        # with the cap's name; this stops a burst between two counts).
        limit(resource.RLIMIT_NPROC, int(setup.get("max_threads", 64)) + 2)


def _syntax_error(error: SyntaxError) -> str:
    """``multiAgents.py line 12: IndentationError: ...`` and the offending line, caret below."""
    name = os.path.basename(error.filename or "") or "the file"
    text = f"{name} line {error.lineno}: {type(error).__name__}: {error.msg}"
    if error.text:
        source = error.text.rstrip("\n").expandtabs()
        stripped = source.lstrip()
        text += f"\n    {stripped}"
        if error.offset and error.offset > 0:
            column = max(0, min(error.offset - 1 - (len(source) - len(stripped)), len(stripped)))
            text += "\n    " + " " * column + "^"
    return text


def _where(error: BaseException, files: tuple[str, ...]) -> str:
    """`` (multiAgents.py line 12, in getAction)`` for the innermost frame in student code."""
    frames = traceback.extract_tb(error.__traceback__)
    chosen = None
    for frame in frames:
        if os.path.realpath(frame.filename) in files:
            chosen = frame
    if chosen is None and frames:
        chosen = frames[-1]
    if chosen is None:
        return ""
    return f" ({os.path.basename(chosen.filename)} line {chosen.lineno}, in {chosen.name})"


class Failure(Exception):
    """A student-side problem, already phrased for the report."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class StudentRuntime:
    """State of one worker process: the student modules, the current agent and game."""

    def __init__(self, setup: dict[str, Any]) -> None:
        self.setup = setup
        self.files: tuple[str, ...] = tuple(os.path.realpath(f) for f in setup.get("student", []))
        self.modules: list[Any] = []
        self.loaded = False
        self.load_error: Failure | None = None
        self.agent: Any = None
        self.state: Any = None
        self.log: Any = None

    # -- calling student code ------------------------------------------------------------------

    def guarded(self, what: str, function: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except Failure:
            raise
        except SystemExit as error:
            raise Failure("exit", f"{what}: the code called sys.exit({error.code!r})") from None
        except MemoryError:
            raise Failure("memory", f"{what}: {self.out_of_memory()}") from None
        except OSError as error:
            if error.errno != errno.ENOMEM:
                raise Failure("crash", self._crash(what, error)) from None
            # The sandbox refuses memory its limit cannot count (memfd_create) this way too.
            raise Failure("memory", f"{what}: {self.out_of_memory()}") from None
        except RecursionError as error:
            raise Failure(
                "crash", f"{what}: RecursionError: {error}{_where(error, self.files)}"
            ) from None
        except SyntaxError as error:  # TabError and IndentationError too
            raise Failure("syntax", _syntax_error(error)) from None
        except BaseException as error:  # student code may raise anything, KeyboardInterrupt too
            raise Failure("crash", self._crash(what, error)) from None

    def _crash(self, what: str, error: BaseException) -> str:
        return f"{what}: {type(error).__name__}: {error}{_where(error, self.files)}"

    def out_of_memory(self) -> str:
        return (
            f"ran out of memory (the limit is {self.setup.get('memory_mb')} MB of address "
            "space; memory outside it, such as memfd_create's files, is not available)"
        )

    def load(self) -> None:
        if self.loaded:
            if self.load_error is not None:
                # A failed import fails every request the same way.
                raise self.load_error
            return
        self.loaded = True
        try:
            self._import_all()
        except Failure as failure:
            self.load_error = failure
            raise

    def _import_all(self) -> None:
        # As CS188's autograder seeds random before it imports the student's files.
        seed_modules(CS188_SEED)
        for path in self.setup.get("student", []):
            name = os.path.splitext(os.path.basename(path))[0]
            present = sys.modules.get(name)
            if present is not None and os.path.realpath(
                getattr(present, "__file__", None) or ""
            ) == os.path.realpath(path):
                # Already imported by an earlier student file: one module, one execution.
                self.modules.append(present)
                continue
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise Failure("import", f"{os.path.basename(path)} cannot be imported")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            self.guarded(f"importing {os.path.basename(path)}", spec.loader.exec_module, module)
            self.modules.append(module)
        if _names_numpy(self.files):
            # Loaded now, so it is seeded with random before each test even where the code
            # imports it inside a function (NumPy seeds itself from the kernel on import).
            with contextlib.suppress(Exception):
                import numpy.random  # noqa: F401

    def find(self, name: str) -> Any:
        self.load()
        if not self.files:
            import agents

            found = getattr(agents, name, None)
            if found is None:
                raise Failure("missing", f"the project's agents define no {name}")
            return found
        for module in self.modules:
            found = getattr(module, name, None)
            if found is not None:
                return found
        listed = ", ".join(os.path.basename(f) for f in self.files)
        raise Failure("missing", f"{listed} defines no {name}")

    def build(self, name: str, kwargs: dict[str, Any]) -> Any:
        cls = self.find(name)
        return self.guarded(f"creating {name}", cls, **kwargs)

    def ask(self, state: Any, what: str) -> str:
        from pacman.agent import action_method

        try:
            method = action_method(self.agent)
        except Exception as error:
            raise Failure("crash", f"{what}: {error}") from None
        action = self.guarded(what, method, state)
        if not isinstance(action, str):
            raise Failure("crash", f"{what}: returned {action!r}, not an action name")
        return action

    # -- requests ------------------------------------------------------------------------------

    def answer(self, request: Any) -> dict[str, Any]:
        """The reply to one request: what the code did, or what went wrong, phrased."""
        op = request.get("op") if isinstance(request, dict) else None
        handler = getattr(self, f"op_{op}", None)
        if handler is None:
            reply: dict[str, Any] = {"error": f"unknown request {op!r}", "kind": "protocol"}
        else:
            try:
                reply = handler(request)
            except Failure as failure:
                reply = {"error": failure.message, "kind": failure.kind}
            except MemoryError:
                reply = {"error": self.out_of_memory(), "kind": "memory"}
            except BaseException as error:  # the worker's own trouble, or student code's
                reply = {
                    "error": f"{type(error).__name__}: {error}{_where(error, self.files)}",
                    "kind": "crash",
                }
        reply["id"] = request.get("id") if isinstance(request, dict) else None
        return reply

    def op_load(self, request: dict[str, Any]) -> dict[str, Any]:
        self.load()
        return {}

    def op_tree(self, request: dict[str, Any]) -> dict[str, Any]:
        from pacman.gametree import GameTree
        from pacman.recording import ExpansionLog

        tree = GameTree.from_fields(request["fields"])
        log = ExpansionLog()
        kwargs = dict(request["kwargs"])
        if request.get("ghost_model"):
            # The tree's probabilities, as a ghost model: (state, ghost_index) -> {action: p}.
            kwargs["ghostModel"] = tree.ghost_model
        self.load()  # (an import draws from random: before the seeding, not after)
        if request.get("seed") is not None:
            seed_modules(int(request["seed"]))
        self.agent = self.build(request["agent"], kwargs)
        action: str | None = None
        failure: Failure | None = None
        try:
            action = self.ask(log.wrap(tree.start), f"{request['agent']}.getAction")
        except Failure as error:
            failure = error
        expansions = [[e.agent_index, e.action, str(e.parent), str(e.child)] for e in log.entries]
        reply: dict[str, Any] = {"action": action, "expansions": expansions}
        if failure is not None:
            reply.update(error=failure.message, kind=failure.kind)
        return reply

    def op_game_start(self, request: dict[str, Any]) -> dict[str, Any]:
        from pacman.layout import parse_layout
        from pacman.recording import ExpansionLog
        from pacman.state import GameState

        # The layout comes as text: the worker reads no file of the grader's once locked in.
        layout = parse_layout(request["layout_text"], request.get("layout_name") or "layout")
        self.state = GameState.initial(layout, request["num_ghosts"])
        self.log = ExpansionLog() if request.get("record") else None
        if request.get("new_agent") or self.agent is None:
            first_seed = request.get("seed")
            first_seed = request.get("agent_seed") if first_seed is None else first_seed
            self.load()
            if first_seed is not None:
                seed_modules(int(first_seed))  # what the constructor draws repeats too
            self.agent = self.build(request["agent"], request["kwargs"])
        if request.get("seed") is not None:
            seed_modules(int(request["seed"]))
        if request.get("agent_seed") is not None:
            # As a game seeds an in-process agent (after building, before registering).
            seed_agent(self.agent, int(request["agent_seed"]))
        from pacman.agent import hook

        register = hook(self.agent, "register_initial_state", "registerInitialState")
        if register is not None:
            self.guarded(f"{request['agent']}.registerInitialState", register, self.state.copy())
        if request.get("seed") is not None and request.get("reseed_after_register"):
            seed_modules(int(request["seed"]))
        return {}

    def _apply(self, request: dict[str, Any]) -> None:
        # Every game sends its state whole (pacman.sandbox.remote): the worker keeps no game.
        self.state = protocol.state_from_fields(self.state, request["state"])
        if request.get("reseed") is not None:
            seed_modules(int(request["reseed"]))
        for _ in range(int(request.get("burn", 0))):
            random.random()

    def op_act(self, request: dict[str, Any]) -> dict[str, Any]:
        self._apply(request)
        state = self.state.copy()
        if self.log is not None:
            self.log.clear()
            state = self.log.wrap(state)
        action = self.ask(state, f"{type(self.agent).__name__}.getAction")
        reply: dict[str, Any] = {"action": action}
        if self.log is not None:
            reply["explored"] = self.log.explored_count()
            self.log.clear()
        return reply

    def op_game_end(self, request: dict[str, Any]) -> dict[str, Any]:
        from pacman.agent import hook

        self._apply(request)
        final = hook(self.agent, "final", "final")
        if final is not None:
            self.guarded(f"{type(self.agent).__name__}.final", final, self.state.copy())
        return {}


def _names_numpy(files: tuple[str, ...]) -> bool:
    """Whether any of the student's ``files`` mentions NumPy."""
    for path in files:
        with contextlib.suppress(OSError), open(path, "rb") as handle:
            if b"numpy" in handle.read():
                return True
    return False


def _first_to_go() -> None:
    """Ask the kernel's OOM killer to end this worker before anything else: where the
    machine or container runs out of memory, a submission must lose, never the grader."""
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as handle:
        handle.write("1000")


def serve(rfd: int, wfd: int) -> None:
    """The worker's life: set up, lock down and prove, then answer requests until the pipe
    closes. Everything before the greeting is the grader's code alone."""
    setup = protocol.read_frame(rfd)
    _first_to_go()
    _set_limits(setup)
    _prepare(setup)
    protections = _lock_down_and_prove(setup)
    if setup.get("audit", True):
        # Libraries such as numpy import ctypes; loading it here (trusted) lets them import,
        # while the hook still refuses every ctypes call and library load made later.
        with contextlib.suppress(ImportError):
            import ctypes  # noqa: F401
        protections["audit_hook"] = True
        install_tripwire(
            setup.get("deny", []),
            setup.get("writable", []),
            tuple(setup.get("hidden_modules", [])),
            tuple(setup.get("path", [])),
        )
    runtime = StudentRuntime(setup)
    protocol.write_frame(wfd, {"ready": os.getpid(), "protections": protections})
    while True:
        try:
            request = protocol.read_frame(rfd)
        except protocol.PipeClosed:
            return
        reply = runtime.answer(request)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        try:
            protocol.write_frame(wfd, reply)
        except protocol.PipeClosed:
            return
        except protocol.ProtocolError as error:  # too large to send: say so instead
            protocol.write_frame(wfd, {"id": reply["id"], "error": str(error), "kind": "crash"})


def _prepare(setup: dict[str, Any]) -> None:
    """The student's folder, the CS188 modules by their bare names, and every module the
    worker itself needs, loaded before the walls and the hook can get in their way."""
    sys.dont_write_bytecode = True
    if setup.get("chdir"):
        os.chdir(setup["chdir"])
    from pacman.shims import game as game_shim
    from pacman.shims import util as util_shim

    sys.modules["util"] = util_shim
    sys.modules["game"] = game_shim
    for folder in reversed(setup.get("path", [])):
        sys.path.insert(0, folder)
    import pacman.agent
    import pacman.game
    import pacman.gametree
    import pacman.ghosts
    import pacman.layout
    import pacman.recording
    import pacman.state  # noqa: F401

    if not setup.get("student"):
        import agents

        for name in ("MinimaxAgent", "ReflexAgent"):
            getattr(agents, name, None)


def _lock_down_and_prove(setup: dict[str, Any]) -> dict[str, Any]:
    """Put up the walls, then prove from the inside what holds and that honest code runs."""
    import tempfile  # (before the walls: the standard library may be out of reach after)

    from pacman.sandbox.proof import prove, prove_function
    from pacman.sandbox.walls import lock_down

    # Opened while /proc is still readable: the proof reads the kernel's account through it.
    status_fd = os.open("/proc/self/status", os.O_RDONLY | os.O_CLOEXEC)
    walls = lock_down(
        rules=setup.get("landlock"),
        uid=setup.get("uid"),
        read_search=bool(setup.get("read_search")),
        landlock_abi_cap=setup.get("landlock_abi_cap"),
        writes_need_seccomp=setup.get("isolation") == "process",
    )
    expected = setup.get("proof") or {}
    protections = prove(
        walls,
        isolation=setup.get("isolation", ""),
        grader_pid=int(expected.get("grader_pid", os.getppid())),
        grader_uid=int(expected.get("grader_uid", -1)),
        canaries=list(expected.get("canaries", [])),
        write_probe=expected.get("write_probe"),
        read_search_allowed=bool(setup.get("read_search")) or bool(setup.get("landlock")),
        status_fd=status_fd,
        answers_locked=bool(setup.get("answers_locked")),
    )
    os.close(status_fd)
    if walls.new_files_blocked:
        # tempfile would try every folder for one it can write in, and fail: it is told the
        # scratch folder, so making a file there fails as plainly as anywhere.
        tempfile.tempdir = os.environ.get("TMPDIR")
    problem = prove_function()
    protections["honest_code_runs"] = problem is None
    if problem is not None:
        protections["honest_code_problem"] = problem
    return protections


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    serve(int(args[0]), int(args[1]))
