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

from pacman.errors import PacmanError, UsageError
from pacman.grading.report import (
    format_test,
    import_report,
    question_block,
    results_json,
    summary_block,
    test_listing,
    write_json,
)
from pacman.grading.runner import (
    Question,
    QuestionResult,
    generate_solutions,
    grade,
    load_single_test,
    load_suite,
)
from pacman.grading.sandbox import (
    ISOLATION_MODES,
    Limits,
    SandboxConfig,
    allocate_uid,
    resolve_isolation,
)
from pacman.grading.submission import (
    GradingOptions,
    SubmissionError,
    read_submission,
    read_suite,
    stage_files,
)
from pacman.outputs import prepare_output_file


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, as every project command
        raise UsageError(f"autograder: {message}")


def build_parser(prog: str = "autograder.py") -> argparse.ArgumentParser:
    parser = _Parser(
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
        "--unsafe-readable-answers",
        dest="unsafe",
        action="store_true",
        help="grade --submissions or Gradescope runs even where student code could read the "
        "solutions (no namespaces and no Landlock on this machine)",
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
    add("--no-audit-hook", dest="audit", action="store_false", help=argparse.SUPPRESS)
    # Behaves as on a kernel without Landlock (for the grader's own tests).
    add("--no-landlock", dest="landlock", action="store_false", help=argparse.SUPPRESS)
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
    from pacman.grading.sandbox import PROJECT_ROOT

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


def grading_options(args: argparse.Namespace, jobs: int = 1) -> GradingOptions:
    return GradingOptions(
        limits=_limits(args),
        isolation=args.isolation,
        audit=args.audit,
        landlock=args.landlock,
        unsafe=args.unsafe,
        mute=args.mute,
        question=args.question,
        jobs=jobs,
    )


def make_config(
    args: argparse.Namespace, stage: str, staged: list[str], extra_deny: list[str]
) -> SandboxConfig:
    deny = [os.path.abspath(_test_root(args)), *extra_deny]
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
        landlock=args.landlock,
    )


UNSAFE_WARNING = (
    "WARNING: student code could read the test answers here ({why}): the grades of a "
    "hostile submission cannot be trusted."
)


def check_protections(args: argparse.Namespace, out: TextIO) -> None:
    """Refuse, or warn in the report's first line, where the answers cannot be hidden."""
    from pacman.grading.sandbox import answers_hidden_here

    if not (args.submissions or args.gradescope) and not student_names(args):
        return
    hidden, isolation = answers_hidden_here(args.isolation, args.landlock)
    if hidden:
        return
    why = f"{isolation} isolation, and no Landlock on this kernel"
    if (args.submissions or args.gradescope) and not args.unsafe:
        raise UsageError(
            f"autograder: student code could read the test answers here ({why}); refusing to "
            "grade --submissions or Gradescope runs. Run where namespaces or Landlock work, or "
            "pass --unsafe-readable-answers to grade anyway."
        )
    print(UNSAFE_WARNING.format(why=why), file=out, flush=True)


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"-j/--jobs {args.jobs}: must be at least 1")
    if args.scheduler and not args.submissions:
        raise UsageError("--scheduler grades a batch: use it with --submissions DIR")
    if args.scheduler:
        from pacman.execution import import_distributed

        import_distributed()
    _limits(args)  # a bad limit fails before anything runs
    if not args.generate_solutions:
        check_protections(args, out)
    if args.submissions:
        from pacman.grading.batch import run_batch

        if args.scheduler not in (None, "local") and args.jobs is not None:
            raise UsageError(
                f"-j/--jobs {args.jobs}: a Dask cluster's workers are its own; "
                "leave out -j with --scheduler ADDRESS (or use --scheduler local)"
            )
        test_root = _test_root(args)
        questions = load_suite(test_root, args.question)
        try:
            suite = read_suite(test_root)
        except SubmissionError as error:
            raise UsageError(f"--test-directory {error}") from None
        return run_batch(
            os.path.abspath(args.submissions),
            student_names(args) or ["multiAgents.py"],
            suite,
            [q.name for q in questions],
            grading_options(args),
            args.summary or "grades",
            args.jobs or os.cpu_count() or 1,
            out,
            scheduler=args.scheduler,
        )
    if args.results:
        prepare_output_file("--results", args.results)
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
        config = make_config(args, stage, staged, [])
        config.uid = uid
        resolve_isolation(config.isolation)  # an unusable --isolation fails before any output
        if args.generate_solutions:
            count = generate_solutions(
                questions, config, lambda line: print(line, file=out, flush=True)
            )
            print(f"Wrote {count} solution files.", file=out)
            return 0
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
        )
    if not args.run_test:
        print(summary_block(result), file=out, flush=True)
    data = results_json(result, args.mute)
    if args.gradescope:
        write_json("gradescope_response.json", data)
    if args.results:
        write_json(args.results, data)
    return 0


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
    except KeyboardInterrupt:
        print("autograder: interrupted", file=sys.stderr)
        return 130
