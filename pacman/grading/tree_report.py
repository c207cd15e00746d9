"""The grader's HTML report of a failed tree test: the expected tree, the student's search over it.

The expected tree is the tree the project's own agent expands, built as the grader builds
it for the test (the test's ``alg`` with the configuration of
:func:`agents.search_config.config_from_test`: its depth, layers and probabilities), drawn
by :mod:`pacman.view.html_tree`. Over it:

- an expected state the student never generated is drawn faded (``missing``);
- a state the student generated that the correct search never does is added under
  its parent and drawn red (``extra``);
- the first successor call where the two sequences part is outlined (``diverge``),
  with both calls in the node's notes and the summary;
- the summary gives both moves and the text report's diagnosis.

Only names and actions from the student's reply are used, as data: the page
escapes them like any other text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pacman import untrusted
from pacman.errors import PacmanError

__all__ = ["DRAWN_CALLS", "failure_data", "report_name", "report_page", "write_reports"]

#: The student's successor calls a report draws at most (also at most
#: :data:`untrusted.REPORT_CHARS` characters of their names): each becomes a node, and a
#: padded reply of 130,000 forged calls would otherwise make a page of 24 MB per test.
DRAWN_CALLS = 1_000


def _tree_names(fields: Mapping[str, str]) -> set[str]:
    """Every state the test's tree names; the expected tree's states are among them."""
    from pacman.gametree import GameTree

    tree = GameTree.from_fields(fields)
    names = {tree.start.name, *tree.moves}
    for moves in tree.moves.values():
        names.update(moves.values())
    return names


def failure_data(
    fields: Mapping[str, str],
    alg: str,
    depth: int,
    action: str | None,
    expansions: Sequence[Sequence[Any]],
    gold_action: str,
    messages: Sequence[str],
) -> dict[str, Any]:
    """What a failed GraphGameTreeTest keeps for its HTML report (plain, picklable data).

    Bounded whatever the submission sent: the first calls to draw (:data:`DRAWN_CALLS`, and
    :data:`untrusted.REPORT_CHARS` characters), how many there were, which of the tree's own
    states the whole search generated (for the faded nodes) and the diagnosis.
    """
    drawn: list[list[Any]] = []
    chars = 0
    for entry in expansions:
        chars += sum(len(str(part)) for part in entry[1:4])
        if len(drawn) == DRAWN_CALLS or chars > untrusted.REPORT_CHARS:
            break
        drawn.append(list(entry))
    known = _tree_names(fields)
    diagnosis = [line for line in messages if line.startswith("Diagnosis")]
    return {
        "fields": {key: value for key, value in fields.items() if key != "diagram"},
        "alg": alg,
        "depth": depth,
        "action": action,
        "expansions": drawn,
        "calls": len(expansions),
        "reached": sorted({child for e in expansions if (child := str(e[3])) in known}),
        "gold_action": gold_action,
        "diagnosis": untrusted.cut(" ".join(diagnosis), untrusted.REPORT_CHARS),
    }


def _call(entry: Sequence[Any] | None) -> str:
    if entry is None:
        return "(nothing)"
    return f"{entry[0]} {entry[1]} {entry[2]}"


def _student_overlay(
    expected: Any, data: Mapping[str, Any], layers: Sequence[str]
) -> dict[str, Any]:
    """Marks and notes over ``expected`` (its nodes grow by the student's extra states, each
    of the kind the test's ``layers`` give its agent)."""
    from pacman.view.searchtree import MAX, TreeNode

    nodes = expected.nodes
    mine = [(str(e[2]), str(e[1]), str(e[3])) for e in data["expansions"]]
    generated = {str(nodes[0].state), *data["reached"]}
    names = {str(node.state): node.id for node in nodes}
    marks: dict[str, list[int]] = {"missing": [], "extra": [], "diverge": []}
    notes: dict[int, str] = {}
    for node in nodes[1:]:
        if str(node.state) not in generated:
            marks["missing"].append(node.id)
            notes[node.id] = "the correct search generates this state; yours never did"
    for number, (parent, action, child) in enumerate(mine, start=1):
        if child in names:
            continue
        owner = nodes[names.get(parent, 0)]
        agent = (owner.agent + 1) % expected.num_agents
        kind = MAX if agent == 0 else layers[agent - 1]
        node = TreeNode(len(nodes), owner.id, action, agent, kind, owner.ply + 1, child)
        nodes.append(node)
        owner.children.append(node.id)
        names[child] = node.id
        marks["extra"].append(node.id)
        notes[node.id] = f"your successor call {number} generated it; the correct search never does"
    return {"mine": mine, "names": names, "marks": marks, "notes": notes}


def report_page(data: Mapping[str, Any], title: str) -> str:
    """The HTML report for one failed tree test (``data`` from :func:`failure_data`)."""
    import agents
    from agents.search_config import config_from_test
    from pacman.gametree import GameTree
    from pacman.view.html_tree import tree_page
    from pacman.view.searchtree import observe

    tree_game = GameTree.from_fields(data["fields"])
    agent_class = getattr(agents, data["alg"], None)
    if agent_class is None:
        raise PacmanError(f"{title}: no reference agent {data['alg']!r} to draw the expected tree")
    # The search the test expects, configured as the grader configures it (its depth, layers
    # and probabilities), so the page draws the tree the text report speaks of.
    config = config_from_test(data["alg"], data["depth"], tree_game)
    expected = observe(agent_class(**config.agent_args()), tree_game.start, title=title)
    nodes = expected.nodes
    # The correct calls (parent, action, child) in order (every node but the root, which
    # alone has no parent); the student's drawn ones.
    gold = [
        (str(nodes[n.parent].state), n.action, str(n.state)) for n in nodes if n.parent is not None
    ]
    overlay = _student_overlay(expected, data, config.layers_for(tree_game.num_agents))
    mine, marks, notes = overlay["mine"], overlay["marks"], overlay["notes"]
    cut = data["calls"] - len(mine)
    summary = [
        f"Your move: {data['action']} (expected {data['gold_action']}).",
        f"Your search made {data['calls']} successor calls; the correct one makes {len(gold)}.",
    ]
    if cut:
        summary.append(
            f"Only your first {len(mine)} calls are drawn: {cut} more were cut (a report draws "
            f"at most {DRAWN_CALLS} calls and {untrusted.REPORT_CHARS} characters of them)."
        )
    # Past the drawn calls the student's are unknown: a divergence is looked for among them.
    span = len(mine) if cut else max(len(gold), len(mine))
    divergence = next((i for i in range(span) if gold[i : i + 1] != mine[i : i + 1]), None)
    if divergence is not None:
        want = gold[divergence] if divergence < len(gold) else None
        got = mine[divergence] if divergence < len(mine) else None
        summary.append(
            f"First divergence at successor call {divergence + 1}: expected {_call(want)}, "
            f"yours {_call(got)}."
        )
        where = []
        if want is not None:
            where.append(divergence + 1)  # node i is the child of correct call i
        if got is not None and got[2] in overlay["names"]:
            where.append(overlay["names"][got[2]])
        for node_id in where:
            marks["diverge"].append(node_id)
            notes[node_id] = (
                f"first divergence, successor call {divergence + 1}: expected {_call(want)}, "
                f"yours {_call(got)}"
            )
    if data["diagnosis"]:
        summary.append(data["diagnosis"])
    compare = {
        "summary": " ".join(summary),
        "marks": {key: ids for key, ids in marks.items() if ids},
        "notes": {str(key): value for key, value in notes.items()},
    }
    expected.title = title
    return tree_page(expected, str, compare=compare)


def report_name(question: str, path: str) -> str:
    """``q3-5-sequence.html``: a page's file name from its question and test file, visible
    (no leading dot, whatever the test directory: ``../suite`` made ``..-suite-...``) and
    safe (letters, digits, ``_``, ``.`` and ``-`` only)."""
    import os
    import re

    test = os.path.basename(path).removesuffix(".test")
    stem = re.sub(r"[^\w.]+", "-", f"{question}-{test}").strip(".-")
    return f"{stem or 'test'}.html"


def write_reports(folder: str, run: Any, graded: str = "") -> list[str]:
    """One page per failed tree test of ``run`` in ``folder``, each headed by ``graded`` (the
    report's line naming the code and the suite); the lines that name the pages."""
    import os

    from pacman.outputs import write_atomically

    lines = []
    used: set[str] = set()
    for question in run.questions:
        for result in question.tests:
            data = getattr(result, "tree_report", None)
            if data is None:
                continue
            name = stem = report_name(question.name, result.path).removesuffix(".html")
            while name in used:  # "a b.test" and "a-b.test" would share a name
                name = f"{stem}-{len(used)}"
            used.add(name)
            target = os.path.join(folder, f"{name}.html")
            try:
                os.makedirs(folder, exist_ok=True)
                title = f"{graded}: FAIL: {result.path}" if graded else f"FAIL: {result.path}"
                write_atomically(target, report_page(data, title))
            except OSError as error:
                raise PacmanError(
                    f"--html-report {folder}: cannot write ({error.strerror})"
                ) from None
            lines.append(f"*** HTML report for {result.path}: {target}")
    return lines
