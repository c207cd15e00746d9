"""``--similarity`` in a batch: what is compared, the HTML report and the grades.csv column.

The comparison runs once, in the process that runs the batch (on a Dask cluster too: the
submissions' files are already there, read for the grading tasks, and fingerprinting a class
of 1,000 takes well under a minute; see docs/course.md). It reads text and runs no student code.
"""

from __future__ import annotations

import argparse
import html
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

from pacman import untrusted
from pacman.errors import UsageError
from pacman.grading.similarity import DEFAULT_THRESHOLD, Document, Pair, Token, compare
from pacman.outputs import write_atomically
from pacman.sandbox.staging import SubmissionError, read_submission

#: The starter code looked for where --similarity-starter is not given: in the suite's folder.
STARTER_FOLDER = "starter"
#: Lines of context shown around each matched region.
CONTEXT_LINES = 1


@dataclass(frozen=True)
class SimilarityRequest:
    """``--similarity`` and its flags, checked: what to compare against and from when to flag."""

    threshold: float = DEFAULT_THRESHOLD
    starter: tuple[str, ...] = ()  # files the course handed out
    against: str | None = None  # a folder of known public solutions


class Submission(Protocol):
    """What a batch's task holds (:class:`~pacman.grading.submission.SubmissionTask`)."""

    @property
    def name(self) -> str: ...
    @property
    def files(self) -> dict[str, bytes]: ...
    @property
    def error(self) -> str | None: ...


def default_starter(test_root: str, names: list[str]) -> tuple[str, ...]:
    """The suite folder's ``starter/`` copies of the student files, those that exist."""
    folder = os.path.join(test_root, STARTER_FOLDER)
    found = (os.path.join(folder, os.path.basename(name)) for name in names)
    return tuple(path for path in found if os.path.isfile(path))


def add_similarity_flags(add: Any) -> None:
    """The autograder's ``--similarity`` flags (``add``: its parser's ``add_argument``)."""
    add(
        "--similarity",
        dest="similarity",
        action="store_true",
        help="with --submissions: flag pairs of similar submissions (names, comments and "
        "layout ignored) in PREFIX-similarity.html and a most_similar column of the CSV",
    )
    add(
        "--similarity-threshold",
        dest="similarity_threshold",
        type=float,
        default=None,
        metavar="X",
        help=f"flag pairs from this similarity on, above 0 to 1 (default {DEFAULT_THRESHOLD:g})",
    )
    add(
        "--similarity-starter",
        dest="similarity_starter",
        default=None,
        metavar="FILE[,FILE]",
        help="the starter code handed out, which counts for no one (default: the suite "
        f"folder's {STARTER_FOLDER}/ copies of the student files, where there are)",
    )
    add(
        "--similarity-against",
        dest="similarity_against",
        default=None,
        metavar="DIR",
        help="compare each submission with every .py file under DIR too (known public solutions)",
    )


def similarity_request(
    args: argparse.Namespace, names: list[str], test_root: str, starter_files: list[str]
) -> SimilarityRequest | None:
    """``--similarity`` and its flags, checked (``starter_files``: --similarity-starter's
    list); None without it."""
    given = (args.similarity_threshold, args.similarity_starter, args.similarity_against)
    if not args.similarity:
        if any(value is not None for value in given):
            raise UsageError("--similarity-threshold, -starter and -against go with --similarity")
        return None
    if not args.submissions:
        raise UsageError("--similarity compares a class: use it with --submissions DIR")
    threshold = args.similarity_threshold
    if threshold is not None and not 0 < threshold <= 1:
        raise UsageError(f"--similarity-threshold {threshold:g}: a similarity above 0, at most 1")
    starter = starter_files or default_starter(test_root, names)
    against = args.similarity_against
    if against is not None and not os.path.isdir(against):
        raise UsageError(f"--similarity-against {untrusted.line(against)}: no such folder")
    return SimilarityRequest(
        threshold=DEFAULT_THRESHOLD if threshold is None else threshold,
        starter=tuple(os.path.abspath(path) for path in starter),
        against=os.path.abspath(against) if against else None,
    )


def _read_given(flag: str, path: str) -> dict[str, bytes]:
    """An instructor's file, read as a student's is (size cap, no links); a problem is
    a usage error naming ``flag``."""
    try:
        return read_submission(os.path.dirname(path) or ".", [os.path.basename(path)])
    except SubmissionError as error:
        raise UsageError(f"{flag} {untrusted.line(path)}: {untrusted.line(error)}") from None


def public_documents(folder: str) -> list[Document]:
    """Every ``.py`` file under ``folder``, one known public solution each."""
    if not os.path.isdir(folder):
        raise UsageError(f"--similarity-against {untrusted.line(folder)}: no such folder")
    documents = []
    for top, folders, names in os.walk(folder):
        folders.sort()
        for name in sorted(names):
            if name.endswith(".py") and not os.path.islink(os.path.join(top, name)):
                relative = os.path.relpath(os.path.join(top, name), folder)
                files = _read_given("--similarity-against", os.path.join(top, name))
                label = "public:" + untrusted.name(relative)
                documents.append(Document.from_bytes(label, files, public=True))
    return documents


