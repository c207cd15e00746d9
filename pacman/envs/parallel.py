"""``PacmanParallelEnv``: the whole game as a PettingZoo parallel environment.

Every agent names its move at once; the moves are then played in the game's
order (Pac-Man, then ghost 1, 2, ...), as one cycle of the AEC game. A ghost's
legal moves depend only on its own position and heading, which no other
agent's move changes, so a move that was legal when chosen stays legal when
played.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from pacman.directions import STOP
from pacman.envs import render as rendering
from pacman.envs.multi import MultiAgentGame, action_name, illegal_action_error
from pacman.envs.single import check_illegal_action
from pacman.errors import PacmanError
from pacman.layout import Layout
from pacman.state import GameState


class PacmanParallelEnv(MultiAgentGame, ParallelEnv):
    """Pac-Man and its ghosts choosing their moves simultaneously (PettingZoo parallel API).

    Agents, spaces and observations are those of the AEC game
    (``pacman_0``, ``ghost_0``, ...; ``Discrete(5)``; ``{"observation",
    "action_mask"}``). ``step(actions)`` plays Pac-Man's move, then each
    ghost's in index order; the game may end part-way, and the moves after
    the end are not played. An agent left out of ``actions`` plays Stop
    (Pac-Man) or its first legal action (a ghost). Rewards of a step are zero-sum over its moves: Pac-Man gets
    the change of the score, each ghost ``-change / number_of_ghosts``.

    ``illegal_action="stop"`` (default) plays Pac-Man's illegal move as Stop and
    a ghost's as its first legal action (ghosts may not stop), with
    ``infos[agent]["illegal"]`` True; ``"error"`` raises
    ``IllegalActionError``. Every agent terminates on a win or a loss and is
    truncated after ``max_cycles`` steps; then ``agents`` is empty.
    """

    # Not a ClassVar: PettingZoo declares metadata per instance.
    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": "pacman_parallel_v0",
        **rendering.render_metadata(),
    }

    def __init__(
        self,
        layout: str | Layout = "mediumClassic",
        num_ghosts: int | None = None,
        max_cycles: int = 1000,
        per_ghost_channels: bool = False,
        illegal_action: str = "stop",
        render_mode: str | None = None,
    ) -> None:
        check_illegal_action(illegal_action)
        self._set_up_game(layout, num_ghosts, max_cycles, per_ghost_channels, render_mode)
        self.illegal_action = illegal_action

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict]]:
        """Start a game (no randomness: ``seed`` changes nothing); ``options["state"]`` as AEC."""
        state = self._start_game(options)
        self.agents = [] if state.is_terminal() else list(self.possible_agents)
        if self.render_mode == "human":
            self.render()
        return self._observations(), {agent: {"illegal": False} for agent in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        state = self._require_game()
        if not self.agents:
            raise PacmanError("the game has ended; call reset()")
        start_score = state.get_score()
        illegal = dict.fromkeys(self.agents, False)
        for agent in self.agents:
            if state.is_terminal():
                break
            index = self.agent_index[agent]
            name, illegal[agent] = self._move(state, index, agent, actions.get(agent))
            successor = state.generate_successor(index, name)
            self._encoder.update(state, successor)
            if self.render_mode == "human":
                self._moves.append((index, name, successor))
            state = successor
        self.game = state
        self._cycles += 1
        change = state.get_score() - start_score
        ghost_share = self._ghost_reward(change)
        rewards = {agent: change if agent == "pacman_0" else ghost_share for agent in self.agents}
        over = state.is_terminal()
        truncated = not over and self._cycles >= self.max_cycles
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, truncated)
        observations = self._observations()
        infos = {agent: {"illegal": illegal[agent]} for agent in self.agents}
        if over or truncated:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _move(self, state: GameState, index: int, agent: str, action: Any) -> tuple[str, bool]:
        """The action name ``agent`` plays, and whether its choice was illegal."""
        legal = state.get_legal_actions(index)
        if action is None:
            return (STOP if index == 0 else legal[0]), False
        name = action_name(action, agent)
        if name in legal:
            return name, False
        if self.illegal_action == "error":
            raise illegal_action_error(action, agent, legal)
        return (STOP if index == 0 else legal[0]), True

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {agent: self._observation(agent) for agent in self.agents}
