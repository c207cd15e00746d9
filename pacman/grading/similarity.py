"""``--similarity``: pairs of submissions whose code is the same up to names, comments and layout.

Each submission's student files are read as text (bytes that are not UTF-8 replaced), cut
into Python tokens (:mod:`tokenize`; a regular expression takes over from where it gives
up), every name becomes ``N``, every string ``S`` and every number ``0``, and comments,
docstrings and line breaks go. Runs of ``KGRAM`` such tokens are hashed (BLAKE2b, the
same in every process and every run) and winnowed (Schleimer, Wilkerson and Aiken, 2003:
the smallest hash of every window of ``WINDOW`` hashes is kept), so a copied run of at
least ``KGRAM + WINDOW - 1`` tokens always leaves a shared fingerprint, wherever it moved.

Fingerprints of the starter code are dropped from every submission, and so are those that
more than ``common_limit`` submissions share (idioms every answer writes); a pair's
similarity is the share of the smaller side's fingerprints that the other side holds too.
No student code runs: the text is only read.
"""

from __future__ import annotations

import hashlib
import io
import keyword
import re
import tokenize
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import combinations, islice

#: Tokens in one hashed run: long enough that two unrelated answers rarely share one.
KGRAM = 16
#: Hashes per winnowing window: every copied run of KGRAM + WINDOW - 1 tokens is found.
WINDOW = 8
#: Tokens read per submission; the rest is left out (a CS188 file has a few thousand).
MAX_TOKENS = 200_000
#: A side with fewer fingerprints of its own than this is too small to call a copy.
MIN_FINGERPRINTS = 8
#: Flagged from this similarity on (--similarity-threshold's default).
DEFAULT_THRESHOLD = 0.5

#: The tokens :mod:`tokenize` yields that say nothing about the code's shape.
_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
#: What the fallback reads where :mod:`tokenize` gives up: names, numbers, strings, comments,
#: then any other character that is not a space.
_FALLBACK = re.compile(
    r"(?P<name>[^\W\d]\w*)|(?P<number>\d[\w.]*)|(?P<string>'[^'\n]*'?|\"[^\"\n]*\"?)"
    r"|(?P<comment>#[^\n]*)|(?P<other>[^\s\w])"
)


@dataclass(frozen=True)
class Token:
    """One normalised token and where it was: which of the submission's files, which line."""

    text: str
    file: int
    line: int


@dataclass
class Document:
    """One side of a comparison: a submission, the starter code or a known public solution."""

    name: str
    files: dict[str, str]  # file name -> text as read
    tokens: list[Token] = field(default_factory=list)
    #: fingerprint -> the positions (token indexes) where its run starts
    prints: dict[int, list[int]] = field(default_factory=dict)
    public: bool = False  # a known public solution: paired with submissions only

    @classmethod
    def from_bytes(cls, name: str, files: dict[str, bytes], public: bool = False) -> Document:
        """The document of these files: read, tokenised and fingerprinted."""
        texts = {file: data.decode("utf-8", "replace") for file, data in files.items()}
        document = cls(name, texts, public=public)
        for number, text in enumerate(texts.values()):
            room = MAX_TOKENS - len(document.tokens)
            document.tokens += [
                Token(kind, number, line) for kind, line in normalised_tokens(text)[:room]
            ]
        document.prints = fingerprints([token.text for token in document.tokens])
        return document


def normalised_tokens(text: str) -> list[tuple[str, int]]:
    """``text``'s tokens as (normalised text, line), comments and docstrings left out.

    Takes any text: from the line where :mod:`tokenize` finds no more Python (a stray
    bracket, a bad indent, text that is not code), a regular expression reads the rest."""
    text = text.replace("\0", " ")
    tokens: list[tuple[str, int]] = []
    after_statement = True  # a string starting a statement is a docstring (or dead)
    in_docstring = False
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            kind, line = token.type, token.start[0]
            if kind in _SKIPPED or (kind == tokenize.ERRORTOKEN and not token.string.strip()):
                continue
            if kind == tokenize.STRING and after_statement:
                in_docstring = True
                continue
            if in_docstring and kind == tokenize.NEWLINE:  # the docstring's own end
                in_docstring = False
                continue
            in_docstring = False
            after_statement = kind in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
            tokens.append((_normalised(kind, token.string), line))
            if len(tokens) >= MAX_TOKENS:
                break
    except (tokenize.TokenError, SyntaxError, ValueError) as error:
        stop = _error_line(error, tokens)
        tokens = [token for token in tokens if token[1] < stop]
        tokens += islice(_fallback_tokens(text, stop), MAX_TOKENS - len(tokens))
    return tokens


def _error_line(error: Exception, tokens: list[tuple[str, int]]) -> int:
    """The line where :mod:`tokenize` gave up (else the last line it read)."""
    line = getattr(error, "lineno", None)
    if line is None and len(error.args) > 1 and isinstance(error.args[1], tuple):
        line = error.args[1][0]
    if isinstance(line, int) and line >= 1:
        return line
    return tokens[-1][1] if tokens else 1


def _normalised(kind: int, text: str) -> str:
    if kind == tokenize.NAME:
        return text if keyword.iskeyword(text) else "N"
    if kind == tokenize.NUMBER:
        return "0"
    if kind == tokenize.STRING or kind >= tokenize.N_TOKENS:
        return "S"
    if kind in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
        return tokenize.tok_name[kind]
    return text