def flag_similar(
    submissions: Sequence[Submission], request: SimilarityRequest, prefix: str, out: TextIO
) -> dict[str, str]:
    """Compare the class, write ``PREFIX-similarity.html``; each submission's grades.csv cell.

    A submission whose files could not be read is its own row of the report and says why
    in its cell (one line each on ``out`` too)."""
    starter = [
        Document.from_bytes("starter", _read_given("--similarity-starter", path))
        for path in request.starter
    ]
    documents = [Document.from_bytes(s.name, s.files) for s in submissions if s.error is None]
    unreadable = {s.name: untrusted.line(s.error) for s in submissions if s.error is not None}
    if request.against:
        documents += public_documents(request.against)
    pairs, best = compare(documents, starter, request.threshold)
    report = f"{prefix}-similarity.html"
    by_name = {document.name: document for document in documents}
    write_atomically(report, _page(pairs, by_name, unreadable, request))
    for name, reason in sorted(unreadable.items()):
        print(f"similarity: {name}: not compared: {reason}", file=out)
    print(f"Similar pairs: {len(pairs)} at or above {request.threshold:g}: {report}", file=out)
    cells = {name: f"not compared: {reason}" for name, reason in unreadable.items()}
    for submission in submissions:
        pair = best.get(submission.name)
        if pair is not None:
            other = pair.second if pair.first == submission.name else pair.first
            cells[submission.name] = f"{pair.similarity:.2f} {other}"
    return cells


_STYLE = """body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}
td,th{border:1px solid #bbb;padding:.3em .6em;vertical-align:top}
pre{margin:0;font-size:.85em;white-space:pre-wrap;max-width:48em}
.region td{background:#fff8e0}h2{margin-top:2em}"""


def _page(
    pairs: list[Pair],
    documents: dict[str, Document],
    unreadable: dict[str, str],
    request: SimilarityRequest,
) -> str:
    """The report: the flagged pairs, then each pair's matched regions side by side."""
    rows = "".join(
        f'<tr><td><a href="#pair{index}">{_e(pair.first)}</a></td><td>{_e(pair.second)}</td>'
        f"<td>{pair.similarity:.2f}</td><td>{pair.shared}</td></tr>"
        for index, pair in enumerate(pairs)
    )
    skipped = "".join(
        f"<tr><td>{_e(name)}</td><td>{_e(reason)}</td></tr>"
        for name, reason in sorted(unreadable.items())
    )
    sections = "".join(
        _pair_section(index, pair, documents[pair.first], documents[pair.second])
        for index, pair in enumerate(pairs)
    )
    against = f", known public solutions: {_e(request.against)}" if request.against else ""
    starter = ", ".join(_e(path) for path in request.starter) or "none"
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Similar submissions</title><style>{_STYLE}</style></head><body>\n"
        f"<h1>Similar submissions</h1>\n<p>Pairs whose similarity (shared fingerprints over "
        f"the smaller side's own; names, comments and layout ignored) is at least "
        f"{request.threshold:g}. Starter code left out: {starter}{against}. A flag is a "
        f"reason to read both, not a verdict.</p>\n"
        f"<table><tr><th>submission</th><th>similar to</th><th>similarity</th>"
        f"<th>shared fingerprints</th></tr>{rows}</table>\n"
        + (
            f"<h2>Not compared</h2><table><tr><th>submission</th><th>why</th></tr>{skipped}</table>"
            if skipped
            else ""
        )
        + f"{sections}</body></html>\n"
    )


def _pair_section(index: int, pair: Pair, first: Document, second: Document) -> str:
    regions = "".join(
        f'<tr class="region"><td><pre>{_excerpt(first, a, a_end)}</pre></td>'
        f"<td><pre>{_excerpt(second, b, b_end)}</pre></td></tr>"
        for a, a_end, b, b_end in pair.regions
    )
    return (
        f'<h2 id="pair{index}">{_e(pair.first)} and {_e(pair.second)}: '
        f"{pair.similarity:.2f}</h2>\n<table><tr><th>{_e(pair.first)}</th>"
        f"<th>{_e(pair.second)}</th></tr>{regions}</table>\n"
    )


def _excerpt(document: Document, start: int, end: int) -> str:
    """The lines that tokens ``start`` to ``end`` of ``document`` span, numbered, escaped."""
    tokens: list[Token] = document.tokens
    first, last = tokens[start], tokens[min(end, len(tokens)) - 1]
    name = list(document.files)[first.file]
    lines = [line.removesuffix("\r") for line in document.files[name].split("\n")]
    stop = last.line if last.file == first.file else len(lines)
    shown = range(max(first.line - CONTEXT_LINES, 1), min(stop + CONTEXT_LINES, len(lines)) + 1)
    body = "\n".join(f"{number:5d}  {untrusted.text(lines[number - 1])}" for number in shown)
    return _e(f"{name}, lines {first.line}-{stop}\n{body}")


def _e(text: object) -> str:
    return html.escape(untrusted.text(text), quote=True)
