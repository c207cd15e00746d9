"""A student agent that tries to predict the ghosts, and how to read what it found.

``ORACLE`` is a CS188-style agent file. When a game starts it gathers every generator an
attacker could hope shares the ghosts' stream: a copy of ``random.getstate()`` (the
module the grader seeds for it), ``random.Random(seed)`` for the test's seed and the
game's seed, and ``random.Random(i)`` for the first 10,000 integers (plus a ``hint`` seed
the tests hand it where they check the oracle itself). Before each of its moves it
replays RandomGhost's draw on each candidate for every ghost move since its last one,
keeps the candidates that drew what the ghost did, and scores the guess its best
candidate made. At the end of each game it prints one line::

    ORACLE moves=212 informative=131 hits=47 chance=52.33 survivors=0 hinted=0

``informative``: ghost moves with more than one legal action; ``hits``: those it called
right; ``chance``: how many a blind guess is expected to call right; ``survivors``:
candidates still consistent with every ghost move; ``hinted``: informative moves the hint
called right. Pac-Man itself eats the nearest food and steps away from a ghost that is
close, so games run long enough to tell.
"""

from __future__ import annotations

import math
import re

ORACLE = r'''
import random

from game import Agent


def _uniform_choice(rng, legal):
    """RandomGhost's draw: one random() over the legal actions sorted by name."""
    names = sorted(set(legal))
    draw = rng.random()
    for position, name in enumerate(names):
        if draw <= (position + 1) / len(names):
            return name
    return names[-1]


class Oracle(Agent):
    def __init__(self, index=0, seed="0", hint="-1"):
        self.index = index
        self.test_seed = int(seed)
        self.hint = int(hint)
        self.game = 0

    def registerInitialState(self, gameState):
        copied = random.Random()
        copied.setstate(random.getstate())
        pool = [copied, random.Random(self.test_seed), random.Random(self.test_seed + self.game)]
        pool += [random.Random(i) for i in range(10000)]
        self.ghosts = gameState.getNumAgents() - 1
        self.candidates = {}
        for ghost in range(1, self.ghosts + 1):
            own = []
            for rng in pool:
                twin = random.Random()
                twin.setstate(rng.getstate())
                own.append(twin)
            self.candidates[ghost] = own
        self.hinted_rng = {g: random.Random(self.hint) for g in range(1, self.ghosts + 1)}
        self.hinted_alive = self.hint >= 0
        self.previous = None
        self.counts = {"moves": 0, "informative": 0, "hits": 0, "chance": 0.0, "hinted": 0}
        self.game += 1

    def _observe(self, gameState):
        state = self.previous.generateSuccessor(0, self.my_move)
        for ghost in range(1, self.ghosts + 1):
            if state.isWin() or state.isLose():
                return
            legal = state.getLegalActions(ghost)
            seen = gameState.getGhostState(ghost)
            # The action whose move lands where the ghost is (an eaten ghost is back home).
            matching = [
                action
                for action in legal
                if state.generateSuccessor(ghost, action).getGhostState(ghost).getPosition()
                == seen.getPosition()
            ]
            if len(matching) != 1:
                return  # the ghost's move cannot be told from here: stop watching this turn
            actual = matching[0]
            kept = []
            guess = None
            for rng in self.candidates[ghost]:
                said = _uniform_choice(rng, legal)
                if guess is None:
                    guess = said
                if said == actual:
                    kept.append(rng)
            self.candidates[ghost] = kept
            if guess is None:
                guess = sorted(set(legal))[0]  # no candidate left: a blind guess
            hinted = _uniform_choice(self.hinted_rng[ghost], legal)
            self.hinted_alive = self.hinted_alive and hinted == actual
            self.counts["moves"] += 1
            if len(set(legal)) > 1:
                self.counts["informative"] += 1
                self.counts["chance"] += 1.0 / len(set(legal))
                self.counts["hits"] += guess == actual
                self.counts["hinted"] += self.hinted_alive
            state = state.generateSuccessor(ghost, actual)

    def getAction(self, gameState):
        if self.previous is not None:
            self._observe(gameState)
        self.previous = gameState
        self.my_move = self._choose(gameState)
        return self.my_move

    def _choose(self, gameState):
        legal = [a for a in gameState.getLegalActions(0) if a != "Stop"] or ["Stop"]
        ghosts = [g.getPosition() for g in gameState.getGhostStates() if g.scaredTimer == 0]
        food = gameState.getFood().asList()

        def score(action):
            x, y = gameState.generatePacmanSuccessor(action).getPacmanPosition()
            danger = min([abs(x - gx) + abs(y - gy) for gx, gy in ghosts] or [99])
            nearest = min([abs(x - fx) + abs(y - fy) for fx, fy in food] or [0])
            return (danger > 2, -nearest)

        return max(legal, key=score)

    def final(self, gameState):
        if self.previous is not None and not (self.previous.isWin() or self.previous.isLose()):
            self._observe(gameState)
        survivors = sum(len(kept) for kept in self.candidates.values())
        c = self.counts
        print(
            f"ORACLE moves={c['moves']} informative={c['informative']} hits={c['hits']} "
            f"chance={c['chance']:.2f} survivors={survivors} hinted={c['hinted']}"
        )
'''

_LINE = re.compile(
    r"ORACLE moves=(\d+) informative=(\d+) hits=(\d+) chance=([\d.]+) survivors=(\d+) hinted=(\d+)"
)


def oracle_games(text: str) -> list[dict[str, float]]:
    """Every ``ORACLE`` line of ``text`` (a report, a log), one dict per game."""
    keys = ("moves", "informative", "hits", "chance", "survivors", "hinted")
    return [
        dict(zip(keys, (float(v) for v in match.groups()), strict=True))
        for match in _LINE.finditer(text)
    ]


def assert_no_better_than_chance(games: list[dict[str, float]]) -> None:
    """The guesses hit about as often as blind ones (within four standard deviations of
    chance over all the games), and no candidate stream follows the ghosts through a game
    long enough to tell (a short game leaves a few of 10,003 candidates right by luck)."""
    assert games, "the oracle printed nothing"
    assert all(game["survivors"] == 0 for game in games if game["informative"] >= 60), games
    informative = sum(game["informative"] for game in games)
    assert informative >= 40 * len(games), games  # long enough games to tell
    chance = sum(game["chance"] for game in games)
    # Each informative move is a Bernoulli trial with p = 1/n; p(1-p) <= 1/4.
    spread = math.sqrt(informative / 4)
    assert sum(game["hits"] for game in games) <= chance + 4 * spread, games
