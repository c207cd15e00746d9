"""Monte Carlo tree search: values from averaged playouts instead of a full-width search.

``MCTSAgent`` runs UCT from the state it is asked about. A node is a state
with Pac-Man to move; an edge is one of his actions, and following it means
playing the action and then drawing every ghost's reply from the ghost model
(``ghostModel=uniform`` is how RandomGhosts move, ``directional`` how
DirectionalGhosts do), so the tree branches on the replies it has met. Each
simulation:

1. selects, from the root, the edge maximising UCB1, ``Q + c * sqrt(ln N / n)``,
   with ``Q`` the edge's mean return scaled to [0, 1] by the lowest and highest
   return seen in this search (returns are game points, whose scale varies);
   an untried edge is taken first, in legal-action order;
2. adds the first state it reaches that the tree does not hold;
3. asks its *evaluator* what the new state is worth, as OpenSpiel's ``MCTSBot``
   does. A :class:`RolloutEvaluator` plays out from it: ``depth`` Pac-Man moves
   by its policy (``random``: a legal move other than Stop, uniformly;
   ``greedy``: the move with the best successor score, ties broken at random),
   ghosts drawn from the model, and scores the state reached with its
   evaluation function (the notes' trade-off: a short playout leans on the
   evaluation, a long one on simulation). The arguments ``rollout``, ``depth``
   and ``evalFn`` build one; from Python, ``evaluator=`` takes any object with
   the same ``evaluate(state, simulation)``;
4. adds that return to every edge on its path.

The move played is the most tried root edge (ties: the higher mean, then the
first). The budget is ``simulations=N`` or ``time=S`` seconds per move. Every
draw comes from the agent's ``rng``, which the runner replaces with the game's
seeded generator, so with a simulation budget a game is the same for the same
seed (with a time budget the number of simulations, hence the game, varies).
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from agents.arguments import real_number, whole_number
from agents.evaluation import EvalSpec, resolve_evaluation
from agents.models import GhostModel, resolve_ghost_model
from agents.stats import SearchStats
from pacman.agent import Agent
from pacman.directions import STOP
from pacman.errors import AgentError
from pacman.ghosts import sample

__all__ = ["ROLLOUTS", "MCTSAgent", "RolloutEvaluator", "Simulation"]

ROLLOUTS = ("random", "greedy")


class Simulation:
    """The game as one move's search models it: Pac-Man's moves answered by every ghost with
    a move drawn from the ghost model, from the agent's ``rng``; successor calls counted."""

    def __init__(self, ghost_model: GhostModel, rng: random.Random) -> None:
        self.ghost_model = ghost_model
        self.rng = rng
        self.nodes = 0  # successor calls

    def play(self, state: Any, action: str) -> Any:
        """Pac-Man plays ``action``; then each ghost replies, drawn from the ghost model."""
        state = state.generate_successor(0, action)
        self.nodes += 1
        for ghost in range(1, state.get_num_agents()):
            if state.is_win() or state.is_lose():
                break
            distribution = self.ghost_model(state, ghost)
            if not distribution:
                continue
            state = state.generate_successor(ghost, sample(distribution, self.rng))
            self.nodes += 1
        return state

    def successor(self, state: Any, action: str) -> Any:
        """Pac-Man's ``action`` alone, with no ghost's reply (a policy's look-ahead)."""
        self.nodes += 1
        return state.generate_successor(0, action)


class RolloutEvaluator:
    """A new state's value: a playout of ``depth`` Pac-Man moves by ``policy``, then
    ``evaluation`` of the state reached (OpenSpiel's ``RandomRolloutEvaluator``, with a
    greedy policy besides the random one).

    ``policy`` is ``random`` (a legal move other than Stop, uniformly) or ``greedy`` (the
    move with the best successor score, ties broken at random); ``depth=0`` is the
    evaluation alone. Arguments are checked here, each error naming the agent argument.
    """

    def __init__(
        self, policy: str = "greedy", depth: int | str = 5, evaluation: EvalSpec = "better"
    ) -> None:
        if policy not in ROLLOUTS:
            raise AgentError(
                f"rollout={policy}: unknown playout policy; known: {', '.join(ROLLOUTS)}"
            )
        self.policy = policy
        self.depth = whole_number("depth", depth, minimum=0)
        self.evaluation = resolve_evaluation(evaluation)

    def evaluate(self, state: Any, simulation: Simulation) -> float:
        """Play out from ``state`` in ``simulation`` and score where the playout ends."""
        rng = simulation.rng
        for _ in range(self.depth):
            if state.is_win() or state.is_lose():
                break
            actions = state.get_legal_actions(0)
            if not actions:
                break
            moves = [a for a in actions if a != STOP] or actions
            if self.policy == "greedy":
                scores = [simulation.successor(state, a).get_score() for a in moves]
                top = max(scores)
                moves = [a for a, s in zip(moves, scores, strict=True) if s == top]
            state = simulation.play(state, moves[0] if len(moves) == 1 else rng.choice(moves))
        return self.evaluation(state)

    def __repr__(self) -> str:
        return f"RolloutEvaluator({self.policy!r}, {self.depth}, {self.evaluation.__name__})"


