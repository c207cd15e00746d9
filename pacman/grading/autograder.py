"""``python autograder.py`` / ``pacman autograde``: CS188's flags, CS188's report lines.

Exit status: 0 when grading ran, whatever the grade; 2 for a mistake in the
command line or in a test file (one line naming the input and the place).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import TextIO

from pacman.commandline import CommandParser
from pacman.errors import PacmanError, UsageError, machine_problem
from pacman.grading.report import (
    format_test,
    import_report,
    question_block,
    results_json,
    summary_block,
    test_listing,
    write_json,
)
from pacman.grading.session import RunResult, generate_solutions, grade
from pacman.grading.submission import GradingOptions, read_suite
from pacman.grading.suite import Question, QuestionResult, load_single_test, load_suite
from pacman.outputs import prepare_output_file
from pacman.sandbox.config import ISOLATION_MODES, Limits, SandboxConfig
from pacman.sandbox.ids import allocate_uid
from pacman.sandbox.isolation import resolve_isolation
from pacman.sandbox.process import WorkerProcess
from pacman.sandbox.staging import SubmissionError, read_submission, stage_files
from pacman.seeding import new_secret, read_secret


def build_parser(prog: str = "autograder.py") -> argparse.ArgumentParser:
    parser = CommandParser(
        prog=prog,
        description="Grade Pac-Man multi-agent code against CS188-format test suites.",
    )
    add = parser.add_argument
    add("--test-directory", dest="test_root", default=None, help="the suite (default: test_cases)")
    add("--code-directory", dest="code_root", default=None, help="where the student files are")
    add(
        "--student-code",
        dest="student_code",
        default=None,
        help="student files, comma separated (default: the project's own agents; "
        "multiAgents.py when --code-directory is given)",
    )
    add("-q", "--question", dest="question", default=None, help="grade one question, e.g. q2")
    add(
        "-t",
        "--test",
        dest="run_test",
        default=None,
        help="run one test, e.g. test_cases/q2/0-small-tree",
    )
    add(
        "--no-graphics",
        dest="no_graphics",
        action="store_true",
        help="no graphics (always the case)",
    )
    add(
        "--mute",
        dest="mute",
        action="store_true",
        help="do not show what the student's code prints",
    )
    add(
        "-p",
        "--print-tests",
        dest="print_tests",
        action="store_true",
        help="print each test before its result",
    )
    add(
        "--generate-solutions",
        dest="generate_solutions",
        action="store_true",
        help="write .solution files",
    )
    add(
        "--gradescope-output",
        dest="gradescope",
        action="store_true",
        help="write gradescope_response.json",
    )
    add("--results", dest="results", default=None, help="write the JSON results to this file")
    add(
        "--html-report",
        dest="html_report",
        default=None,
        metavar="DIR",
        help="write an HTML page per failed tree test into DIR: the expected tree, your "
        "search over it, the first divergence and the diagnosis",
    )
    add("--submissions", dest="submissions", default=None, help="grade every subfolder of DIR")
    add(
        "--summary",
        dest="summary",
        default=None,
        help="with --submissions: CSV/JSON prefix (default ./grades)",
    )
    add(
        "-j",
        "--jobs",
        dest="jobs",
        type=int,
        default=None,
        help="parallel workers (default: CPU count)",
    )
    add(
        "--scheduler",
        dest="scheduler",
        default=None,
        metavar="ADDRESS",
        help="with --submissions: grade on a Dask cluster (tcp://host:8786), or 'local' for a "
        "LocalCluster of -j workers here; needs the [dask] extra",
    )
    add(
        "--move-timeout",
        dest="move_timeout",
        type=float,
        default=30.0,
        help="CPU seconds per move in tree and recorded-game tests (30)",
    )
    add(
        "--test-timeout",
        dest="test_timeout",
        type=float,
        default=None,
        help="CPU seconds per test (default: what the test's own limits allow)",
    )
    add(
        "--submission-timeout",
        dest="submission_timeout",
        type=float,
        default=None,
        help="CPU seconds for a whole submission (default: the sum of its tests' limits)",
    )
    add(
        "--unsafe-weak-sandbox",
        "--unsafe-readable-answers",
        dest="unsafe",
        action="store_true",
        help="write grades (--submissions, --results, --gradescope-output) even where the "
        "sandbox cannot prove its walls here (student code could read the answers, hold "
        "capabilities or signal the grader); the report says so",
    )
    add(
        "--lock-answers",
        dest="lock_answers",
        nargs="?",
        const="",
        default=None,
        metavar="COPIES",
        help="hide the answers by file permissions where neither Landlock nor namespaces "
        "can: the suite, the project's copies and COPIES (comma separated: every other copy "
        "of the tests on this machine) become readable by their owner alone; a Gradescope "
        "bundle always does this",
    )
    add(
        "--memory-limit",
        dest="memory_mb",
        type=int,
        default=2048,
        help="MB per student process (2048)",
    )
    add(
        "--isolation",
        dest="isolation",
        choices=ISOLATION_MODES,
        default=os.environ.get("PACMAN_GRADER_ISOLATION", "auto"),
        help="sandbox strength (default: $PACMAN_GRADER_ISOLATION, else auto)",
    )
    add(
        "--gradescope-bundle",
        dest="gradescope_bundle",
        default=None,
        metavar="ZIP",
        help="write a Gradescope autograder zip that grades --student-code (default "
        "multiAgents.py) against --test-directory with these limits and options",
    )
    add(
        "--hidden",
        dest="hidden",
        default=None,
        metavar="NAMES",
        help="with --gradescope-bundle: questions or tests (q4, q2/1-one-ghost-depth1) whose "
        "results students see only from --hidden-visibility on",
    )
    add(
        "--hidden-visibility",
        dest="hidden_visibility",
        choices=("after_published", "after_due_date", "hidden"),
        default="after_published",
        help="Gradescope visibility of the --hidden tests (default after_published)",
    )
    add(
        "--leaderboard",
        dest="leaderboard",
        action="store_true",
        help="with --gradescope-bundle: fill Gradescope's leaderboard from the EvalAgentTest "
        "games; with --submissions: rank the submissions by those games (CSV, JSON, HTML)",
    )
    add(
        "--game-secret",
        dest="game_secret",
        default=None,
        metavar="TEXT",
        help="what the ghosts of graded games draw with, with each test's seed; the same "
        "secret gives the same games again (default: a new one each run; @FILE reads it "
        "from FILE, out of sight of other users' ps)",
    )
    add("--no-audit-hook", dest="audit", action="store_false", help=argparse.SUPPRESS)
    # Behave as on an older kernel: Landlock ABI N at most, none with --no-landlock (for the
    # grader's own tests; decided here, before any student code runs).
    add("--landlock-abi", dest="landlock_abi_cap", type=int, default=None, help=argparse.SUPPRESS)
    add(
        "--no-landlock",
        dest="landlock_abi_cap",
        action="store_const",
        const=0,
        help=argparse.SUPPRESS,
    )
    return parser


# ------------------------------------------------------------------------------ student code


def student_names(args: argparse.Namespace) -> list[str]:
    if args.student_code:
        return [n.strip() for n in args.student_code.split(",") if n.strip()]
    if args.code_root:
        return ["multiAgents.py"]
    return []


# ------------------------------------------------------------------------------ main


def _test_root(args: argparse.Namespace) -> str:
    """``--test-directory``, else ./test_cases, else the project's own suite beside the package."""
    if args.test_root:
        return args.test_root
    if os.path.isdir("test_cases"):
        return "test_cases"
    from pacman.sandbox.isolation import PROJECT_ROOT

    # A checkout keeps the suite beside the package; a wheel may ship it inside (pacman/test_cases).
    for bundled in (
        os.path.join(PROJECT_ROOT, "test_cases"),
        os.path.join(PROJECT_ROOT, "pacman", "test_cases"),
    ):
        if os.path.isdir(bundled):
            return bundled
    return "test_cases"


