"""The tree a search agent walked, rebuilt from what it did: for drawing and for teaching.

:func:`observe` hands an agent a state wrapped by :class:`pacman.recording.ExpansionLog`
and watches its evaluation function (``evaluation_function`` or CS188's
``evaluationFunction``), then asks it for a move. The search runs once, as it
always does; the log gives every successor call in order with the node that
made it, and the watched function gives the value of every leaf. From these
:func:`from_log` builds a :class:`SearchTree`:

- node 0 is the root; node ``i`` is the child made by the ``i``-th successor
  call, so nodes are numbered in expansion order;
- a node is MAX (Pac-Man to move), MIN (a ghost) or CHANCE (a ghost, for an
  expectimax search), and a *leaf* when the search evaluated it;
- an inner node's value is backed up from its expanded children (max, min,
  or the probability-weighted mean) by the search's own rule
  (:func:`agents.backup.backed_up`);
- legal actions a node never expanded are its ``pruned`` actions (alpha-beta's
  cut branches); for an alpha-beta search each node also gets the alpha and
  beta it was searched with, replayed from its siblings' values by the search's
  rule (:func:`agents.backup.narrowed`);
- the chosen action, and the principal variation: from the root along the
  chosen action, then at each MAX or MIN node its first child whose value is
  the node's (a chance node ends it).

Search agents that build their own tree (Monte Carlo tree search: visit counts
and mean values; expectiminimax: chance probabilities) can hand over a
:class:`SearchTree` instead: when the agent has a ``search_tree()`` method that
returns one after its move, :func:`observe` uses it. The project's MCTS agent hands over
its statistics (``last_search()``), which :func:`from_mcts` draws. Nodes carry
``visits``, ``mean`` and ``probability``.

The game never imports this module; only the ``pacman tree`` command, the
grader's HTML report and the tests do.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agents.backup import backed_up, checked_weights, narrowed
from agents.models import GhostModel
from agents.search_config import CHANCE, MAX, MIN
from agents.search_state import SearchState
from pacman.errors import AgentCrashed, PacmanError
from pacman.recording import ExpansionLog
from pacman.view.tree_model import TreeModel, TreeNode

__all__ = [
    "ALGORITHMS",
    "CHANCE",
    "MAX",
    "MIN",
    "SearchTree",
    "TreeNode",
    "algorithm_of",
    "from_log",
    "from_mcts",
    "observe",
    "principal_variation",
]

#: What ``algorithm`` may be, and whether ghosts are chance nodes under it.
ALGORITHMS: dict[str, bool] = {
    "minimax": False,
    "alphabeta": False,
    "expectimax": True,
    "expectiminimax": True,
    "mcts": False,
    "other": False,
}

_EVALUATION_NAMES = ("evaluation_function", "evaluationFunction")


class SearchTree(TreeModel):
    """A tree observed from a search (what :func:`observe` returns): a notebook shows its page."""

    def _repr_html_(self) -> str:
        """In a notebook: the tree's page (as ``pacman tree --html`` writes it), embedded."""
        from pacman.view.html_tree import tree_page
        from pacman.view.notebook import embed

        return embed(tree_page(self), 640)


def algorithm_of(agent: object) -> str:
    """The algorithm an agent searches with: its ``kind`` if it has one, else from its class name."""
    kind = getattr(agent, "kind", None)
    if isinstance(kind, str) and kind in ALGORITHMS:
        return kind
    name = type(agent).__name__.lower()
    for word, algorithm in (
        ("alphabeta", "alphabeta"),
        ("expectiminimax", "expectiminimax"),
        ("expectimax", "expectimax"),
        ("mcts", "mcts"),
        ("montecarlo", "mcts"),
        ("minimax", "minimax"),
    ):
        if word in name:
            return algorithm
    return "other"


