"""Carry out a :class:`~pacman.grading.options.GradingJob`: pack a Gradescope bundle, grade a
batch, or grade one submission (or the project's agents) and write its results.

Whoever asked (``autograder.py``, ``pacman autograde``, a bundle's ``run_autograder``), the
job and its options arrive built and checked; nothing here reads a command line.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import TextIO

from pacman.errors import UsageError
from pacman.execution import interruption_handled
from pacman.grading.options import GradingJob, GradingOptions
from pacman.grading.report import (
    format_test,
    graded_line,
    heading,
    import_report,
    question_block,
    results_json,
    summary_block,
    test_listing,
    write_edx,
    write_json,
)
from pacman.grading.session import RunResult, generate_solutions, grade
from pacman.grading.submission import suite_to_send
from pacman.grading.suite import Question, QuestionResult, load_single_test, load_suite
from pacman.grading.suitegen import fresh_questions
from pacman.outputs import prepare_output_file, prepare_output_folder
from pacman.sandbox.config import SandboxConfig
from pacman.sandbox.ids import allocate_uid
from pacman.sandbox.isolation import resolve_isolation
from pacman.sandbox.mounts import restore_locks
from pacman.sandbox.pool import SpareWorker
from pacman.sandbox.process import WorkerProcess
from pacman.sandbox.staging import (
    SubmissionError,
    check_root_capabilities,
    read_submission,
    stage_files,
)


def run(job: GradingJob, options: GradingOptions, out: TextIO) -> int:
    """Do what ``job`` asks; the exit status (0 once grading ran, whatever the grade)."""
    graded = job.graded()  # every report names it first
    if job.new_suite:
        from pacman.grading.suitegen import write_suite

        # The command line only checks: folders are made here, once the run is decided.
        prepare_output_folder("--generate-suite", job.new_suite.folder)
        print("\n".join(write_suite(job.new_suite)), file=out)
        return 0
    # A root grader that cannot give submissions uids of their own says so before anything.
    check_root_capabilities()
    if job.submissions:
        from pacman.grading.baselines import baseline_tasks
        from pacman.grading.batch import run_batch

        questions, suite = suite_to_send(job, options)
        points = tuple((q.name, q.max_points) for q in questions)
        names = list(job.student_code)
        baselines = baseline_tasks(
            job.baseline_agents, job.baseline_code, names, suite, options, points
        )
        # The probe locks the answers here, before the pool starts (its processes may be
        # killed at the end): this process puts the modes back.
        with modes_restored(options):
            warning = _batch_probe(job, options)
            return run_batch(
                job.submissions,
                names,
                suite,
                list(points),
                options,
                job.summary,
                job.processes,
                out,
                scheduler=job.scheduler,
                leaderboard=job.leaderboard,
                graded=graded,
                similarity=job.similarity,
                warning=warning,
                baselines=baselines if job.baseline_agents else None,
            )
    if job.html_report:
        prepare_output_folder("--html-report", job.html_report)
    if job.results:
        prepare_output_file("--results", job.results)
    one = grade_one(job, options, out)
    if one is None:
        return 0
    result, warning = one
    if job.html_report:
        from pacman.grading.tree_report import write_reports

        for line in write_reports(job.html_report, result, graded_line(graded)):
            print(line, file=out, flush=True)
    data = results_json(result, options.mute, graded, warning)
    if job.gradescope_output:
        write_json("gradescope_response.json", data)
    if job.edx_output:
        write_edx(data)
    if job.results:
        write_json(job.results, data)
    return 0


def check_protections(
    job: GradingJob, options: GradingOptions, config: SandboxConfig
) -> tuple[WorkerProcess, str | None]:
    """Start the first student worker and judge what it proved, before any student code runs.

    Where a protection is missing, refuse (exit 2, one line) when grades would leave the
    run, unless the instructor passed --unsafe-weak-sandbox; else warn, next to the report's
    first line. Returns the worker, to be put to use, and the warning (None: no warning).
    """
    from pacman.sandbox.policy import describe_weakness, shortfalls
    from pacman.sandbox.process import probe_protections

    protections, worker = probe_protections(config)
    missing = shortfalls(protections)
    if not missing:
        return worker, None
    why = describe_weakness(protections)
    leaving = job.results_leave()
    if leaving and not options.unsafe:
        worker.close()
        lock = (
            ""
            if "answers_hidden" not in missing or options.lock_answers
            else ", name every copy of the tests with --lock-answers"
        )
        raise UsageError(
            f"autograder: refusing to grade with {leaving}: {why}; run where namespaces or "
            f"Landlock and a separate uid work (docs/grading.md){lock}, or pass "
            "--unsafe-weak-sandbox"
        )
    warning = f"WARNING: {why}: the grades of a hostile submission cannot be trusted."
    return worker, warning


def _batch_probe(job: GradingJob, options: GradingOptions) -> str | None:
    """Check, before grading anyone, that a submission's worker here can prove its walls;
    the warning where it cannot and the instructor allowed it."""
    with tempfile.TemporaryDirectory(prefix="pacman-grade-") as private:
        uid = allocate_uid()
        suite = os.path.join(private, "test_cases")
        os.mkdir(suite, 0o700)
        # A stand-in for the unpacked suite, so the canary check has an answer to look for.
        with open(os.path.join(suite, "CONFIG"), "w") as handle:
            handle.write('order: "q1"\n')
        stage, staged = stage_files(private, {"multiAgents.py": b""}, uid)
        hidden = [*job.hidden_folders(), suite]
        config = options.sandbox(
            staged=staged, stage=stage, hidden=hidden, uid=uid, allow_weak=True
        )
        worker, warning = check_protections(job, options, config)
        worker.close()
    return warning


def grade_one(
    job: GradingJob, options: GradingOptions, out: TextIO
) -> tuple[RunResult, str | None] | None:
    """Grade the one submission (or the project's agents) ``job`` names, printing the report.

    Returns the run and the weak-sandbox warning (None: every wall proved), or None after
    ``--generate-solutions``. Refuses (UsageError) where grades leave the run and a wall
    cannot be proved.
    """
    with modes_restored(options):
        return _grade_one(job, options, out)


@contextlib.contextmanager
def modes_restored(options: GradingOptions) -> Iterator[None]:
    """With --lock-answers: every file mode the run changed is put back when grading ends,
    however it ends (SIGTERM too, which :func:`interruption_handled` turns into an
    exception; workers are closed by then)."""
    if not options.lock_answers:
        yield
        return
    with interruption_handled():
        try:
            yield
        finally:
            restore_locks()


def _grade_one(
    job: GradingJob, options: GradingOptions, out: TextIO
) -> tuple[RunResult, str | None] | None:
    if job.single_test:
        questions = [load_single_test(job.single_test)]
    else:
        questions = load_suite(job.test_root, options.question)
    with tempfile.TemporaryDirectory(prefix="pacman-grade-") as private:
        stage, uid = private, allocate_uid()
        staged: list[str] = []
        files: dict[str, bytes] = {}
        if job.student_code:
            try:
                files = read_submission(
                    job.code_root or os.path.abspath("."), list(job.student_code)
                )
            except SubmissionError as error:
                raise UsageError(f"--student-code: {error}") from None
            stage, staged = stage_files(private, files, uid)
        secret, every = options.game_secret or "", options.question is None
        questions = fresh_questions(questions, options.fresh_trees, secret, files, every)
        # run() decides below, from the first worker's proof, whether a weak wall may do.
        config = options.sandbox(
            staged=staged,
            stage=stage,
            hidden=job.hidden_folders(),
            uid=uid,
            allow_weak=True,
            submission_folder=job.code_root,
        )
        resolve_isolation(config.isolation)  # an unusable --isolation fails before any output
        if job.generate_solutions:
            heading(job.graded(), None, out)
            count = generate_solutions(
                questions, config, lambda line: print(line, file=out, flush=True)
            )
            print(f"Wrote {count} solution files.", file=out)
            return None
        first_worker, warning, spare = None, None, None
        if staged:
            parallel = (options.jobs or os.cpu_count() or 1) > 1
            if parallel and sum(len(q.tests) for q in questions) > 1:
                spare = SpareWorker(config)  # a second thread's worker, started meanwhile
            try:
                first_worker, warning = check_protections(job, options, config)
            except BaseException:
                if spare is not None:
                    spare.close()
                raise
            # Every later worker must prove as much as the first, or the run stops.
            config = replace(config, allow_weak=warning is not None)
        heading(job.graded(), warning, out)
        result = _graded(job, options, questions, config, (first_worker, spare), out)
    if not job.single_test:
        print(summary_block(result), file=out, flush=True)
    return result, warning


def _graded(
    job: GradingJob,
    options: GradingOptions,
    questions: list[Question],
    config: SandboxConfig,
    workers: tuple[WorkerProcess | None, SpareWorker | None],
    out: TextIO,
) -> RunResult:
    """The grading session, each question's report printed as it is scored."""
    print(f"Starting on {time.strftime('%m-%d at %H:%M:%S')}", file=out)
    print("", file=out, flush=True)

    def show(question: Question, outcome: QuestionResult) -> None:
        if job.single_test:
            for (test, _), result in zip(question.tests, outcome.tests, strict=True):
                lines = test_listing(test) if job.print_tests else []
                lines += format_test(result, options.mute)
                print("\n".join(lines), file=out, flush=True)
            return
        print(
            question_block(question, outcome, options.mute, job.print_tests), file=out, flush=True
        )

    def started(load_error: str | None, printed: str) -> None:
        lines = import_report(load_error, printed, options.mute)
        if lines:
            print("\n".join(lines) + "\n", file=out, flush=True)

    return grade(
        questions,
        config,
        jobs=options.jobs or os.cpu_count() or 1,
        on_question=show,
        on_start=started,
        first_worker=workers[0],
        game_secret=options.game_secret,
        spare=workers[1],
    )