def _limits(args: argparse.Namespace) -> Limits:
    for flag, value in (
        ("--move-timeout", args.move_timeout),
        ("--test-timeout", args.test_timeout),
        ("--submission-timeout", args.submission_timeout),
    ):
        if value is not None and not value > 0:
            raise UsageError(f"{flag} {value:g}: must be a positive number of seconds")
    return Limits(
        move_seconds=args.move_timeout,
        test_seconds=args.test_timeout,
        submission_seconds=args.submission_timeout,
        memory_mb=args.memory_mb,
    )


def game_secret(args: argparse.Namespace) -> str | None:
    """``--game-secret`` read (None: not given)."""
    if args.game_secret is None:
        return None
    return read_secret(args.game_secret)


def other_copies(args: argparse.Namespace) -> list[str]:
    """The copies of the tests ``--lock-answers`` names, as absolute paths."""
    text = args.lock_answers or ""
    return [os.path.abspath(path.strip()) for path in text.split(",") if path.strip()]


def grading_options(args: argparse.Namespace, jobs: int = 1) -> GradingOptions:
    return GradingOptions(
        limits=_limits(args),
        isolation=args.isolation,
        audit=args.audit,
        landlock_abi_cap=args.landlock_abi_cap,
        unsafe=args.unsafe,
        mute=args.mute,
        question=args.question,
        jobs=jobs,
        lock_answers=args.lock_answers is not None,
        other_copies=tuple(other_copies(args)),
        # One secret for the whole batch: every submission plays the same games.
        game_secret=game_secret(args) or new_secret(),
    )