def observe(
    agent: object,
    state: SearchState,
    *,
    algorithm: str | None = None,
    title: str = "",
    report: tuple[int, Callable[[int], None]] | None = None,
) -> SearchTree:
    """Ask ``agent`` for a move in ``state`` and return the tree its search walked.

    An exception from the agent becomes an :class:`AgentCrashed` naming the agent and where
    in its code it failed. ``report`` is ``(step, report)``: ``report(count)`` each ``step``
    successor calls of the search (:meth:`ExpansionLog.report_every`).
    """
    from pacman.agent import action_method
    from pacman.game import describe

    log = ExpansionLog()
    if report is not None:
        log.report_every(*report)
    watched: list[tuple[str, Callable[..., Any], bool]] = []
    for name in _EVALUATION_NAMES:
        function = getattr(agent, name, None)
        if callable(function):
            had_own = name in getattr(agent, "__dict__", {})
            try:
                setattr(agent, name, log.watch(function))
            except (AttributeError, TypeError):
                continue  # a read-only attribute: leaves are then shown without values
            watched.append((name, function, had_own))
    try:
        action = action_method(agent)(log.wrap(state))
    except PacmanError:
        raise
    except Exception as error:
        raise AgentCrashed(f"{type(agent).__name__} crashed: {describe(error)}") from None
    finally:
        for name, function, had_own in watched:
            if had_own:
                setattr(agent, name, function)
            else:
                delattr(agent, name)
    own = getattr(agent, "search_tree", None)  # an agent that draws its own tree
    tree = own() if callable(own) else None
    if tree is None and callable(getattr(agent, "last_search", None)):
        tree = from_mcts(agent)  # the project's MCTS: its statistics, drawn here
    if isinstance(tree, SearchTree):
        tree.title = tree.title or title
        return tree
    # The layers the search used (its public result says them) and the ghost model its
    # configuration weighs chance children by (agents.search), where the agent has them.
    result = getattr(agent, "last_result", None)
    layers = getattr(result, "layers", None)
    ghost_model = getattr(getattr(agent, "config", None), "ghost_model", None)
    tree = from_log(
        log,
        state,
        action,
        algorithm=algorithm or algorithm_of(agent),
        agent_name=type(agent).__name__,
        title=title,
        depth=getattr(agent, "depth", None),
        layers=layers if isinstance(layers, tuple) and layers else None,
        ghost_model=ghost_model if callable(ghost_model) else None,
    )
    tree.note = _algorithm_note(agent, algorithm)
    # An agent that scores moves without an evaluation function of states (a reflex agent)
    # still says what each root action was worth in its public result.
    values = getattr(result, "values", None)
    if isinstance(values, dict):
        for child in reversed(tree.root.children):
            node = tree.nodes[child]
            if node.value is None and node.action in values:
                node.value = values[node.action]
                node.leaf = not node.children
        if tree.root.value is None and values:
            tree.root.value = max(values.values())
    return tree


def _algorithm_note(agent: object, algorithm: str | None) -> str:
    """What the page says when the tree is read with an algorithm that is not the agent's."""
    own = algorithm_of(agent)
    if algorithm is None or algorithm == own or own == "other":
        return ""
    return (
        f"drawn as {algorithm}, but {type(agent).__name__} searches with {own}: the values "
        f"are backed up as {algorithm} would back them up, not as the agent computed them"
    )


