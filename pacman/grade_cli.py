"""``python autograder.py`` / ``pacman autograde``: CS188's flags, CS188's report lines.

The command line turns argv into a :class:`~pacman.grading.options.GradingJob` and its
:class:`~pacman.grading.options.GradingOptions`, checked (a bad flag or a bad combination
fails here, before anything runs), and hands them to :mod:`pacman.grading.job` (a
``--gradescope-bundle`` to :mod:`pacman.grading.gradescope`).

Exit status: 0 when grading ran, whatever the grade; 2 for a mistake in the
command line or in a test file (one line naming the input and the place).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from pacman import untrusted
from pacman.commandline import CommandParser, check_amount
from pacman.errors import PacmanError, UsageError, machine_problem
from pacman.execution import check_jobs, check_scheduler
from pacman.grading.options import (
    HIDDEN_VISIBILITIES,
    PLATFORM_TIME_LIMIT,
    GradingJob,
    GradingOptions,
    SuiteRequest,
)
from pacman.grading.similarity_report import add_similarity_flags, similarity_request
from pacman.sandbox.config import ISOLATION_MODES, Limits
from pacman.seeding import SECRET_VARIABLE, new_secret, read_secret

#: CS188's test classes, which every suite's ``class:`` lines name and which are built in here.
TEST_CLASSES = "multiagentTestClasses.py"
#: The student's file CS188's autograder grades, in the code directory (default: here).
STUDENT_FILE = "multiAgents.py"
WITHOUT_WINDOW = (
    "autograder: --graphics: graded games play in sandboxed workers, without a window; "
    "watch an agent with: pacman -p ReflexAgent -l testClassic"
)

#: The most seconds a move, a test, a submission or the platform's limit may be (a week):
#: what the kernel's CPU limit and the grader's timers hold, far beyond any course's need.
MAX_CPU_SECONDS = 7 * 86_400.0
#: The most memory a student process may be given, in MB (1 TiB): what the kernel's limit holds.
MAX_MEMORY_MB = 1 << 20


def build_parser(prog: str = "autograder.py") -> argparse.ArgumentParser:
    parser = CommandParser(
        prog=prog,
        description="Grade Pac-Man multi-agent code against CS188-format test suites.",
    )
    _what_to_grade(parser.add_argument)
    _what_to_write(parser.add_argument)
    _limits_and_walls(parser.add_argument)
    _course(parser.add_argument)
    add_similarity_flags(parser.add_argument)
    add = parser.add_argument
    add("--fresh-trees", metavar="Q[,Q]", help="trees drawn for each submission in these questions")
    add("--generate-suite", dest="new_suite", metavar="DIR", help="write a fresh suite into DIR")
    add("--kinds", metavar="K[,K]", help="with --generate-suite: its questions (all five)")
    add("--trees", metavar="N", help="with --generate-suite: trees per question, at least (8)")
    add("--seed", metavar="TEXT", help="with --generate-suite: its seed (default: a new one)")
    return parser


def _what_to_grade(add: Any) -> None:
    add("--test-directory", dest="test_root", default=None, help="the suite (default: test_cases)")
    add("--code-directory", dest="code_root", default=None, help="where the student files are")
    add(
        "--student-code",
        dest="student_code",
        default=None,
        help=f"student files, comma separated (default: {STUDENT_FILE}, where the code "
        "directory holds one or is given; else the project's own agents)",
    )
    add(
        "--project-agents",
        dest="project_agents",
        action="store_true",
        help=f"grade the project's own agents, even where this folder holds a {STUDENT_FILE}",
    )
    add("-q", "--question", dest="question", default=None, help="grade one question, e.g. q2")
    add("-t", "--test", dest="run_test", help="run one test, e.g. test_cases/q2/0-small-tree")
    add("--no-graphics", action="store_true", help="no graphics (always the case)")
    add(
        "--graphics",
        dest="graphics",
        action="store_true",
        help="CS188's: show graded games in a window; here they play in sandboxed workers "
        "without one, and a line says how to watch them",
    )
    add(
        "--test-case-code",
        dest="test_case_code",
        default=None,
        metavar="FILE",
        help="CS188's multiagentTestClasses.py: its test classes are built in here",
    )
    add(
        "--game-secret",
        dest="game_secret",
        default=None,
        metavar="TEXT",
        help="what the ghosts of graded games draw with, with each test's seed; the same "
        "secret gives the same games again (default: $PACMAN_GAME_SECRET, else one derived "
        "from each test, the same on every run, which anyone holding the suite can derive; "
        "@FILE reads it from FILE, @- from standard input, out of sight of other users' ps)",
    )


def _what_to_write(add: Any) -> None:
    add("--mute", action="store_true", help="do not show what the student's code prints")
    add("-p", "--print-tests", action="store_true", help="print each test before its result")
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
    add(
        "--edx-output",
        dest="edx",
        action="store_true",
        help="write edx_response.html (each question's result) and edx_grade (the total)",
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


def _limits_and_walls(add: Any) -> None:
    add(
        "-j",
        "--jobs",
        dest="jobs",
        type=int,
        default=None,
        help="parallel workers (default: CPU count)",
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


def _course(add: Any) -> None:
    add("--submissions", dest="submissions", default=None, help="grade every subfolder of DIR")
    add(
        "--summary",
        dest="summary",
        default=None,
        help="with --submissions: CSV/JSON prefix (default ./grades)",
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
        "--gradescope-bundle",
        dest="gradescope_bundle",
        default=None,
        metavar="ZIP",
        help="write a Gradescope autograder zip that grades --student-code (default "
        f"{STUDENT_FILE}) against --test-directory with these limits and options",
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
        choices=HIDDEN_VISIBILITIES,
        default=HIDDEN_VISIBILITIES[0],
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
        "--baseline-agents",
        dest="baseline_agents",
        default=None,
        metavar="AGENTS",
        help="with --submissions --leaderboard: fixed agents ranked with the class, each a "
        "class of --baseline-code with its arguments (AlphaBetaAgent:depth=2) or a student "
        "file or folder; every submission is told which it beats",
    )
    add(
        "--baseline-code",
        dest="baseline_code",
        default=None,
        metavar="FILE",
        help="the staff's file (a multiAgents.py) holding the --baseline-agents classes",
    )
    add(
        "--platform-time-limit",
        dest="platform_time_limit",
        type=float,
        default=PLATFORM_TIME_LIMIT,
        metavar="SECONDS",
        help="with --gradescope-bundle: the assignment's Gradescope timeout (default 600); "
        "results.json is written a margin before it",
    )


# ------------------------------------------------------------------------------ argv -> options


def parse(argv: Sequence[str], prog: str = "autograder.py") -> tuple[GradingJob, GradingOptions]:
    """The job and options argv asks for, every flag and combination checked."""
    args = build_parser(prog).parse_args(list(argv))
    _check_combinations(args)
    names = _student_names(args)
    batch = args.submissions is not None
    options = GradingOptions(
        limits=_limits(args),
        isolation=args.isolation,
        audit=args.audit,
        landlock_abi_cap=args.landlock_abi_cap,
        unsafe=args.unsafe,
        mute=args.mute,
        question=args.question,
        # A batch grades a submission's tests one at a time: its processes share the cores.
        jobs=1 if batch else args.jobs,
        game_secret=_game_secret(args),
        lock_answers=args.lock_answers is not None,
        # A secret's file is an answer too: hidden from student code like the suite.
        other_copies=tuple(
            os.path.abspath(path) for path in [*_words(args.lock_answers), *_secret_files(args)]
        ),
        fresh_trees=tuple(_words(args.fresh_trees)),
    )
    job = GradingJob(
        test_root=_test_root(args),
        single_test=args.run_test,
        code_root=os.path.abspath(args.code_root) if args.code_root else None,
        student_code=tuple(names),
        print_tests=args.print_tests,
        generate_solutions=args.generate_solutions,
        results=args.results,
        gradescope_output=args.gradescope,
        edx_output=args.edx,
        graphics_asked=args.graphics,
        html_report=args.html_report,
        submissions=os.path.abspath(args.submissions) if batch else None,
        summary=args.summary or "grades",
        processes=args.jobs or os.cpu_count() or 1,
        scheduler=args.scheduler,
        leaderboard=args.leaderboard,
        baseline_agents=tuple(_words(args.baseline_agents)),
        baseline_code=os.path.abspath(args.baseline_code) if args.baseline_code else None,
        platform_time_limit=args.platform_time_limit,
        bundle=args.gradescope_bundle,
        hidden=args.hidden,
        hidden_visibility=args.hidden_visibility,
        new_suite=_suite_request(args),
        similarity=similarity_request(
            args, names, _test_root(args), _words(args.similarity_starter)
        ),
    )
    return job, options


def _words(text: str | None) -> list[str]:
    return [word.strip() for word in (text or "").split(",") if word.strip()]


def _secret_files(args: argparse.Namespace) -> list[str]:
    """The files ``--game-secret @FILE`` and ``--seed @FILE`` read (a bundle keeps the secret
    itself, not where it came from)."""
    given = () if args.gradescope_bundle else (args.game_secret, args.seed)
    return [text[1:] for text in given if text and text.startswith("@") and text != "@-"]


def _suite_request(args: argparse.Namespace) -> SuiteRequest | None:
    """``--generate-suite`` and its flags, checked; None without it."""
    if args.new_suite is None:
        if args.kinds or args.trees or args.seed:
            raise UsageError("--kinds, --trees and --seed go with --generate-suite DIR")
        return None
    from pacman.grading.suitegen import KINDS

    what = (args.submissions, args.run_test, args.question, args.code_root, args.student_code)
    rest = (args.project_agents, args.gradescope_bundle, args.generate_solutions, args.fresh_trees)
    if any((*what, *rest)):
        raise UsageError("--generate-suite writes a suite and grades nothing: leave out the rest")
    kinds = _words(args.kinds) or list(KINDS)
    for kind in kinds:
        if kind not in KINDS:
            raise UsageError(f"--kinds {kind}: unknown; choose among {','.join(KINDS)}")
    trees = args.trees or "8"
    if not trees.isdigit() or not 1 <= int(trees) <= 1000:
        raise UsageError(f"--trees {trees}: a whole number of trees from 1 to 1000")
    if os.path.isdir(args.new_suite) and os.listdir(args.new_suite):
        raise UsageError(f"--generate-suite {args.new_suite}: not empty; give a new folder")
    seed = read_secret(args.seed, "--seed") if args.seed else new_secret()
    return SuiteRequest(args.new_suite, tuple(dict.fromkeys(kinds)), int(trees), seed)


def _check_combinations(args: argparse.Namespace) -> None:
    """Flags that cannot go together, or not alone, fail before anything runs."""
    if args.question and args.run_test:
        raise UsageError("autograder: give -q or -t, not both")
    if args.test_case_code and os.path.basename(args.test_case_code) != TEST_CLASSES:
        raise UsageError(
            f"--test-case-code {args.test_case_code}: the test classes are built in (CS188's "
            f"{TEST_CLASSES}, whose test kinds every suite here uses); other classes cannot be loaded"
        )
    if args.project_agents:
        for given, flag in (
            (args.student_code, "--student-code"),
            (args.code_root, "--code-directory"),
            (args.submissions, "--submissions"),
            (args.gradescope_bundle, "--gradescope-bundle"),
        ):
            if given:
                raise UsageError(
                    f"--project-agents grades the project's own agents, {flag} a student's "
                    "code: leave out one or the other"
                )
    if args.jobs is not None:
        check_jobs(args.jobs, "-j/--jobs")
    if args.landlock_abi_cap is not None and args.landlock_abi_cap < 0:
        raise UsageError(f"--landlock-abi {args.landlock_abi_cap}: a Landlock ABI is 0 or more")
    if args.scheduler is not None and not args.submissions:
        raise UsageError("--scheduler grades a batch: use it with --submissions DIR")
    if args.scheduler is not None:
        check_scheduler(args.scheduler)
    single = [(args.results, "--results"), (args.gradescope, "--gradescope-output")]
    single += [(args.edx, "--edx-output"), (args.print_tests, "-p")]
    for given, flag in single:
        if given and args.submissions:
            raise UsageError(
                f"{flag} is for one submission; a batch writes grades.csv and grades.json "
                "(--summary PREFIX): leave out one or the other"
            )
    if args.html_report and args.submissions:
        raise UsageError("--html-report draws one submission's trees: leave out --submissions")
    if args.gradescope_bundle and (args.submissions or args.run_test or args.generate_solutions):
        raise UsageError(
            "--gradescope-bundle packs the suite for Gradescope: leave out "
            "--submissions, -t and --generate-solutions"
        )
    if not args.gradescope_bundle:
        if args.hidden or args.hidden_visibility != HIDDEN_VISIBILITIES[0]:
            raise UsageError("--hidden and --hidden-visibility go with --gradescope-bundle ZIP")
        if args.leaderboard and not args.submissions:
            raise UsageError("--leaderboard goes with --gradescope-bundle ZIP or --submissions DIR")
    if args.fresh_trees and (args.run_test or args.generate_solutions):
        raise UsageError("--fresh-trees grades whole questions: leave out -t, --generate-solutions")
    if (args.baseline_agents or args.baseline_code) and not (args.submissions and args.leaderboard):
        raise UsageError(
            "--baseline-agents and --baseline-code go with --submissions --leaderboard"
        )
    if args.platform_time_limit != PLATFORM_TIME_LIMIT and not args.gradescope_bundle:
        raise UsageError("--platform-time-limit goes with --gradescope-bundle ZIP")
    check_amount("--platform-time-limit", args.platform_time_limit, MAX_CPU_SECONDS)
    secret_given = args.game_secret or _secret_from_environment()
    if args.fresh_trees and not (secret_given or args.gradescope_bundle):
        raise UsageError("--fresh-trees needs --game-secret (a regrade draws the same trees)")
    if args.submissions and args.scheduler not in (None, "local") and args.jobs is not None:
        raise UsageError(
            f"-j/--jobs {args.jobs}: a Dask cluster's workers are its own; "
            "leave out -j with --scheduler ADDRESS (or use --scheduler local)"
        )


def _student_names(args: argparse.Namespace) -> list[str]:
    """The student files graded, as CS188's autograder finds them: ``--student-code``'s, else
    multiAgents.py in the code directory (a course folder's; a batch's or a bundle's
    submissions'); none where there is no such file, or with ``--project-agents``: then the
    project's own agents are graded."""
    if args.project_agents:
        return []
    if args.student_code:
        names = _words(args.student_code)
        for name in names:  # another file would be staged, never imported, and grade 0
            if not name.endswith(".py"):
                raise UsageError(f"--student-code {name}: not a Python file (a name ending .py)")
        return names
    given = args.code_root or args.submissions or args.gradescope_bundle
    if given or os.path.lexists(STUDENT_FILE):
        return [STUDENT_FILE]
    return []


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
        if value is not None:
            check_amount(flag, value, MAX_CPU_SECONDS)
    if not 1 <= args.memory_mb <= MAX_MEMORY_MB:
        raise UsageError(f"--memory-limit {args.memory_mb}: MB from 1 to {MAX_MEMORY_MB}")
    return Limits(
        move_seconds=args.move_timeout,
        test_seconds=args.test_timeout,
        submission_seconds=args.submission_timeout,
        memory_mb=args.memory_mb,
    )


def _game_secret(args: argparse.Namespace) -> str | None:
    """``--game-secret`` read; None without it: each test's own, the same on every run and
    for every submission of a batch (never one drawn per run)."""
    if args.game_secret is not None:
        if not args.game_secret.startswith("@") and not args.gradescope_bundle:
            _refuse_shown_secret(args)
        return read_secret(args.game_secret)
    return _secret_from_environment() or None


def _secret_from_environment() -> str:
    """``$PACMAN_GAME_SECRET``, stripped ("" where it is unset or blank)."""
    return os.environ.get(SECRET_VARIABLE, "").strip()


def _refuse_shown_secret(args: argparse.Namespace) -> None:
    """``--game-secret TEXT`` where student code may read other processes' /proc: the copy on
    the command line of whatever started the grader (a shell, ``timeout``) stays readable."""
    from pacman.sandbox.isolation import workers_see_other_processes

    if workers_see_other_processes(args.isolation, args.landlock_abi_cap):
        raise UsageError(
            "--game-secret TEXT: student code here could read it on the command line that "
            "started the grader (process isolation, no Landlock, no PID namespace); give it as "
            f"@FILE, @- (standard input) or in ${SECRET_VARIABLE}"
        )


def main(argv: Sequence[str] | None = None, prog: str = "autograder.py") -> int:
    """Entry point for ``autograder.py`` and ``pacman autograde``; returns the exit status."""
    from pacman.grading.job import run

    try:
        job, options = parse(sys.argv[1:] if argv is None else argv, prog)
        if job.graphics_asked:
            print(WITHOUT_WINDOW, file=sys.stderr)
        if job.bundle and not job.new_suite:  # packing for Gradescope grades nothing here
            from pacman.grading.gradescope import build_bundle

            print(build_bundle(job, options), file=sys.stdout)
            return 0
        return run(job, options, sys.stdout)
    except PacmanError as error:
        said = untrusted.line(error)  # one line, whatever a name in it held
        print(said if said.startswith("autograder:") else f"autograder: {said}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (| head): nothing more to say
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return 0
    except OSError as error:  # the machine's (a full disk): what was graded is kept
        print(f"autograder: cannot go on: {machine_problem(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM where grading turns it into one
        print("autograder: interrupted", file=sys.stderr)
        return getattr(stop, "exit_code", 130)