def make_config(
    args: argparse.Namespace, stage: str, staged: list[str], extra_deny: list[str]
) -> SandboxConfig:
    deny = [os.path.abspath(_test_root(args)), *extra_deny, *other_copies(args)]
    if args.run_test:
        deny.append(os.path.dirname(os.path.dirname(os.path.abspath(args.run_test))))
    if args.code_root:
        deny.append(os.path.abspath(args.code_root))
    return SandboxConfig(
        student_files=staged,
        code_dir=stage if staged else None,
        deny=[d for d in deny if os.path.isdir(d)],
        limits=_limits(args),
        isolation=args.isolation,
        audit=args.audit,
        landlock_abi_cap=args.landlock_abi_cap,
        allow_weak=True,  # run() decides, from the first worker's proof
        lock_answers=args.lock_answers is not None,
    )


def check_games(questions: list[Question]) -> None:
    """A leaderboard ranks EvalAgentTest games: refuse one over a suite without them."""
    if not any(test.kind == "EvalAgentTest" for q in questions for test, _ in q.tests):
        raise UsageError(
            "--leaderboard ranks by the suite's EvalAgentTest games, and the questions "
            "graded have none (choose them with -q, or leave out --leaderboard)"
        )


def _results_leave(args: argparse.Namespace) -> str | None:
    """The flag through which grades leave this run for others to trust, if any."""
    for flag, given in (
        ("Gradescope", getattr(args, "in_bundle", False)),
        ("--submissions", args.submissions),
        ("--results", args.results),
        ("--gradescope-output", args.gradescope),
    ):
        if given:
            return flag
    return None


def check_protections(
    args: argparse.Namespace, config: SandboxConfig, out: TextIO
) -> tuple[WorkerProcess, str | None]:
    """Start the first student worker and judge what it proved, before any student code runs.

    Where a protection is missing, refuse (exit 2, one line) when grades would leave the
    run, unless the instructor passed --unsafe-weak-sandbox; else warn in the report's
    first line. Returns the worker, to be put to use, and the warning (None: no warning).
    """
    from pacman.sandbox.policy import describe_shortfalls, shortfalls
    from pacman.sandbox.process import describe_setting, probe_protections

    protections, worker = probe_protections(config)
    missing = shortfalls(protections)
    if not missing:
        return worker, None
    why = f"{describe_shortfalls(missing)} ({describe_setting(protections)})"
    leaving = _results_leave(args)
    if leaving and not args.unsafe:
        worker.close()
        lock = (
            ""
            if "answers_hidden" not in missing or args.lock_answers is not None
            else ", name every copy of the tests with --lock-answers"
        )
        raise UsageError(
            f"autograder: refusing to grade with {leaving}: {why}; run where namespaces or "
            f"Landlock and a separate uid work (docs/grading.md){lock}, or pass "
            "--unsafe-weak-sandbox"
        )
    warning = f"WARNING: {why}: the grades of a hostile submission cannot be trusted."
    print(warning, file=out, flush=True)
    return worker, warning


