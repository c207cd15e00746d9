"""--similarity: a disguised copy is paired with its source and nothing else is; the starter
code counts for no one; any bytes are read without a traceback; the same scores in every
process; the report and the CSV column of a real batch."""

from __future__ import annotations

import ast
import builtins
import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pacman.grade_cli import main as autograder
from pacman.grading import similarity
from pacman.grading.similarity import (
    DEFAULT_THRESHOLD,
    KGRAM,
    WINDOW,
    Document,
    compare,
    normalised_tokens,
)
from pacman.grading.similarity_report import default_starter, public_documents

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "grading"
STARTER = REPO / "tests" / "fixtures" / "similarity" / "starter.py"
#: The honest file copied: a CS188-style submission with full marks.
SOURCE = "cs188_style"
#: Honest fixtures written apart from SOURCE (reversed_order reuses chance_style's code: a
#: real pair, left out of the unrelated ones).
OTHER_FIXTURES = [
    "chance_style", "hostile_borrow_reference", "last_of_equal", "lookup_style",
    "memo_snake", "other_style", "random_ties", "value_action_pairs",
]  # fmt: skip


def disguised(source: str) -> str:
    """``source`` as a copier hands it in: every name it defines renamed (but the ones the
    grader calls), docstrings and comments rewritten, each class's methods and the
    module's functions in reverse order, laid out anew by :func:`ast.unparse`."""
    tree = ast.parse(source)
    defined = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
    called_by_grader = {n for n in defined if n.endswith(("Agent", "Function"))}
    kept = set(dir(builtins)) | {"self", "getAction", "__init__"} | called_by_grader
    new = {name: f"my{index}_{name.lower()}" for index, name in enumerate(sorted(defined - kept))}

    class Renamed(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            node.id = new.get(node.id, node.id)
            return node

        def visit_arg(self, node: ast.arg) -> ast.arg:
            node.arg = new.get(node.arg, node.arg)
            return node

        def visit_Attribute(self, node: ast.Attribute) -> ast.Attribute:
            self.generic_visit(node)
            node.attr = new.get(node.attr, node.attr)
            return node

        def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
            self.generic_visit(node)
            node.name = new.get(node.name, node.name)
            if ast.get_docstring(node) is not None:
                node.body[0] = ast.Expr(ast.Constant("My own work."))
            return node

        def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
            self.generic_visit(node)
            node.body.reverse()
            return node

    tree = Renamed().visit(tree)
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)][::-1]
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]  # bases stay first
    rest = [n for n in tree.body if n not in imports + functions + classes]
    tree.body = imports + functions + classes + rest
    lines = ast.unparse(tree).splitlines()
    commented = (
        f"{line}  # then step {n}" if "return" in line else line for n, line in enumerate(lines)
    )
    return "\n".join(commented) + "\n"


def unrelated_sources() -> dict[str, bytes]:
    """Real-looking submissions written apart: the other honest fixtures, and the project's
    own agent modules (real Pac-Man code, each about something else)."""
    sources = {name: (FIXTURES / name / "multiAgents.py").read_bytes() for name in OTHER_FIXTURES}
    for path in sorted((REPO / "agents").glob("*.py")):
        sources[f"agents_{path.stem}"] = path.read_bytes()
    return sources


def documents(sources: dict[str, bytes]) -> list[Document]:
    return [
        Document.from_bytes(name, {"multiAgents.py": sources[name]}) for name in sorted(sources)
    ]


def starter() -> list[Document]:
    return [Document.from_bytes("starter", {"multiAgents.py": STARTER.read_bytes()})]


