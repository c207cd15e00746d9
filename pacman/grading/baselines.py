"""Fixed agents a class is ranked against: ``--submissions DIR --leaderboard
--baseline-agents ReflexAgent,AlphaBetaAgent:depth=2 --baseline-code staff/multiAgents.py``.

A student's place among classmates moves whenever a classmate improves; their place among
fixed staff agents does not. Each baseline plays the same seeded games as every submission,
graded as one (its own sandboxed worker), and the leaderboard says of each submission which
baselines it beats (:func:`pacman.grading.leaderboard.rank`).

A baseline is either a class of the staff's file with its arguments (``NAME:KEY=VALUE:...``):
the file is graded with the suite's contest agent (each EvalAgentTest's ``agentName``) made
that class with those arguments, whatever the test passes; or a student file or a folder
holding the student files, graded as it is.
"""

from __future__ import annotations

import ast
import os
import re

from pacman import untrusted
from pacman.errors import UsageError
from pacman.grading.options import GradingOptions
from pacman.grading.submission import SubmissionTask
from pacman.sandbox.staging import SubmissionError, read_submission
from pacman.testfile import TestFileError, parse_test_text

#: Baselines are named so: no submission folder's name holds a "/".
PREFIX = "baseline/"
_CLASS_SPEC = re.compile(r"[A-Za-z_]\w*(:[A-Za-z_]\w*=[^:]*)*")


def contest_agents(suite: dict[str, bytes]) -> list[str]:
    """The ``agentName`` of every EvalAgentTest of the suite, in order, once each."""
    names: list[str] = []
    for path, data in sorted(suite.items()):
        if not path.endswith(".test"):
            continue
        try:
            test = parse_test_text(data.decode("utf-8"), path)
        except (UnicodeDecodeError, TestFileError):
            continue  # the suite was checked when it was read: not a contest test
        if test.get("class") == "EvalAgentTest" and test.get("agentName") not in names:
            names.append(test["agentName"])
    return names


def _class_source(spec: str, staff: str, agents: list[str]) -> str:
    """The staff's file with each contest agent made the class ``spec`` names."""
    name, *pairs = spec.split(":")
    arguments = dict(pair.split("=", 1) for pair in pairs)
    defined = {node.name for node in ast.parse(staff).body if isinstance(node, ast.ClassDef)}
    if name not in defined:
        raise UsageError(f"--baseline-agents {spec}: --baseline-code defines no class {name}")
    lines = [staff, "", f"# The baseline {spec}, as the contest agent(s) of the suite.", ""]
    lines.append(f"_baseline_class, _baseline_arguments = {name}, {arguments!r}")
    for agent in agents:
        lines += [
            "",
            f"class {agent}(_baseline_class):",
            "    def __init__(self, *args, **kwargs):",
            "        _baseline_class.__init__(self, **_baseline_arguments)",
        ]
    return "\n".join(lines) + "\n"


def _staff_text(path: str | None, spec: str) -> str:
    if path is None:
        raise UsageError(f"--baseline-agents {spec}: name the file of its class (--baseline-code)")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        ast.parse(text)
    except (OSError, UnicodeDecodeError, SyntaxError) as error:
        raise UsageError(f"--baseline-code {path}: not a readable Python file ({error})") from None
    return text


def baseline_tasks(
    specs: tuple[str, ...],
    staff_file: str | None,
    names: list[str],
    suite: dict[str, bytes],
    options: GradingOptions,
    questions: tuple[tuple[str, int], ...],
) -> list[SubmissionTask]:
    """One task per baseline ``specs`` names, graded as a submission of ``names``."""
    tasks = []
    agents = contest_agents(suite)
    for spec in specs:
        if os.path.exists(spec) or spec.endswith(".py"):
            folder, files = spec, None
            if os.path.isfile(spec):
                folder, files = os.path.dirname(spec) or ".", [os.path.basename(spec)]
            try:
                read = read_submission(folder, files or names)
            except SubmissionError as error:
                raise UsageError(f"--baseline-agents {spec}: {error}") from None
            contents = dict(zip([os.path.basename(n) for n in names], read.values(), strict=False))
            label = os.path.basename(os.path.normpath(spec))
        elif _CLASS_SPEC.fullmatch(spec):
            source = _class_source(spec, _staff_text(staff_file, spec), agents)
            contents = {os.path.basename(names[0]): source.encode()}
            label = spec
        else:
            raise UsageError(
                f"--baseline-agents {spec}: write a class with its arguments "
                "(AlphaBetaAgent:depth=2) or a student file or folder"
            )
        name = PREFIX + untrusted.line(label)
        tasks.append(SubmissionTask(name, contents, suite, options, questions=questions))
    return tasks