def _batch_probe(args: argparse.Namespace, out: TextIO) -> None:
    """Check, before grading anyone, that a submission's worker here can prove its walls."""
    with tempfile.TemporaryDirectory(prefix="pacman-grade-") as private:
        uid = allocate_uid()
        suite = os.path.join(private, "test_cases")
        os.mkdir(suite, 0o700)
        # A stand-in for the unpacked suite, so the canary check has an answer to look for.
        with open(os.path.join(suite, "CONFIG"), "w") as handle:
            handle.write('order: "q1"\n')
        stage, staged = stage_files(private, {"multiAgents.py": b""}, uid)
        config = make_config(args, stage, staged, [suite])
        config.uid = uid
        worker, _ = check_protections(args, config, out)
        worker.close()


def suite_to_send(
    args: argparse.Namespace, test_root: str
) -> tuple[list[Question], dict[str, bytes]]:
    """The suite's questions, checked (a broken suite fails here, before anything is graded
    or packed), and its files as bytes for graders elsewhere (a batch's workers, a bundle)."""
    questions = load_suite(test_root, args.question)
    if args.leaderboard:
        check_games(questions)
    try:
        suite = read_suite(test_root)
    except SubmissionError as error:
        raise UsageError(f"--test-directory {error}") from None
    return questions, suite


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"-j/--jobs {args.jobs}: must be at least 1")
    if args.scheduler is not None and not args.submissions:
        raise UsageError("--scheduler grades a batch: use it with --submissions DIR")
    if args.scheduler is not None:
        from pacman.execution import check_scheduler

        check_scheduler(args.scheduler)
    _limits(args)  # a bad limit fails before anything runs
    if args.html_report:
        if args.submissions:
            raise UsageError("--html-report draws one submission's trees: leave out --submissions")
        from pacman.outputs import prepare_output_folder

        prepare_output_folder("--html-report", args.html_report)
    if args.gradescope_bundle:
        from pacman.grading.gradescope import build_bundle

        if args.submissions or args.run_test or args.generate_solutions:
            raise UsageError(
                "--gradescope-bundle packs the suite for Gradescope: leave out "
                "--submissions, -t and --generate-solutions"
            )
        print(
            build_bundle(args, _test_root(args), student_names(args) or ["multiAgents.py"]),
            file=out,
        )
        return 0
    if (args.hidden or args.hidden_visibility != "after_published") and not args.gradescope_bundle:
        raise UsageError("--hidden and --hidden-visibility go with --gradescope-bundle ZIP")
    if args.leaderboard and not args.submissions:
        raise UsageError("--leaderboard goes with --gradescope-bundle ZIP or --submissions DIR")
    if args.submissions:
        from pacman.grading.batch import run_batch

        if args.scheduler not in (None, "local") and args.jobs is not None:
            raise UsageError(
                f"-j/--jobs {args.jobs}: a Dask cluster's workers are its own; "
                "leave out -j with --scheduler ADDRESS (or use --scheduler local)"
            )
        questions, suite = suite_to_send(args, _test_root(args))
        _batch_probe(args, out)
        return run_batch(
            os.path.abspath(args.submissions),
            student_names(args) or ["multiAgents.py"],
            suite,
            [(q.name, q.max_points) for q in questions],
            grading_options(args),
            args.summary or "grades",
            args.jobs or os.cpu_count() or 1,
            out,
            scheduler=args.scheduler,
            leaderboard=args.leaderboard,
        )
    if args.results:
        prepare_output_file("--results", args.results)
    graded = grade_one(args, out)
    if graded is None:
        return 0
    result, warning = graded
    if args.html_report:
        from pacman.grading.tree_report import write_reports

        for line in write_reports(args.html_report, result):
            print(line, file=out, flush=True)
    data = results_json(result, args.mute)
    if warning is not None:
        data["warning"] = warning
        data["output"] = f"{warning}\n{data['output']}"
    if args.gradescope:
        write_json("gradescope_response.json", data)
    if args.results:
        write_json(args.results, data)
    return 0


