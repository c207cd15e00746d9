"""``PacmanAECEnv``: the whole game as a PettingZoo AEC environment (every agent learns)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from pacman.envs import render as rendering
from pacman.envs.observation import GridEncoder, agent_observation
from pacman.envs.single import ACTIONS, as_layout, starting_state
from pacman.errors import IllegalActionError, PacmanError
from pacman.layout import Layout
from pacman.state import GameState


class PacmanAECEnv(AECEnv):
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

    metadata: ClassVar[dict[str, Any]] = {
        "name": "pacman_v0",
        "render_modes": ["human", "rgb_array", "ansi"],
        "render_fps": 10,
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
        rendering.check_render_mode(render_mode, self.metadata["render_modes"])
        self.layout = as_layout(layout)
        self._initial = GameState.initial(self.layout, num_ghosts)
        self.num_ghosts = self._initial.get_num_agents() - 1
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.possible_agents = ["pacman_0", *(f"ghost_{i}" for i in range(self.num_ghosts))]
        self.agent_index = {agent: index for index, agent in enumerate(self.possible_agents)}
        self._encoder = GridEncoder(self.layout, self.num_ghosts, per_ghost_channels)
        self.channel_names = (*self._encoder.names, "self")
        channels, height, width = self._encoder.shape
        self.state_space = spaces.Box(0.0, 1.0, self._encoder.shape, np.float32)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (channels + 1, height, width), np.float32),
                    "action_mask": spaces.Box(0, 1, (len(ACTIONS),), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(len(ACTIONS)) for agent in self.possible_agents
        }
        self.game: GameState | None = None
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict] = {}
        self._window: rendering.HumanView | None = None
        self._last_move: tuple[int, str, GameState] | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        state = starting_state(options, self._initial)
        self.game = state
        self._encoder.reset(state)
        self._cycles = 0
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        over = state.is_terminal()
        self.terminations = dict.fromkeys(self.agents, over)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[0]
        self._skip_agent_selection = None
        self._last_move = None
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return agent_observation(self._encoder, self._require_game(), self.agent_index[agent])

    def state(self) -> np.ndarray:
        self._require_game()
        return self._encoder.array.copy()

    def step(self, action: Any) -> None:
        self._require_game()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._require_game()
        index = self.agent_index[agent]
        try:
            name = ACTIONS[action] if 0 <= action < len(ACTIONS) else None
        except TypeError:
            name = None
        if name is None:
            raise PacmanError(f"action {action!r} of {agent} is not in Discrete(5): use 0 to 4")
        legal = state.get_legal_actions(index)
        if name not in legal:
            options = ", ".join(f"{ACTIONS.index(a)} ({a})" for a in legal)
            raise IllegalActionError(
                f"action {int(action)} ({name}) is illegal for {agent}; legal: {options}"
            )
        successor = state.generate_successor(index, name)
        self._encoder.update(state, successor)
        self.game = successor
        change = successor.get_score() - state.get_score()
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        for other in rewards:
            rewards[other] = 0.0
        rewards["pacman_0"] = change
        if self.num_ghosts:
            share = -change / self.num_ghosts if change else 0.0
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
            self._last_move = (index, name, successor)
            self.render()

    def render(self) -> np.ndarray | str | None:
        if self.render_mode is None:
            return None
        state = self._require_game()
        if self.render_mode == "rgb_array":
            return rendering.rgb_frame(state)
        if self.render_mode == "ansi":
            return str(state) + "\n"
        if self._window is None:
            self._window = rendering.HumanView(self.metadata["render_fps"])
        self._window.show(state, [self._last_move] if self._last_move else None)
        self._last_move = None
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    def _require_game(self) -> GameState:
        if self.game is None:
            raise PacmanError("call reset() before using the environment")
        return self.game
