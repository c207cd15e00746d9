"""What the PettingZoo games (``PacmanAECEnv``, ``PacmanParallelEnv``) share.

Agents, spaces, observations, the shared state, rendering and the checks of
an agent's action. PettingZoo is not imported here: each game adds its own
base class (``AECEnv`` or ``ParallelEnv``) after ``MultiAgentGame``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from pacman.envs.limits import check_max_cycles
from pacman.envs.observation import GridEncoder, agent_observation
from pacman.envs.render import GameRendering, check_render_mode
from pacman.envs.single import ACTIONS, load_game, starting_state
from pacman.errors import IllegalActionError, PacmanError
from pacman.layout import Layout
from pacman.state import GameState


class MultiAgentGame(GameRendering):
    """The game's agents (``pacman_0``, ``ghost_0``, ...), spaces, state and rendering.

    A mixin for the PettingZoo games: list it before their PettingZoo base
    class, whose space, ``state``, ``render`` and ``close`` methods it replaces.
    """

    def _set_up_game(
        self,
        layout: str | Layout,
        num_ghosts: int | None,
        max_cycles: int,
        per_ghost_channels: bool,
        render_mode: str | None,
    ) -> None:
        """The constructors' common part: the game, its agents and their spaces."""
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.layout, self._initial, self.num_ghosts = load_game(layout, num_ghosts)
        self.max_cycles = check_max_cycles(max_cycles)
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
        self._cycles = 0
        # The moves since the last frame, kept only to animate them in "human" mode.
        self._moves: list[tuple[int, str, GameState]] = []

    def _start_game(self, options: dict[str, Any] | None) -> GameState:
        """Set the game at its start, or at ``options["state"]``, and return that state."""
        state = starting_state(options, self._initial)
        self.game = state
        self._encoder.reset(state)
        self._cycles = 0
        self._moves.clear()
        return state

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def state(self) -> np.ndarray:
        self._require_game()
        return self._encoder.array.copy()

    def render(self) -> np.ndarray | str | None:
        if self.render_mode is None:
            return None
        frame = self._render_state(self._require_game(), self._moves or None)
        self._moves.clear()
        return frame

    def _require_game(self) -> GameState:
        if self.game is None:
            raise PacmanError("call reset() before using the environment")
        return self.game

    def _observation(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation of the current state: the grid, its own cell, its mask."""
        return agent_observation(self._encoder, self._require_game(), self.agent_index[agent])

    def _ghost_reward(self, change: float) -> float:
        """Each ghost's share of a score ``change``: the rewards of a move sum to zero."""
        return -change / self.num_ghosts if self.num_ghosts and change else 0.0


def action_name(action: Any, agent: str) -> str:
    """The name of ``agent``'s ``action``; ``PacmanError`` if it is not in ``Discrete(5)``."""
    try:
        name = ACTIONS[action] if 0 <= action < len(ACTIONS) else None
    except TypeError:
        name = None
    if name is None:
        raise PacmanError(f"action {action!r} of {agent} is not in Discrete(5): use 0 to 4")
    return name


def illegal_action_error(action: Any, agent: str, legal: list[str]) -> IllegalActionError:
    """The error for ``agent``'s ``action`` (an index of ``ACTIONS``) not being one of ``legal``."""
    options = ", ".join(f"{ACTIONS.index(a)} ({a})" for a in legal)
    return IllegalActionError(
        f"action {int(action)} ({ACTIONS[action]}) is illegal for {agent}; legal: {options}"
    )