def grade_one(
    args: argparse.Namespace, out: TextIO, hide: Sequence[str] = ()
) -> tuple[RunResult, str | None] | None:
    """Grade the one submission (or the project's agents) ``args`` name, printing the report.

    Returns the run and the weak-sandbox warning (None: every wall proved), or None after
    ``--generate-solutions``. Refuses (UsageError) where grades leave the run and a wall
    cannot be proved.
    """
    if args.run_test:
        questions = [load_single_test(args.run_test)]
    else:
        questions = load_suite(_test_root(args), args.question)
    names = student_names(args)
    with tempfile.TemporaryDirectory(prefix="pacman-grade-") as private:
        stage, staged, uid = private, [], allocate_uid()
        if names:
            try:
                files = read_submission(os.path.abspath(args.code_root or "."), names)
            except SubmissionError as error:
                raise UsageError(f"--student-code: {error}") from None
            stage, staged = stage_files(private, files, uid)
        config = make_config(args, stage, staged, [os.path.abspath(path) for path in hide])
        config.uid = uid
        resolve_isolation(config.isolation)  # an unusable --isolation fails before any output
        if args.generate_solutions:
            count = generate_solutions(
                questions, config, lambda line: print(line, file=out, flush=True)
            )
            print(f"Wrote {count} solution files.", file=out)
            return None
        first_worker, warning = None, None
        if staged:
            first_worker, warning = check_protections(args, config, out)
            # Every later worker must prove as much as the first, or the run stops.
            config.allow_weak = warning is not None
        print(f"Starting on {time.strftime('%m-%d at %H:%M:%S')}", file=out)
        print("", file=out, flush=True)

        def show(question: Question, outcome: QuestionResult) -> None:
            if args.run_test:
                for (test, _), result in zip(question.tests, outcome.tests, strict=True):
                    lines = test_listing(test) if args.print_tests else []
                    lines += format_test(result, args.mute)
                    print("\n".join(lines), file=out, flush=True)
                return
            block = question_block(question, outcome, args.mute, args.print_tests)
            print(block, file=out, flush=True)

        def started(load_error: str | None, printed: str) -> None:
            lines = import_report(load_error, printed, args.mute)
            if lines:
                print("\n".join(lines) + "\n", file=out, flush=True)

        result = grade(
            questions,
            config,
            jobs=args.jobs or os.cpu_count() or 1,
            on_question=show,
            on_start=started,
            first_worker=first_worker,
            game_secret=game_secret(args),
        )
    if not args.run_test:
        print(summary_block(result), file=out, flush=True)
    return result, warning


def main(argv: Sequence[str] | None = None, prog: str = "autograder.py") -> int:
    """Entry point for ``autograder.py`` and ``pacman autograde``; returns the exit status."""
    try:
        args = build_parser(prog).parse_args(list(sys.argv[1:] if argv is None else argv))
        if args.question and args.run_test:
            raise UsageError("autograder: give -q or -t, not both")
        return run(args, sys.stdout)
    except PacmanError as error:
        print(
            f"autograder: {error}" if not str(error).startswith("autograder:") else str(error),
            file=sys.stderr,
        )
        return 2
    except BrokenPipeError:  # the reader went away (| head): nothing more to say
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return 0
    except OSError as error:  # the machine's (a full disk): what was graded is kept
        print(f"autograder: cannot go on: {machine_problem(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("autograder: interrupted", file=sys.stderr)
        return 130
