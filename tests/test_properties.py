"""Every parser a user or a student feeds, fed by Hypothesis: each answers with a value or the
project's own one-line error, never a traceback, and never hangs.

Layout files, test files, ``random:`` specs, ``-a`` agent arguments, replay records, requests to
the live view and the worker protocol's frames as the grader reads them. A fixed, modest budget
(``max_examples`` below, no deadline) keeps the file to a few seconds a test.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import signal
import socket
import struct
import tempfile
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from agents.arguments import real_number, whole_number
from pacman import untrusted
from pacman.cli import main
from pacman.errors import AgentError, LayoutError, UsageError
from pacman.layout import parse_layout
from pacman.loading import build_agent, find_class, parse_agent_args
from pacman.mazegen import parse_spec
from pacman.sandbox import protocol
from pacman.state import GameState
from pacman.testfile import TestFileError, parse_test_text
from pacman.view.web import WebDisplay

SMALL = parse_layout("%%%%%%%\n%P. ..%\n%.%G%.%\n%%%%%%%", name="small")
# Hypothesis keeps a cache of Unicode tables in its home folder, ./.hypothesis by default:
# a temporary one instead, so that the tests write nothing in the checkout.
set_hypothesis_home_dir(tempfile.mkdtemp(prefix="pacman-hypothesis-"))

#: ``PACMAN_PROPERTY_SCALE=20`` explores 20 times as many examples, drawn afresh each run;
#: the suite's runs draw the same ones every time.
SCALE = float(os.environ.get("PACMAN_PROPERTY_SCALE", "1"))


def budget(examples: int, *unhealthy: HealthCheck) -> settings:
    return settings(
        max_examples=int(examples * SCALE),
        deadline=None,
        derandomize=SCALE == 1,
        database=None,  # nothing written in the checkout (.hypothesis/)
        suppress_health_check=unhealthy,
    )


#: Text that looks like what each parser expects, with some of anything mixed in.
LAYOUT_TEXT = st.text(
    alphabet=st.sampled_from("%%%%  ..oPGG1234\n\n\t\r") | st.characters(), max_size=120
)


@budget(250)
@given(LAYOUT_TEXT)
@example("%%%%\n%P.%\n%%%%")
@example("%%%%%\n%P G%\n%%%%")
def test_layouts_parse_or_are_one_layout_error(text):
    try:
        layout = parse_layout(text)
    except LayoutError as error:
        assert "\n" not in str(error)
        return
    state = GameState.initial(layout, layout.num_ghosts)
    assert state.get_num_agents() == 1 + layout.num_ghosts
    assert parse_layout(str(layout)).rows == layout.rows


TEST_TEXT = st.lists(
    st.sampled_from(['key: "value"', 'block: """', '"""', "# comment", "", 'k: "v" x', "x"])
    | st.text(max_size=30),
    max_size=12,
).map("\n".join)


@budget(250)
@given(TEST_TEXT)
def test_test_files_parse_or_are_one_test_file_error(text):
    try:
        parsed = parse_test_text(text, "case.test")
    except TestFileError as error:
        assert str(error).startswith("case.test line ") and "\n" not in str(error)
        return
    assert all(isinstance(value, str) for value in parsed.values())


SPEC_PART = st.sampled_from(
    ["seed=", "ghosts=", "capsules=", "food=", "x", "=", ",", "-", "1", "9", "0.5", "e", " "]
)
SPEC = st.builds(
    lambda size, rest: "random:" + size + rest,
    st.from_regex(r"[0-9]{0,4}x?[0-9]{0,4}", fullmatch=True) | st.text(max_size=8),
    st.lists(SPEC_PART | st.text(max_size=4), max_size=10).map("".join),
)


@budget(250)
@given(SPEC)
@example("random:" + "9" * 5000 + "x11")
@example("random:9x9,seed=" + "1" * 5000)
@example("random:9x9,food=nan")
@example("random:9x9,food=1e400")
def test_random_specs_parse_or_are_one_layout_error(text):
    try:
        spec = parse_spec(text)
    except LayoutError as error:
        assert str(error).startswith("layout spec ") and "\n" not in str(error)
        assert len(str(error)) < 1500  # the spec shown cut to 60 characters, escaped
        return
    if spec.width * spec.height <= 400:
        try:
            board = spec.board(0)
        except LayoutError as error:
            assert "fewer than" in str(error)
        else:
            assert (board.width, board.height) == (spec.width, spec.height)


#: What a number flag may be given: any float's spelling (nan, inf, -0.0, 1e+300), any
#: whole number, or any short text.
NUMBER_TEXT = st.one_of(
    st.floats().map(repr),
    st.integers(-(10**30), 10**30).map(str),
    st.text(max_size=6),
)
PLAY_NUMBER_FLAGS = ["--frameTime", "-z", "--timeout", "--jobs", "-n", "-k", "-x", "--max-moves"]
GRADE_NUMBER_FLAGS = [
    "--move-timeout",
    "--test-timeout",
    "--submission-timeout",
    "--memory-limit",
    "--landlock-abi",
    "-j",
]


def _number_flags(flags: list[str]) -> st.SearchStrategy[list[str]]:
    chosen = st.dictionaries(st.sampled_from(flags), NUMBER_TEXT, max_size=len(flags))
    return chosen.map(lambda given: [part for pair in given.items() for part in pair])


def _one_line_naming_a_flag(error: UsageError, argv: list[str]) -> None:
    message = str(error)
    assert "\n" not in message, message
    assert any(flag in message for flag in argv[::2]), message


@budget(250, HealthCheck.function_scoped_fixture)
@given(st.text(alphabet="ab.:/ _-1\u00e9\x00\n", min_size=1, max_size=16))
@example("../../etc/passwd")
@example(".x")
def test_agent_names_find_a_class_or_are_one_line(capsys, name):
    """Any ``-p`` text (paths, dots, colons, control characters) is a class or one line
    naming it, exit 2 (a relative name once reached importlib as a traceback)."""
    code = main(["-q", "-l", "testClassic", "-n", "1", "--max-moves", "1", "-p", name])
    out, err = capsys.readouterr()
    if code == 0:
        assert isinstance(find_class(name), type)
        return
    assert code == 2 and err.startswith("pacman: ") and err.count("\n") == 1, (code, err)
    assert "Traceback" not in out + err


@budget(250)
@given(_number_flags(PLAY_NUMBER_FLAGS))
@example(["--timeout", "nan"])
@example(["--zoom", "inf", "--frameTime", "1e308"])
@example(["--jobs", "100000"])
def test_play_numbers_are_usable_or_one_usage_error(argv):
    """Every number ``pacman`` takes is one a clock, a screen and this machine can hold, or
    one line naming its flag (NaN once reached a timer as an agent's crash; --jobs 100000
    started as many processes)."""
    from pacman.cli import parse_options
    from pacman.commandline import MAX_FRAME_TIME, MAX_TIMEOUT, MAX_ZOOM
    from pacman.execution import MAX_JOBS

    try:
        options = parse_options(["-q", "-p", "GreedyAgent", *argv])
    except UsageError as error:
        _one_line_naming_a_flag(error, argv)
        return
    assert 0 <= options.frame_time <= MAX_FRAME_TIME
    assert 0 < options.zoom <= MAX_ZOOM
    assert options.timeout is None or 0 < options.timeout <= MAX_TIMEOUT
    assert 1 <= options.jobs <= MAX_JOBS
    assert options.games >= 1 and options.num_ghosts >= 0 and options.training_games >= 0
    assert options.max_moves is None or options.max_moves >= 1


@budget(150)
@given(_number_flags(GRADE_NUMBER_FLAGS))
@example(["--submission-timeout", "inf"])
@example(["--memory-limit", "-5"])
def test_grading_limits_are_usable_or_one_usage_error(argv):
    """The grader's limits and worker count: finite, positive, bounded, or one line (an
    infinite --submission-timeout once failed every test with the grader's OverflowError; a
    negative --memory-limit was taken)."""
    from pacman.execution import MAX_JOBS
    from pacman.grade_cli import MAX_CPU_SECONDS, MAX_MEMORY_MB, parse

    try:
        _, options = parse(["--project-agents", *argv])
    except UsageError as error:
        _one_line_naming_a_flag(error, argv)
        return
    limits = options.limits
    for seconds in (limits.move_seconds, limits.test_seconds, limits.submission_seconds):
        assert seconds is None or 0 < seconds <= MAX_CPU_SECONDS
    assert 1 <= limits.memory_mb <= MAX_MEMORY_MB
    assert options.landlock_abi_cap is None or options.landlock_abi_cap >= 0
    assert options.jobs is None or 1 <= options.jobs <= MAX_JOBS


@budget(250)
@given(st.text(alphabet=st.sampled_from("ab_1=, =") | st.characters(), max_size=40))
def test_agent_arguments_parse_or_are_one_usage_error(text):
    try:
        arguments = parse_agent_args(text)
    except UsageError as error:
        assert str(error).startswith(f"-a {text!r}: ")
        return
    assert all(key.isidentifier() for key in arguments)
    for key, value in arguments.items():
        for convert in (whole_number, real_number):
            try:
                number = convert(key, value)
            except AgentError as error:
                assert str(error).startswith(f"bad argument {key}=")
            else:
                assert convert is whole_number or math.isfinite(number)


JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
GOOD_RECORD = {
    "format": "pacman-game-record",
    "layout": "tiny",
    "layout_rows": ["%%%%%", "%P.G%", "%%%%%"],
    "num_ghosts": 1,
    "actions": [[0, "East"]],
    "seed": 1,
    "score": 509,
}


@st.composite
def records(draw):
    """A game record with some fields replaced by anything, some left out, some added."""
    record = dict(GOOD_RECORD)
    for key in draw(st.lists(st.sampled_from([*sorted(GOOD_RECORD), "notes", "crash"]))):
        if draw(st.booleans()):
            record[key] = draw(JSON_VALUE)
        else:
            record.pop(key, None)
    return record


@budget(200, HealthCheck.function_scoped_fixture)
@given(records() | JSON_VALUE)
@example(GOOD_RECORD)
def test_replay_records_replay_or_are_one_line(tmp_path, capsys, record):
    from pacman.records import RECORD_FORMAT

    assert GOOD_RECORD["format"] == RECORD_FORMAT
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code = main(["--replay", str(path), "-q"])
    out, err = capsys.readouterr()
    assert code in (0, 2)
    if code == 2:
        assert err.startswith(f"pacman: --replay {path}") and err.count("\n") == 1
    assert "Traceback" not in out + err


@pytest.fixture(scope="module")
def live():
    said: list[str] = []
    shown = WebDisplay(frame_time=0.0, say=said.append)
    yield shown
    shown.close()
    assert said == []


REQUEST_LINE = st.builds(
    lambda method, path, version: f"{method} {path} {version}",
    st.sampled_from(["GET", "POST", "HEAD", "PUT", "get", ""]) | st.text(max_size=5),
    st.sampled_from(["/", "/events", "/key", "/favicon.ico", "/?token=", "/key?token="])
    | st.text(max_size=12),
    st.sampled_from(["HTTP/1.1", "HTTP/1.0", "HTTP/2", ""]) | st.text(max_size=6),
)
HEADER = st.builds(
    lambda name, value: f"{name}: {value}",
    st.sampled_from(["Host", "Content-Length", "Transfer-Encoding", "Connection", "X"])
    | st.text(max_size=6),
    st.sampled_from(["127.0.0.1", "localhost:1", "-1", "99999999999", "chunked", "close"])
    | st.text(max_size=12),
)
REQUEST = st.builds(
    lambda line, headers, body: (
        ("\r\n".join([line, *headers]) + "\r\n\r\n").encode("utf-8", "surrogateescape") + body
    ),
    REQUEST_LINE,
    st.lists(HEADER, max_size=5),
    st.binary(max_size=80),
) | st.binary(max_size=200)


@budget(200, HealthCheck.function_scoped_fixture)
@given(REQUEST, st.booleans())
def test_requests_to_the_live_view_get_a_status_and_print_nothing(live, capfd, request, token):
    if token:
        request = request.replace(b"token=", f"token={live.token}".encode())
    with socket.create_connection(("127.0.0.1", live.port), timeout=30) as client:
        client.sendall(request)
        client.shutdown(socket.SHUT_WR)  # all it sends: a server waiting for more gets EOF
        reply = b""
        while chunk := client.recv(65536):
            reply += chunk
    assert reply == b"" or reply.startswith((b"HTTP/1.0 ", b"HTTP/1.1 "))
    assert capfd.readouterr() == ("", "")
    with live._changed:
        live._keys.clear()  # (a "quit" taken would end the next game, and there is none)


def frame(value) -> bytes:
    body = json.dumps(value).encode()
    return struct.pack(">I", len(body)) + body


FRAMES = (
    st.binary(max_size=200)
    | JSON_VALUE.map(frame)
    | st.tuples(st.integers(0, 2**32 - 1), st.binary(max_size=64)).map(
        lambda pair: struct.pack(">I", pair[0]) + pair[1]
    )
)


@budget(300)
@given(FRAMES)
@example(frame(json.loads("[" * 900 + "]" * 900)))
@example(b"[" * 60_000)  # (less than a pipe holds: nothing reads while it is written)
@example(struct.pack(">I", 10) + b"\xff" * 10)
def test_worker_replies_are_values_or_protocol_errors(data):
    read, write = os.pipe()
    try:
        os.write(write, data)
        os.close(write)
        write = -1
        try:
            reply = protocol.read_frame(read, time.monotonic() + 10, max_size=1 << 16)
        except protocol.ProtocolError:
            return
        safe = untrusted.data(reply)  # as the grader does with every reply
        json.dumps(safe).encode("utf-8")  # safe text: encodes, whatever the worker sent
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)


AGENTS = [
    "AlphaBetaAgent",
    "AnytimeAgent",
    "ExpectimaxAgent",
    "ExpectiminimaxAgent",
    "MCTSAgent",
    "MinimaxAgent",
    "GreedyAgent",
]
ARGUMENT_VALUE = st.sampled_from(
    [
        *[
            "-1",
            "0",
            "1",
            "2",
            "abc",
            "nan",
            "inf",
            "0.5",
            "-0.5",
            "True",
            "better",
            "1e400",
            "directional",
            "uniform",
            "0.05",
            "3",
        ],
        "",
    ]
) | st.text(max_size=6)


@st.composite
def agents_with_arguments(draw):
    cls = find_class(draw(st.sampled_from(AGENTS)))
    names = [p for p in inspect.signature(cls).parameters if p not in ("self", "index", "rng")]
    chosen = draw(st.lists(st.sampled_from(names), unique=True)) if names else []
    return cls, {name: draw(ARGUMENT_VALUE) for name in chosen}


def _too_long(signum, frame):
    raise TimeoutError("one move took more than 20 s")


@budget(200)
@given(agents_with_arguments())
def test_agent_arguments_are_refused_when_the_agent_is_made_or_play(agent):
    cls, arguments = agent
    try:
        built = build_agent(cls, "agent", **arguments)
        check = getattr(built, "check_game", None)
        if check is not None:
            check(2)
    except AgentError as error:
        assert "\n" not in str(error)
        return
    state = GameState.initial(SMALL, 1)
    previous = signal.signal(signal.SIGALRM, _too_long)
    signal.alarm(20)
    try:
        action = built.get_action(state)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert action in state.get_legal_actions(0)


# -- the bugs these properties found, pinned with their exact messages -------------------------


def test_a_record_with_a_field_of_the_wrong_type_is_one_line(tmp_path, capsys):
    path = tmp_path / "game.json"
    path.write_text(json.dumps({**GOOD_RECORD, "num_ghosts": None}), encoding="utf-8")
    assert main(["--replay", str(path), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"pacman: --replay {path}: the record's 'num_ghosts' is not a whole number\n"
    )


def test_an_evaluator_given_as_text_is_refused_when_the_agent_is_made():
    with pytest.raises(AgentError) as refused:
        build_agent(find_class("MCTSAgent"), "agent", evaluator="-1")
    assert str(refused.value) == (
        "agent MCTSAgent: bad argument evaluator=-1: evaluator must be an object with an "
        "evaluate(state, simulation) method, given from Python; on the command line give "
        "rollout=, depth= and evalFn= instead"
    )


def test_an_argument_with_a_newline_is_refused_on_one_line():
    with pytest.raises(AgentError) as refused:
        build_agent(find_class("AlphaBetaAgent"), "agent", depth="2\nx")
    assert str(refused.value) == (
        "agent AlphaBetaAgent: bad argument depth=2\\x0ax: depth must be a whole number"
    )