def from_log(
    log: ExpansionLog,
    root_state: SearchState,
    action: str | None,
    *,
    algorithm: str = "minimax",
    agent_name: str = "",
    title: str = "",
    depth: int | None = None,
    layers: Sequence[str] | None = None,
    ghost_model: GhostModel | None = None,
) -> SearchTree:
    """The tree of the search that ``log`` watched from ``root_state`` (its first root).

    ``layers`` (one ``"min"`` or ``"chance"`` per ghost: the layers the search used, as its
    result says them) and ``ghost_model`` (the chance layers' probabilities; uniform without
    one) are the search's; without layers, ghosts are chance nodes under an algorithm of
    :data:`ALGORITHMS` that says so, else MIN.
    """
    if algorithm not in ALGORITHMS:
        raise PacmanError(
            f"search tree: unknown algorithm {algorithm!r}; expected one of {', '.join(ALGORITHMS)}"
        )
    chance = ALGORITHMS[algorithm]
    num_agents = root_state.get_num_agents()

    def kind_of(agent: int) -> str:
        if agent == 0:
            return MAX
        if layers is not None and agent <= len(layers):
            return layers[agent - 1] if layers[agent - 1] in (MAX, CHANCE) else MIN
        return CHANCE if chance else MIN

    nodes = [TreeNode(0, None, None, 0, MAX, 0, root_state)]
    # The log numbers the first root -1 and the child of entry i as i; the tree, 0 and i + 1.
    for index, (entry, parent) in enumerate(zip(log.entries, log.parents, strict=True)):
        if parent < -1:
            continue  # a state the agent wrapped again itself: not part of this search
        owner = nodes[parent + 1]
        owner.agent, owner.kind = entry.agent_index, kind_of(entry.agent_index)
        following = (entry.agent_index + 1) % num_agents
        nodes.append(
            TreeNode(
                index + 1,
                owner.id,
                entry.action,
                following,
                kind_of(following),
                owner.ply + 1,
                entry.child,
            )
        )
        owner.children.append(index + 1)
    if len(nodes) != len(log.entries) + 1:
        nodes = _renumbered(nodes)

    for node_id, value in log.evaluations:
        if node_id is not None and node_id + 1 < len(nodes):
            node = nodes[node_id + 1]
            node.value, node.leaf = value, True
    # A reflex agent's scores of moves: each the value of the child its move made.
    for node_id, move, value in log.move_evaluations:
        if node_id is not None and node_id + 1 < len(nodes):
            made = [c for c in nodes[node_id + 1].children if nodes[c].action == move]
            if made and nodes[made[-1]].value is None:
                nodes[made[-1]].value = value
                nodes[made[-1]].leaf = not nodes[made[-1]].children

    for node in nodes:
        _mark(node, nodes, ghost_model)

    _back_up(nodes)
    if algorithm == "alphabeta":
        _alpha_beta(nodes)
    tree = SearchTree(nodes, algorithm, agent_name, action, num_agents, title=title, depth=depth)
    tree.pv = principal_variation(tree)
    return tree


def _mark(node: TreeNode, nodes: list[TreeNode], ghost_model: GhostModel | None) -> None:
    """A node's outcome (win, lose), its legal actions never expanded and, for a chance node,
    its children's probabilities (the ghost model's; uniform without one)."""
    state = node.state
    if state is None:
        return
    if _asks(state, "is_win"):
        node.terminal = "win"
    elif _asks(state, "is_lose"):
        node.terminal = "lose"
    if not node.children:
        return
    expanded = {nodes[child].action for child in node.children}
    try:
        legal = list(state.get_legal_actions(node.agent))
    except Exception:
        legal = []
    node.pruned = [action for action in legal if action not in expanded]
    if node.kind == CHANCE:
        weights = _chance_weights(ghost_model, state, node.agent, legal)
        # Without a model the ghost moves uniformly among its legal moves.
        share = 1.0 / max(1, len(legal) or len(node.children))
        for child in node.children:
            move = nodes[child].action or ""  # (a child always has the action that made it)
            nodes[child].probability = share if weights is None else float(weights.get(move, 0.0))


def _chance_weights(
    model: GhostModel | None, state: object, agent: int, legal: Sequence[str]
) -> Mapping[str, float] | None:
    """The model's probabilities of the ghost's moves, checked as the search checks them,
    or None (uniform) where it has none."""
    if model is None:
        return None
    try:
        return checked_weights(model(state, agent), legal, state, agent)
    except Exception:
        return None


def _asks(state: object, method: str) -> bool:
    try:
        return bool(getattr(state, method)())
    except Exception:
        return False


def _renumbered(nodes: list[TreeNode]) -> list[TreeNode]:
    """Nodes numbered 0, 1, 2... when entries from other roots were left out."""
    new_ids = {node.id: number for number, node in enumerate(nodes)}
    for node in nodes:
        node.id = new_ids[node.id]
        node.parent = None if node.parent is None else new_ids[node.parent]
        node.children = [new_ids[child] for child in node.children]
    return nodes


def _back_up(nodes: list[TreeNode]) -> None:
    """Each inner node's value from its children's that have one, as the search backed it up."""
    # A child is always made after its parent, so going down the ids visits children first.
    for node in reversed(nodes):
        if not node.children or node.leaf:
            continue
        values: list[float] = []
        weights: list[float] = []
        for child in node.children:
            value, probability = nodes[child].value, nodes[child].probability
            if value is not None:
                values.append(value)
                weights.append(1.0 if probability is None else probability)
        if not values:
            continue
        if node.kind != CHANCE or len(set(weights)) == 1:
            # MAX, MIN, or a uniform chance node: summed then divided, as expectimax does.
            node.value = backed_up(node.kind, values)
            continue
        total = backed_up(CHANCE, values, weights)
        weight = sum(weights)
        # Weights that do not add up to 1 (a search that left out moves it weighs): their mean.
        node.value = total if abs(weight - 1.0) < 1e-9 else total / weight