class _Node:
    """A state with Pac-Man to move, and per action: tries, summed returns, replies met."""

    __slots__ = (
        "actions",
        "arrivals",
        "outcomes",
        "state",
        "terminal",
        "totals",
        "tries",
        "visits",
    )

    def __init__(self, state: Any) -> None:
        self.state = state
        self.terminal = state.is_win() or state.is_lose()
        self.actions: list[str] = [] if self.terminal else state.get_legal_actions(0)
        self.visits = 0
        self.arrivals = 0  # simulations that reached it (its tree picture needs the count)
        self.tries = [0] * len(self.actions)
        self.totals = [0.0] * len(self.actions)
        self.outcomes: list[dict[Any, _Node]] = [{} for _ in self.actions]


class MCTSAgent(Agent):
    """UCT with playouts (``-a simulations=100,c=0.7,rollout=greedy,depth=5``).

    ``rollout``, ``depth`` and ``evalFn`` (defaults ``greedy``, 5, ``better``) build the
    :class:`RolloutEvaluator`; from Python, ``evaluator=`` gives one instead. Every argument
    is checked here, each error naming it.
    """

    def __init__(
        self,
        simulations: int | str | None = None,
        time: float | str | None = None,
        c: float | str = 0.7,
        rollout: str | None = None,
        depth: int | str | None = None,
        evalFn: EvalSpec | None = None,
        ghostModel: GhostModel | str = "uniform",
        index: int = 0,
        rng: random.Random | None = None,
        evaluator: RolloutEvaluator | None = None,
    ) -> None:
        super().__init__(index)
        if simulations is not None and time is not None:
            raise AgentError("give simulations= or time=, not both")
        # Without either budget, 100 simulations a move.
        count = 100 if simulations is None else simulations
        self.simulations = (
            None if time is not None else whole_number("simulations", count, minimum=1)
        )
        self.time_budget = None if time is None else real_number("time", time, positive=True)
        self.c = real_number("c", c, minimum=0)
        if evaluator is None:
            evaluator = RolloutEvaluator(
                rollout or "greedy", 5 if depth is None else depth, evalFn or "better"
            )
        elif rollout is not None or depth is not None or evalFn is not None:
            raise AgentError("give evaluator= or rollout, depth and evalFn, not both")
        elif not callable(getattr(evaluator, "evaluate", None)):
            # (-a evaluator=x gives a string: refused here, not on the first move)
            raise AgentError(
                f"bad argument evaluator={evaluator}: evaluator must be an object with an "
                "evaluate(state, simulation) method, given from Python; on the command line "
                "give rollout=, depth= and evalFn= instead"
            )
        #: What a new state of the tree is worth (a playout, then an evaluation).
        self.evaluator = evaluator
        self.ghost_model = resolve_ghost_model(ghostModel)
        self.rng = rng or random.Random()
        #: Per move: successor calls, evaluations, time and simulations.
        self.stats = SearchStats()

    def get_action(self, state: Any) -> str:
        started = time.perf_counter()
        root = _Node(state)
        if not root.actions:
            raise AgentError(f"MCTSAgent: Pac-Man has no legal action in state {state}")
        self._simulation = Simulation(self.ghost_model, self.rng)
        self._evaluations = 0
        self._low, self._high = math.inf, -math.inf
        deadline = None if self.time_budget is None else started + self.time_budget
        done = 0
        while True:
            self._simulate(root)
            done += 1
            if deadline is None:
                if done >= (self.simulations or 0):
                    break
            elif time.perf_counter() >= deadline:
                break
        best = max(
            range(len(root.actions)),
            key=lambda i: (root.tries[i], root.totals[i] / root.tries[i] if root.tries[i] else 0),
        )
        self.stats.add(
            self._simulation.nodes,
            self._evaluations,
            time.perf_counter() - started,
            simulations=done,
        )
        self._root, self._chosen = root, root.actions[best]
        return root.actions[best]

    def last_search(self) -> tuple[Any, str] | None:
        """The last move's search: its root node (per action: tries, summed returns, the
        replies met, each a node of its own) and the action chosen; None before a move.
        ``pacman tree`` draws it (:func:`pacman.view.searchtree.from_mcts`)."""
        root = getattr(self, "_root", None)
        return None if root is None else (root, self._chosen)

    # -- one simulation -----------------------------------------------------------------------

    def _simulate(self, root: _Node) -> None:
        node = root
        path: list[tuple[_Node, int]] = []
        while True:
            if node.terminal or not node.actions:
                value = self._evaluate(node.state)
                break
            index = self._select(node)
            path.append((node, index))
            reached = self._simulation.play(node.state, node.actions[index])
            child = node.outcomes[index].get(reached)
            if child is None:
                node.outcomes[index][reached] = child = _Node(reached)
                child.arrivals += 1
                value = self._evaluate(reached)
                break
            child.arrivals += 1
            node = child
        self._low = min(self._low, value)
        self._high = max(self._high, value)
        for visited, index in path:
            visited.visits += 1
            visited.tries[index] += 1
            visited.totals[index] += value

    def _select(self, node: _Node) -> int:
        tries = node.tries
        for index, count in enumerate(tries):
            if count == 0:
                return index
        spread = self._high - self._low
        low = self._low
        log_n = math.log(node.visits)
        best, best_score = 0, -math.inf
        for index, count in enumerate(tries):
            mean = node.totals[index] / count
            q = (mean - low) / spread if spread > 0 else 0.5
            score = q + self.c * math.sqrt(log_n / count)
            if score > best_score:
                best, best_score = index, score
        return best

    def _evaluate(self, state: Any) -> float:
        self._evaluations += 1
        return self.evaluator.evaluate(state, self._simulation)
