"""``PacmanAECEnv``: the whole game as a PettingZoo AEC environment (every agent learns)."""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from pacman.envs import render as rendering
from pacman.envs.multi import MultiAgentGame, action_name, illegal_action_error
from pacman.layout import Layout


class PacmanAECEnv(MultiAgentGame, AECEnv):
    """Pac-Man and its ghosts as agents that move in turn (PettingZoo AEC API).

    Agents: ``pacman_0`` (game agent 0), then ``ghost_0``, ``ghost_1``, ...
    (game agents 1, 2, ...), moving in that order as in the game; one cycle is
    a move by every agent. Each agent's action space is ``Discrete(5)`` over
    ``ACTIONS`` (West, Stop, East, North, South). Ghosts may not stop and may
    not reverse unless stuck, as in the game. An illegal action raises
    ``IllegalActionError``: sample with the mask.

    Observation of each agent: ``{"observation": Box(0, 1, (C + 1, H, W),
    float32), "action_mask": Box(0, 1, (5,), int8)}``. The first ``C``
    channels are ``PacmanEnv``'s grid (same layout of rows and channels); the
    last, ``self``, marks the observing agent's own cell. The mask is that
    agent's legal actions in the current state (all zeros once the game is
    over). ``state()`` is the shared grid without the ``self`` channel.

    Rewards are zero-sum: after each move Pac-Man receives the change of the
    game score and every ghost ``-change / number_of_ghosts``. The game ends
    (all agents terminated) on a win or a loss; after ``max_cycles`` cycles all
    agents are truncated. There is no randomness: ``seed`` is accepted and has
    no effect. ``reset(options={"state": s})`` starts from the ``GameState``
    ``s`` (same layout and number of ghosts; Pac-Man to move).

    Arguments: ``layout`` (name, path or ``Layout``), ``num_ghosts``,
    ``max_cycles`` (default 1000), ``per_ghost_channels``, ``render_mode``
    (``None``, ``"human"``, ``"rgb_array"``, ``"ansi"``).
    """

    # Not a ClassVar: PettingZoo declares metadata per instance.
    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": "pacman_v0",
        **rendering.render_metadata(),
        "is_parallelizable": False,
    }

    def __init__(
        self,
        layout: str | Layout = "mediumClassic",
        num_ghosts: int | None = None,
        max_cycles: int = 1000,
        per_ghost_channels: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._set_up_game(layout, num_ghosts, max_cycles, per_ghost_channels, render_mode)
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        state = self._start_game(options)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        over = state.is_terminal()
        self.terminations = dict.fromkeys(self.agents, over)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[0]
        self._skip_agent_selection = None
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._observation(agent)

    def step(self, action: Any) -> None:
        self._require_game()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._require_game()
        index = self.agent_index[agent]
        name = action_name(action, agent)
        legal = state.get_legal_actions(index)
        if name not in legal:
            raise illegal_action_error(action, agent, legal)
        successor = state.generate_successor(index, name)
        self._encoder.update(state, successor)
        self.game = successor
        change = successor.get_score() - state.get_score()
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        for other in rewards:
            rewards[other] = 0.0
        rewards["pacman_0"] = change
        share = self._ghost_reward(change)
        for other in self.possible_agents[1:]:
            rewards[other] = share
        next_agent = self.possible_agents[(index + 1) % len(self.possible_agents)]
        if successor.is_terminal():
            for other in self.agents:
                self.terminations[other] = True
        elif next_agent == "pacman_0":
            self._cycles += 1
            if self._cycles >= self.max_cycles:
                for other in self.agents:
                    self.truncations[other] = True
        self.agent_selection = next_agent
        self._accumulate_rewards()
        if self.render_mode == "human":
            self._moves.append((index, name, successor))
            self.render()