def _alpha_beta(nodes: list[TreeNode]) -> None:
    """Each node's (alpha, beta) on entry, as the search passed them down (parents first)."""
    nodes[0].alpha, nodes[0].beta = -math.inf, math.inf
    for node in nodes:
        if not node.children or node.alpha is None or node.beta is None:
            continue
        alpha, beta = node.alpha, node.beta
        for child_id in node.children:
            child = nodes[child_id]
            child.alpha, child.beta = alpha, beta
            if child.value is not None:
                alpha, beta = narrowed(node.kind, alpha, beta, child.value)


def principal_variation(tree: SearchTree) -> list[int]:
    """Node ids from the root along the chosen action, then each node's best child."""
    nodes = tree.nodes
    root = nodes[0]
    chosen = [child for child in root.children if nodes[child].action == tree.action]
    if not chosen:
        return [0]
    path = [0, chosen[-1]]  # a deepening search's last iteration is the one that chose
    node = nodes[chosen[-1]]
    while node.children and node.kind != CHANCE and node.value is not None:
        best = next((c for c in node.children if nodes[c].value == node.value), None)
        if best is None:
            break
        path.append(best)
        node = nodes[best]
    return path


def _replies(before: Any, after: Any) -> str:
    """The ghosts' replies that led from ``before`` to ``after``, as their actions: ``West``
    for one ghost, initials in ghost order for more (``W N``; ``-`` a ghost that did not move,
    the game being over)."""
    count = before.get_num_agents()
    moves = []
    for ghost in range(1, count):
        was, now = before.get_ghost_state(ghost), after.get_ghost_state(ghost)
        moved = (was.get_position(), was.get_direction()) != (
            now.get_position(),
            now.get_direction(),
        )
        moves.append(now.get_direction() if moved else "-")
    if all(move == "-" for move in moves):
        return "no reply"
    return moves[0] if len(moves) == 1 else " ".join(move[:1] for move in moves)


def from_mcts(agent: Any) -> SearchTree | None:
    """The tree of an MCTS agent's last search (its ``last_search()``): each Pac-Man edge
    a chance node (the ghosts' replies, as drawn) with its tries and mean return, each
    reply met a MAX node with the simulations that reached it."""
    searched = agent.last_search()
    if searched is None:
        return None
    root, chosen_action = searched
    nodes = [TreeNode(0, None, None, 0, MAX, 0, root.state, visits=root.visits)]
    waiting = deque([(root, 0)])  # breadth first: a node's id is below its children's
    while waiting:
        node, node_id = waiting.popleft()
        for index, action in enumerate(node.actions):
            tries = node.tries[index]
            if not tries:
                continue
            edge = TreeNode(
                len(nodes),
                node_id,
                action,
                1,
                CHANCE,
                nodes[node_id].ply + 1,
                node.state.generate_successor(0, action),
                visits=tries,
                mean=node.totals[index] / tries,
            )
            edge.value = edge.mean
            nodes.append(edge)
            nodes[node_id].children.append(edge.id)
            for child in node.outcomes[index].values():
                reached = child.arrivals
                below = TreeNode(
                    len(nodes),
                    edge.id,
                    _replies(edge.state, child.state),
                    0,
                    MAX,
                    edge.ply + 1,
                    child.state,
                    probability=reached / tries,
                    visits=reached,
                    leaf=not child.visits and not child.terminal,
                )
                if child.terminal:
                    below.terminal = "win" if child.state.is_win() else "lose"
                if child.visits:
                    below.mean = sum(child.totals) / sum(child.tries)
                    below.value = max(child.totals[i] / n for i, n in enumerate(child.tries) if n)
                nodes.append(below)
                edge.children.append(below.id)
                waiting.append((child, below.id))
    chosen = next(nodes[c] for c in nodes[0].children if nodes[c].action == chosen_action)
    nodes[0].value = chosen.mean
    tree = SearchTree(
        nodes, "mcts", type(agent).__name__, chosen_action, root.state.get_num_agents()
    )
    tree.pv = principal_variation(tree)
    return tree
