"""What a grading run is asked to do, as two frozen objects the command line builds once.

:class:`GradingOptions` is how every submission is graded (limits, isolation, the ghosts'
secret, ...): it travels with each submission of a batch to wherever it is graded.
:class:`GradingJob` is what one command asks for (which suite, which code, which outputs).
The library takes only these: a run flows one way, options -> suite -> sandbox -> games ->
scores -> report, whether it was asked for by ``autograder.py``, a batch or a Gradescope
bundle.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from pacman.sandbox.config import Limits, SandboxConfig

if TYPE_CHECKING:
    from pacman.grading.similarity_report import SimilarityRequest

#: Gradescope's visibilities a hidden test may get (``visible`` is the default of the rest).
HIDDEN_VISIBILITIES = ("after_published", "after_due_date", "hidden")
#: Gradescope's default overall timeout of an autograder run, in seconds (its
#: troubleshooting page): the bundle writes its results a margin before it.
PLATFORM_TIME_LIMIT = 600.0


@dataclass(frozen=True)
class GradingOptions:
    """How to grade: limits, isolation, which question, how to report."""

    limits: Limits = field(default_factory=Limits)
    isolation: str = "auto"
    audit: bool = True
    landlock_abi_cap: int | None = None  # at most this Landlock ABI (tests of older kernels)
    unsafe: bool = False  # --unsafe-weak-sandbox: grade where the sandbox's proof fails
    mute: bool = False
    question: str | None = None
    #: Tests of one submission run side by side (threads, each with a worker); None: one
    #: per CPU of the machine that grades.
    jobs: int | None = None
    #: The course's secret the ghosts of graded games draw with (:mod:`pacman.seeding`),
    #: the same for every submission. None: each test's own, derived from the test.
    game_secret: str | None = None
    #: Hide the answers by file permissions (``--lock-answers``): the suite, the project's
    #: copies and ``other_copies`` are every copy there is.
    lock_answers: bool = False
    other_copies: tuple[str, ...] = ()
    #: Questions whose tree tests are replaced by trees drawn for each submission from the
    #: game secret and its files (:mod:`pacman.grading.suitegen`).
    fresh_trees: tuple[str, ...] = ()

    def sandbox(
        self,
        *,
        staged: Sequence[str],
        stage: str | None,
        hidden: Sequence[str],
        uid: int | None,
        allow_weak: bool,
        submission_folder: str | None = None,
    ) -> SandboxConfig:
        """The sandbox every worker of one submission gets: ``staged`` files in ``stage``,
        ``hidden`` folders (the suite, ``submission_folder``, ...) out of its reach."""
        deny = [os.path.abspath(path) for path in (*hidden, *self.other_copies)]
        return SandboxConfig(
            student_files=list(staged),
            code_dir=stage if staged else None,
            deny=[path for path in dict.fromkeys(deny) if os.path.exists(path)],
            submission_folder=submission_folder,
            limits=self.limits,
            isolation=self.isolation,
            audit=self.audit,
            landlock_abi_cap=self.landlock_abi_cap,
            uid=uid,
            allow_weak=allow_weak,
            lock_answers=self.lock_answers,
        )

    def to_json(self) -> dict[str, Any]:
        """The options as JSON (a Gradescope bundle keeps them): :meth:`from_json` reads them."""
        data = asdict(self)
        data["other_copies"] = list(self.other_copies)
        return data

    def as_flags(self) -> list[str]:
        """The autograder flags that give these options (a bundle's summary line says them)."""
        limits = self.limits
        flags = [
            "--move-timeout",
            f"{limits.move_seconds:g}",
            "--memory-limit",
            str(limits.memory_mb),
        ]
        flags += ["--isolation", self.isolation]
        for flag, value in (
            ("--test-timeout", limits.test_seconds),
            ("--submission-timeout", limits.submission_seconds),
            ("-q", self.question),
            ("-j", self.jobs),
            ("--landlock-abi", self.landlock_abi_cap),
            ("--fresh-trees", ",".join(self.fresh_trees) or None),
        ):
            if value is not None:
                flags += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
        for flag, given in (
            ("--mute", self.mute),
            ("--unsafe-weak-sandbox", self.unsafe),
            ("--no-audit-hook", not self.audit),
        ):
            if given:
                flags.append(flag)
        return flags

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GradingOptions:
        fields = dict(data)
        fields["limits"] = Limits(**fields.get("limits", {}))
        fields["other_copies"] = tuple(fields.get("other_copies", ()))
        fields["fresh_trees"] = tuple(fields.get("fresh_trees", ()))
        return cls(**fields)


@dataclass(frozen=True)
class SuiteRequest:
    """``--generate-suite``: a fresh suite of ``trees`` trees per question of ``kinds``."""

    folder: str
    kinds: tuple[str, ...]
    trees: int
    seed: str


@dataclass(frozen=True)
class GradingJob:
    """What one command asks for: the suite, the code graded, and where results go."""

    test_root: str  # the suite's folder
    single_test: str | None = None  # ``-t q2/0-small-tree``: this test alone
    code_root: str | None = None  # where the student's files are (None: the working folder)
    student_code: tuple[str, ...] = ()  # the files to grade there
    print_tests: bool = False
    generate_solutions: bool = False
    results: str | None = None  # --results FILE
    gradescope_output: bool = False  # --gradescope-output: gradescope_response.json
    edx_output: bool = False  # --edx-output: edx_response.html and edx_grade
    graphics_asked: bool = False  # CS188's --graphics, answered with one line
    html_report: str | None = None  # a folder of HTML pages for failed tree tests
    submissions: str | None = None  # a batch: every subfolder of this folder
    summary: str = "grades"  # the batch's CSV/JSON prefix
    processes: int = 1  # submissions of a batch graded side by side
    scheduler: str | None = None  # a batch on a Dask cluster
    leaderboard: bool = False
    baseline_agents: tuple[str, ...] = ()  # --baseline-agents: ranked with the class
    baseline_code: str | None = None  # the staff file their classes come from
    platform_time_limit: float = PLATFORM_TIME_LIMIT  # --platform-time-limit, in the bundle
    bundle: str | None = None  # --gradescope-bundle ZIP: pack, not grade
    hidden: str | None = None  # the bundle's hidden questions and tests
    hidden_visibility: str = HIDDEN_VISIBILITIES[0]
    in_bundle: bool = False  # graded by a Gradescope bundle: grades leave the run
    hide: tuple[str, ...] = ()  # more folders the code graded must not see
    new_suite: SuiteRequest | None = None  # --generate-suite: write a suite, grade nothing
    similarity: SimilarityRequest | None = None  # --similarity: flag similar submissions

    def graded(self) -> dict[str, Any]:
        """What this job grades, as every report names it first: the code's files (the
        project's ``agents`` folder where no student file is graded) and the suite."""
        if self.student_code:
            # A batch grades the files of each subfolder: named by a pattern.
            where = os.path.join(self.submissions, "*") if self.submissions else self.code_root
            folder = os.path.abspath(where or ".")
            code = [os.path.join(folder, name) for name in self.student_code]
        else:
            from pacman.sandbox.isolation import PROJECT_ROOT
            from pacman.sandbox.policy import AGENT_CODE

            code = [os.path.join(PROJECT_ROOT, AGENT_CODE)]
        suite = self.test_root
        if self.single_test:  # -t q2/0-small-tree: that test's file
            suite = self.single_test.removesuffix(".test") + ".test"
        return {
            "code": code,
            "project_agents": not self.student_code,
            "suite": os.path.abspath(suite),
        }

    def hidden_folders(self) -> list[str]:
        """Every folder the graded code must not see: the suite (a single test's too), the
        student's own folder, and what the caller adds."""
        folders = [self.test_root, *self.hide]
        if self.single_test:
            folders.append(os.path.dirname(os.path.dirname(os.path.abspath(self.single_test))))
        if self.code_root:
            folders.append(self.code_root)
        return folders

    def results_leave(self) -> str | None:
        """The way grades leave this run for others to trust, if any (then a wall the
        sandbox cannot prove refuses the run)."""
        for way, given in (
            ("Gradescope", self.in_bundle),
            ("--submissions", self.submissions),
            ("--results", self.results),
            ("--gradescope-output", self.gradescope_output),
            ("--edx-output", self.edx_output),
        ):
            if given:
                return way
        return None