def test_a_disguised_copy_is_paired_with_its_source_and_no_unrelated_pair_is():
    honest = (FIXTURES / SOURCE / "multiAgents.py").read_text()
    copy = disguised(honest)
    compile(copy, "copy", "exec")  # still Python
    assert "def value(" in honest and "def value(" not in copy  # the disguise happened
    unrelated = unrelated_sources()
    assert len(unrelated) >= 20  # 8 fixtures and the project's 13 agent modules today
    sources = {**unrelated, SOURCE: honest.encode(), "student_x": copy.encode()}
    flagged, best = compare(documents(sources), starter())
    assert [(pair.first, pair.second) for pair in flagged] == [(SOURCE, "student_x")]
    assert flagged[0].similarity >= DEFAULT_THRESHOLD
    assert best["student_x"].similarity == flagged[0].similarity
    others = [pair for name, pair in best.items() if name not in (SOURCE, "student_x")]
    assert all(pair.similarity < DEFAULT_THRESHOLD for pair in others)
    # Each fixture has a most similar other side, but the one with no run of its own shared.
    assert [name for name in OTHER_FIXTURES if name not in best] == ["hostile_borrow_reference"]


def test_the_starter_code_alone_flags_nothing():
    """20 submissions that each keep the whole starter and add their own code: nothing
    flagged; without the starter left out, every pair would be."""
    own = unrelated_sources()
    sources = {
        f"s{index:02d}": STARTER.read_bytes() + b"\n\n" + own[name]
        for index, name in enumerate(sorted(own)[:20])
    }
    flagged, _ = compare(documents(sources), starter())
    assert flagged == []
    # A class of 8 (the starter shared by fewer than the idiom limit of 10): without the
    # starter left out, it pairs them.
    eight = {name: STARTER.read_bytes() + b"\n\n" + own[name] for name in OTHER_FIXTURES}
    assert compare(documents(eight), starter())[0] == []
    paired = sorted((pair.first, pair.second) for pair in compare(documents(eight))[0])
    hostile = "hostile_borrow_reference"  # little code of its own beside the starter's
    assert paired == [
        ("chance_style", hostile), ("chance_style", "last_of_equal"),
        ("chance_style", "lookup_style"), ("chance_style", "value_action_pairs"),
        (hostile, "last_of_equal"), (hostile, "lookup_style"), (hostile, "memo_snake"),
        (hostile, "other_style"), (hostile, "random_ties"), (hostile, "value_action_pairs"),
        ("memo_snake", "random_ties"), ("random_ties", "value_action_pairs"),
    ]  # fmt: skip


def test_known_public_solutions_are_compared_with_submissions_not_each_other():
    honest = (FIXTURES / SOURCE / "multiAgents.py").read_bytes()
    public = [
        Document.from_bytes("public:a.py", {"m.py": honest}, public=True),
        Document.from_bytes("public:b.py", {"m.py": honest}, public=True),
    ]
    other = (FIXTURES / "other_style" / "multiAgents.py").read_bytes()
    class_ = documents({"student_x": disguised(honest.decode()).encode(), "student_y": other})
    flagged, best = compare(class_ + public, starter())
    assert [(pair.first, pair.second) for pair in flagged] == [
        ("student_x", "public:a.py"),
        ("student_x", "public:b.py"),
    ]
    assert set(best) == {"student_x", "student_y"}  # a public file has no row


def test_scores_are_the_same_in_every_process():
    """Fingerprints are BLAKE2b, not Python's salted hash(): a class scores the same in
    every run and on every machine."""
    script = (
        "from pathlib import Path; from pacman.grading.similarity import Document, compare\n"
        f"root = Path({str(FIXTURES)!r})\n"
        "docs = [Document.from_bytes(d.name, {'m': (d / 'multiAgents.py').read_bytes()})\n"
        "        for d in sorted(root.iterdir()) if d.is_dir()]\n"
        "print(sorted((b.first, b.second, b.similarity) for b in compare(docs, threshold=0.2)[0]))"
    )
    outputs = set()
    for seed in ("1", "2"):
        environment = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=environment
        )
        assert run.returncode == 0, run.stderr
        outputs.add(run.stdout)
    assert len(outputs) == 1 and "reversed_order" in outputs.pop()


