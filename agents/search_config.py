"""The search configuration: what :func:`agents.search.search` does, in one frozen object.

A :class:`SearchConfig` names the algorithm, the depth, the ghost model, the layers and the
ordering, plus the *variant options*: the classic mistakes the grader's diagnosis runs (pruning
on equality, depth counted per agent move, the partial-ply search, a root without alpha's
bound, a chance node divided by the wrong number) and the anytime agent's
own rules (prune on equality, prefer late losses). It is built in one of two ways, and only
these:

- :func:`config_from_args`, from an agent's arguments (``-a depth=3,layers=min:chance`` or
  Python values), every mistake an :class:`~pacman.errors.AgentError` naming the argument;
  the search agents build theirs with it;
- :func:`config_from_test`, from a test's ``alg`` and ``depth`` and, for a tree test, its tree
  (its ``layers`` field and its probabilities as the ghost model); the grader's test kinds,
  its diagnosis and reference solutions, ``pacman tree --test`` and the HTML report build
  theirs with it.

:meth:`SearchConfig.agent_args` goes the other way: the keyword arguments that build an agent
searching with the configuration, CS188's ``alg(depth=...)`` plus ``layers`` and
``ghostModel`` where the configuration has them.

CS188's conventions: agent 0 maximises; each ghost is a MIN or a chance layer in index order;
one unit of depth is a move by every agent.

>>> config = config_from_args("expectiminimax", depth="2", layers="min:chance")
>>> config.layers_for(3), config.plies(3)
(('min', 'chance'), 6)
>>> config_from_args("expectiminimax").layers_for(4)
('min', 'chance', 'min')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents.arguments import whole_number
from agents.models import GhostModel, resolve_ghost_model, uniform
from pacman.errors import AgentError

__all__ = [
    "ALGORITHMS",
    "ALPHABETA",
    "CHANCE",
    "EVALUATION",
    "EXPECTIMAX",
    "EXPECTIMINIMAX",
    "LEGAL",
    "MAX",
    "MIN",
    "MINIMAX",
    "SearchConfig",
    "config_from_args",
    "config_from_test",
    "parse_depth",
    "parse_layers",
]

MINIMAX = "minimax"
ALPHABETA = "alphabeta"
EXPECTIMAX = "expectimax"
EXPECTIMINIMAX = "expectiminimax"
ALGORITHMS = (MINIMAX, ALPHABETA, EXPECTIMAX, EXPECTIMINIMAX)

#: What a ghost's layer does: minimise, average over the ghost model, or (only as the
#: diagnosis's "ghosts treated as MAX" mistake) maximise.
MIN, CHANCE, MAX = "min", "chance", "max"

#: What a plain chance node may divide its children's sum by (all but ``moves`` are mistakes).
DIVISORS = ("moves", "one", "ghost", "agents")

#: Children in legal-action order (CS188's), or best first by the evaluation function.
LEGAL, EVALUATION = "legal", "evaluation"

#: The algorithm of each agent class a test's ``alg`` may name; another name searches as
#: minimax does (CS188's tests name only these).
AGENT_ALGORITHMS = {
    "MinimaxAgent": MINIMAX,
    "AlphaBetaAgent": ALPHABETA,
    "ExpectimaxAgent": EXPECTIMAX,
    "ExpectiminimaxAgent": EXPECTIMINIMAX,
}


@dataclass(frozen=True)
class SearchConfig:
    """One search's configuration; invalid combinations are refused when it is made.

    ``layers`` (one word per ghost, in index order) overrides the algorithm's own: every
    ghost MIN for minimax and alpha-beta, chance for expectimax, and for expectiminimax MIN
    and chance alternating from ghost 1. ``ghost_model`` weighs chance children (``None``:
    uniform, CS188's plain average). Alpha-beta prunes only MIN and MAX layers.
    """

    algorithm: str = MINIMAX
    depth: int = 2
    ghost_model: GhostModel | None = None
    layers: tuple[str, ...] | None = None
    ordering: str = LEGAL
    #: Variant: prune when a value equals the bound, not only when it passes it.
    prune_on_equal: bool = False
    #: Variant: one unit of depth per agent move instead of per round of every agent.
    depth_per_agent: bool = False
    #: Variant: the last round stops after Pac-Man's move, before the ghosts reply.
    partial_ply: bool = False
    #: Variant: the root searches every child with the full window (alpha-beta whose root
    #: does not raise alpha between its children).
    root_unbounded: bool = False
    #: Variant: what a plain chance node divides the sum of its children's values by:
    #: ``moves`` (right: their number), ``one`` (the sum), ``ghost`` (the ghost's index) or
    #: ``agents`` (the number of agents).
    chance_divisor: str = "moves"
    #: Points added to a won state for each ply it comes before the horizon.
    win_haste: float = 0.0
    #: Points taken off a lost state for each ply it comes before the horizon.
    loss_delay: float = 0.0

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise AgentError(
                f"search: unknown kind {self.algorithm!r}; expected one of {', '.join(ALGORITHMS)}"
            )
        if isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1:
            raise AgentError(f"search: depth must be at least 1, got {self.depth!r}")
        if self.layers is not None:
            layers = tuple(self.layers)
            if any(word not in (MIN, CHANCE, MAX) for word in layers):
                raise AgentError(f"search: layers {layers!r}: one min, chance or max per ghost")
            object.__setattr__(self, "layers", layers)
        if self.ordering not in (LEGAL, EVALUATION):
            raise AgentError(f"search: ordering {self.ordering!r}: expected legal or evaluation")
        for variant in ("prune_on_equal", "root_unbounded"):
            if getattr(self, variant) and self.algorithm != ALPHABETA:
                raise AgentError(f"search: {variant} is a variant of alphabeta")
        if self.prunes and CHANCE in (self.layers or ()):
            raise AgentError("search: alpha-beta prunes MIN and MAX layers only, not chance")
        if self.chance_divisor not in DIVISORS:
            raise AgentError(
                f"search: chance_divisor {self.chance_divisor!r}: expected one of "
                f"{', '.join(DIVISORS)}"
            )
        if self.depth_per_agent and self.partial_ply:
            raise AgentError("search: depth_per_agent and partial_ply are two ways to count depth")

    @property
    def weights(self) -> GhostModel | None:
        """The ghost model that weighs chance children, ``None`` where they are averaged
        plainly (no model, or :func:`agents.models.uniform`: CS188's average to the bit)."""
        model = self.ghost_model
        return None if model is None or model is uniform else model

    @property
    def prunes(self) -> bool:
        """Whether the search prunes (alpha-beta)."""
        return self.algorithm == ALPHABETA

    def layers_for(self, num_agents: int) -> tuple[str, ...]:
        """Each ghost's layer in a game of ``num_agents`` agents (an AgentError naming
        ``layers`` when the configuration gives a number of entries the game does not have)."""
        ghosts = num_agents - 1
        if self.layers is not None:
            if len(self.layers) != ghosts:
                raise AgentError(
                    f"layers={','.join(self.layers)}: {len(self.layers)} entries for {ghosts} "
                    "ghost(s); give one entry per ghost"
                )
            return self.layers
        if self.algorithm == EXPECTIMINIMAX:
            return ((MIN, CHANCE) * ghosts)[:ghosts]
        return (CHANCE if self.algorithm == EXPECTIMAX else MIN,) * ghosts

    def divisors(self, num_agents: int) -> tuple[int | None, ...] | None:
        """What each agent's plain chance node divides by (``None``: its number of moves), or
        ``None`` where every one divides by its number of moves, as it should."""
        if self.chance_divisor == "moves":
            return None
        fixed = {"one": 1, "agents": num_agents}.get(self.chance_divisor)
        return (None, *(fixed or ghost for ghost in range(1, num_agents)))

    def plies(self, num_agents: int) -> int:
        """The moves along a line before the depth limit (the variants count them otherwise)."""
        if self.depth_per_agent:
            return self.depth
        if self.partial_ply:
            return (self.depth - 1) * num_agents + 1
        return self.depth * num_agents

    def agent_args(self) -> dict[str, Any]:
        """The keyword arguments that build an agent searching like this: ``depth``, and
        ``layers`` (as ``"min,chance"``) and ``ghostModel`` where the configuration has them
        (a uniform model is every agent's default, and CS188's agents take no such argument)."""
        args: dict[str, Any] = {"depth": self.depth}
        if self.layers is not None and self.algorithm == EXPECTIMINIMAX:
            args["layers"] = ",".join(self.layers)
        if self.weights is not None:
            args["ghostModel"] = self.weights
        return args


def parse_depth(depth: int | str) -> int:
    """``depth`` as given on the command line (``-a depth=3``), checked."""
    return whole_number("depth", depth, minimum=1)


def parse_layers(layers: str | Sequence[str]) -> tuple[str, ...]:
    """``"min,chance"`` (or ``"min:chance"``, or a list) -> ``("min", "chance")``, checked.

    ``-a`` splits its text on commas, so the command line writes ``layers=min:chance``.
    """
    words = (
        layers.replace(":", ",").replace("+", ",").split(",") if isinstance(layers, str) else layers
    )
    found = tuple(str(word).strip().lower() for word in words if str(word).strip())
    for word in found:
        if word not in (MIN, CHANCE):
            raise AgentError(
                f"layers={','.join(found)}: {word!r} is neither min nor chance "
                "(one entry per ghost; on the command line write layers=min:chance)"
            )
    if not found:
        raise AgentError("layers is empty: give one entry per ghost, min or chance")
    return found


def config_from_args(
    algorithm: str,
    depth: int | str = 2,
    layers: str | Sequence[str] | None = None,
    ghostModel: GhostModel | str | None = None,
    **options: Any,
) -> SearchConfig:
    """The configuration of an agent searching with ``algorithm``, from its arguments.

    ``depth``, ``layers`` and ``ghostModel`` may be strings, as ``-a`` gives them;
    ``ghostModel`` is a name (``uniform``, ``directional``, ``module.name``) or a callable.
    ``options`` are :class:`SearchConfig`'s other fields (``ordering``, the variants).
    """
    return SearchConfig(
        algorithm,
        parse_depth(depth),
        None if ghostModel is None else resolve_ghost_model(ghostModel),
        None if layers is None else parse_layers(layers),
        **options,
    )


def config_from_test(alg: str, depth: int | str, tree: Any = None) -> SearchConfig:
    """The search a test expects of its ``alg`` (an agent class name) at its ``depth``.

    For a tree test (``tree`` a :class:`pacman.gametree.GameTree`), the tree's ``layers``
    field gives the layers and, for an agent with chance layers, its probabilities are the
    ghost model (where it gives any: without them CS188's uniform average is expected).
    """
    algorithm = AGENT_ALGORITHMS.get(alg.strip(), MINIMAX)
    layers = getattr(tree, "layers", None) if algorithm == EXPECTIMINIMAX else None
    model = None
    if algorithm in (EXPECTIMAX, EXPECTIMINIMAX):
        # As the agents' own default: uniform, unless the tree gives probabilities.
        model = tree.ghost_model if getattr(tree, "probabilities", None) else uniform
    return SearchConfig(algorithm, parse_depth(depth), model, layers)