def _fallback_tokens(text: str, from_line: int) -> Iterator[tuple[str, int]]:
    """The tokens of ``text`` from line ``from_line`` on, read by :data:`_FALLBACK`."""
    rest = "\n".join(text.split("\n")[max(from_line - 1, 0) :])  # lines as tokenize counts
    line = max(from_line, 1)
    position = 0
    for match in _FALLBACK.finditer(rest):
        line += rest.count("\n", position, match.start())
        position = match.start()
        group = match.lastgroup
        if group == "comment":
            continue
        if group == "name":
            yield (match.group() if keyword.iskeyword(match.group()) else "N"), line
        else:
            yield {"number": "0", "string": "S"}.get(group or "", match.group()), line


def run_hash(run: list[str]) -> int:
    """A run of tokens' fingerprint: the same in every process and on every machine."""
    digest = hashlib.blake2b(" ".join(run).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def fingerprints(tokens: list[str]) -> dict[int, list[int]]:
    """The winnowed hashes of ``tokens``' runs of :data:`KGRAM`, each with where its runs start."""
    hashes = [run_hash(tokens[start : start + KGRAM]) for start in range(len(tokens) - KGRAM + 1)]
    chosen: dict[int, list[int]] = {}
    # Indexes of the window's hashes that may yet be its smallest, their hashes rising:
    # the front is the rightmost smallest, which a window sliding on keeps (robust winnowing).
    candidates: deque[int] = deque()
    last = -1
    for index, value in enumerate(hashes):
        while candidates and hashes[candidates[-1]] >= value:
            candidates.pop()
        candidates.append(index)
        if candidates[0] <= index - WINDOW:
            candidates.popleft()
        whole = index >= WINDOW - 1 or index == len(hashes) - 1  # a short text is one window
        if whole and candidates[0] != last:
            last = candidates[0]
            chosen.setdefault(hashes[last], []).append(last)
    return chosen


@dataclass(frozen=True)
class Pair:
    """Two documents and how alike they are."""

    first: str
    second: str
    similarity: float  # shared fingerprints / the smaller side's own fingerprints
    shared: int
    #: matched regions: (first's start token, end token, second's start token, end token)
    regions: tuple[tuple[int, int, int, int], ...] = ()


def common_limit(submissions: int) -> int:
    """How many submissions may share a fingerprint before it counts as an idiom, not a copy."""
    return max(10, submissions // 10)


def compare(
    documents: list[Document],
    starter: Iterable[Document] = (),
    threshold: float = DEFAULT_THRESHOLD,
) -> tuple[list[Pair], dict[str, Pair]]:
    """Every pair of ``documents`` at or above ``threshold`` (most similar first), and each
    submission's most similar other side (over every pair, flagged or not).

    A pair of two known public solutions is never compared; the starter's fingerprints and
    the idioms (:func:`common_limit`) count for no one."""
    ignored = {print_ for document in starter for print_ in document.prints}
    holders: dict[int, list[int]] = defaultdict(list)
    for index, document in enumerate(documents):
        for print_ in document.prints:
            if print_ not in ignored:
                holders[print_].append(index)
    limit = common_limit(sum(not document.public for document in documents))
    own = Counter[int]()
    shared: dict[tuple[int, int], list[int]] = defaultdict(list)
    for print_, indexes in holders.items():
        if len(indexes) > limit:
            continue
        own.update(indexes)
        for both in combinations(indexes, 2):
            shared[both].append(print_)
    flagged: list[Pair] = []
    best: dict[str, Pair] = {}
    for (i, j), prints in sorted(shared.items()):
        first, second = documents[i], documents[j]
        if first.public and second.public:
            continue
        smaller = min(own[i], own[j])
        if smaller < MIN_FINGERPRINTS:
            continue
        pair = Pair(first.name, second.name, len(prints) / smaller, len(prints))
        for side in (first, second):
            held = best.get(side.name)
            # Ties go to the pair met first: the other side first in name order.
            if not side.public and (held is None or pair.similarity > held.similarity):
                best[side.name] = pair
        if pair.similarity >= threshold:
            flagged.append(_with_regions(pair, first, second, prints))
    flagged.sort(key=lambda pair: (-pair.similarity, pair.first, pair.second))
    return flagged, best


def _with_regions(pair: Pair, first: Document, second: Document, prints: list[int]) -> Pair:
    """``pair`` with its matched regions: shared runs that follow each other on both sides."""
    starts = sorted((first.prints[p][0], second.prints[p][0]) for p in prints)
    regions: list[list[int]] = []
    gap = KGRAM + WINDOW
    for a, b in starts:
        last = regions[-1] if regions else None
        if last and a <= last[1] + WINDOW and last[2] - gap <= b <= last[3] + WINDOW:
            last[1] = max(last[1], a + KGRAM)
            last[2] = min(last[2], b)
            last[3] = max(last[3], b + KGRAM)
        else:
            regions.append([a, a + KGRAM, b, b + KGRAM])
    shown = tuple((a, a_end, b, b_end) for a, a_end, b, b_end in regions)
    return Pair(pair.first, pair.second, pair.similarity, pair.shared, shown)