def test_names_comments_docstrings_and_layout_do_not_count():
    one = "def f(a, b):\n    '''Adds.'''\n    return a + b  # sum\n"
    other = "def total(x,\n          y):\n    # the total\n    return (x + y)\n"
    assert [t for t, _ in normalised_tokens(one)] == [
        "def", "N", "(", "N", ",", "N", ")", ":", "NEWLINE", "INDENT", "return", "N", "+",
        "N", "NEWLINE", "DEDENT",
    ]  # fmt: skip
    assert [t for t, _ in normalised_tokens(other)] == [
        "def", "N", "(", "N", ",", "N", ")", ":", "NEWLINE", "INDENT", "return", "(", "N",
        "+", "N", ")", "NEWLINE", "DEDENT",
    ]  # fmt: skip


def test_text_that_is_not_python_is_read_on_from_where_tokenize_stops():
    bad_indent = "x = 1\n  y = 'two'\n z = [3 # gone\n"
    assert normalised_tokens(bad_indent) == [
        ("N", 1), ("=", 1), ("0", 1), ("NEWLINE", 1),
        ("INDENT", 2), ("N", 2), ("=", 2), ("S", 2), ("NEWLINE", 2),
        ("N", 3), ("=", 3), ("[", 3), ("0", 3),
    ]  # fmt: skip
    unclosed = "def f():\n    return (1,\n  ["
    assert [kind for kind, _ in normalised_tokens(unclosed)] == [
        "def", "N", "(", ")", ":", "NEWLINE", "INDENT", "return", "(", "0", ",", "[",
    ]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_are_read_without_a_traceback(data):
    document = Document.from_bytes("any", {"multiAgents.py": data, "more.py": data[::-1]})
    # tokenize's closing NEWLINE and DEDENTs may sit on the line after the last
    lines = max(len(text.split("\n")) for text in document.files.values()) + 1
    assert all(0 <= token.file <= 1 and 1 <= token.line <= lines for token in document.tokens)
    compare([document, document], threshold=1.0)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("()[]{}'\"\\#:\n\t x=1é\0\r"), max_size=300))
def test_python_like_text_is_tokenised_without_a_traceback(text):
    assert all(isinstance(kind, str) for kind, _ in normalised_tokens(text))


def make_class(root: Path) -> Path:
    honest = (FIXTURES / SOURCE / "multiAgents.py").read_bytes()
    # A copied region holding markup: the report shows it as text.
    marked = honest.replace(b"best = None\n", b"best = None  # </pre><script>x()\n", 1)
    files = {
        "alice": marked,
        "bob": disguised(marked.decode()).encode(),
        "carol": (FIXTURES / "other_style" / "multiAgents.py").read_bytes(),
        "dave": b"\xff\xfe not utf-8 \x00 at all (((\n" * 3,
        "erin": b"#" * (4 * 1024 * 1024 + 1),  # more than a student file may hold
    }
    for name, data in files.items():
        (root / name).mkdir(parents=True)
        (root / name / "multiAgents.py").write_bytes(data)
    return root


def test_a_batch_writes_the_report_and_the_column(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    submissions = make_class(tmp_path / "class")
    prefix = tmp_path / "out" / "grades"
    code = autograder(
        ["--submissions", str(submissions), "-q", "q1", "--summary", str(prefix), "-j", "2",
         "--similarity", "--similarity-starter", str(STARTER)]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    too_big = f"{submissions}/erin/multiAgents.py: 4194305 bytes, more than the 4194304 allowed"
    assert f"similarity: erin: not compared: {too_big}\n" in out
    assert f"Similar pairs: 1 at or above 0.5: {prefix}-similarity.html\n" in out
    table = csv.DictReader(Path(f"{prefix}.csv").read_text().splitlines())
    rows = {row["submission"]: row["most_similar"] for row in table}
    assert rows["erin"] == f"not compared: {too_big}"
    assert rows["dave"] == ""  # read, but too little code of its own to call anything
    assert rows["alice"].endswith(" bob") and rows["bob"].endswith(" alice")
    assert float(rows["alice"].split()[0]) >= 0.5 > float(rows["carol"].split()[0])
    page = Path(f"{prefix}-similarity.html").read_text()
    assert page.count('<h2 id="pair') == 1 and "alice and bob" in page
    assert "&lt;/pre&gt;&lt;script&gt;x()" in page and "<script>" not in page
    assert "<td>erin</td>" in page  # its own row


def test_similarity_flags_are_checked_first(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    for argv, message in [
        (["--similarity"], "--similarity compares a class: use it with --submissions DIR"),
        (
            ["--submissions", str(tmp_path), "--similarity", "--similarity-threshold", "0"],
            "--similarity-threshold 0: a similarity above 0, at most 1",
        ),
        (
            ["--similarity-against", str(tmp_path)],
            "--similarity-threshold, -starter and -against go with --similarity",
        ),
    ]:
        assert autograder(argv) == 2
        assert capsys.readouterr() == ("", f"autograder: {message}\n")


def test_on_dask_the_comparison_runs_once_and_gives_the_same_column(tmp_path, capsys, monkeypatch):
    """With --scheduler the batch's own process compares the class, once, before the tasks
    leave for the workers: the same report and column as a local batch."""
    pytest.importorskip("distributed")
    monkeypatch.chdir(REPO)
    submissions = make_class(tmp_path / "class")
    outputs = {}
    for run, extra in (("local", ["-j", "2"]), ("dask", ["--scheduler", "local", "-j", "2"])):
        prefix = tmp_path / run / "grades"
        argv = ["--submissions", str(submissions), "-q", "q1", "--summary", str(prefix)]
        assert (
            autograder([*argv, *extra, "--similarity", "--similarity-starter", str(STARTER)]) == 0
        )
        out = capsys.readouterr().out
        assert out.count("Similar pairs: 1 at or above 0.5") == 1
        table = csv.DictReader(Path(f"{prefix}.csv").read_text().splitlines())
        outputs[run] = [(row["submission"], row["most_similar"]) for row in table]
    assert outputs["dask"] == outputs["local"]


def test_public_solutions_are_every_plain_python_file_of_the_folder(tmp_path, capsys):
    honest = (FIXTURES / SOURCE / "multiAgents.py").read_bytes()
    (tmp_path / "public" / "deep").mkdir(parents=True)
    (tmp_path / "public" / "deep" / "a.py").write_bytes(honest)
    (tmp_path / "public" / "notes.txt").write_bytes(honest)
    (tmp_path / "public" / "link.py").symlink_to(tmp_path / "public" / "deep" / "a.py")
    found = public_documents(str(tmp_path / "public"))
    assert [(document.name, document.public) for document in found] == [("public:deep/a.py", True)]
    missing = tmp_path / "nowhere"
    code = autograder(
        ["--submissions", str(tmp_path), "--similarity", "--similarity-against", str(missing)]
    )
    assert (code, capsys.readouterr().err) == (
        2,
        f"autograder: --similarity-against {missing}: no such folder\n",
    )


def test_the_default_starter_is_the_suite_folders_copy(tmp_path):
    suite = tmp_path / "test_cases"
    (suite / "starter").mkdir(parents=True)
    assert default_starter(str(suite), ["multiAgents.py", "extra.py"]) == ()
    (suite / "starter" / "multiAgents.py").write_bytes(STARTER.read_bytes())
    found = default_starter(str(suite), ["multiAgents.py", "extra.py"])
    assert found == (str(suite / "starter" / "multiAgents.py"),)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["N", "(", ")", "0", "+", "NEWLINE"]), max_size=120))
def test_winnowing_keeps_each_windows_rightmost_smallest_hash(tokens):
    """The fingerprints are those of the definition (Schleimer et al., robust winnowing): in
    every window of WINDOW hashes, the rightmost smallest, each position once."""
    hashes = [similarity.run_hash(tokens[i : i + KGRAM]) for i in range(len(tokens) - KGRAM + 1)]
    expected: dict[int, list[int]] = {}
    last = -1
    for start in range(max(len(hashes) - WINDOW + 1, 1 if hashes else 0)):
        window = hashes[start : start + WINDOW]
        smallest = start + max(i for i, value in enumerate(window) if value == min(window))
        if smallest != last:
            expected.setdefault(hashes[smallest], []).append(smallest)
            last = smallest
    assert similarity.fingerprints(tokens) == expected
