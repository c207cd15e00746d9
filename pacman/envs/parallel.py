"""``PacmanParallelEnv``: the whole game as a PettingZoo parallel environment.

Every agent names its move at once; the moves are then played in the game's
order (Pac-Man, then ghost 1, 2, ...), as one cycle of the AEC game. A ghost's
legal moves depend only on its own position and heading, which no other
agent's move changes, so a move that was legal when chosen stays legal when
played.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from pacman.directions import STOP
from pacman.envs import render as rendering
from pacman.envs.observation import GridEncoder, agent_observation
from pacman.envs.single import ACTIONS, as_layout, starting_state
from pacman.errors import IllegalActionError, PacmanError
from pacman.layout import Layout
from pacman.state import GameState


class PacmanParallelEnv(ParallelEnv):
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

    metadata: ClassVar[dict[str, Any]] = {
        "name": "pacman_parallel_v0",
        "render_modes": ["human", "rgb_array", "ansi"],
        "render_fps": 10,
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
        if illegal_action not in ("stop", "error"):
            raise PacmanError(f"illegal_action must be 'stop' or 'error', not {illegal_action!r}")
        rendering.check_render_mode(render_mode, self.metadata["render_modes"])
        self.layout = as_layout(layout)
        self._initial = GameState.initial(self.layout, num_ghosts)
        self.num_ghosts = self._initial.get_num_agents() - 1
        self.max_cycles = max_cycles
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.possible_agents = ["pacman_0", *(f"ghost_{i}" for i in range(self.num_ghosts))]
        self.agent_index = {agent: index for index, agent in enumerate(self.possible_agents)}
        self._encoder = GridEncoder(self.layout, self.num_ghosts, per_ghost_channels)
        self.channel_names = (*self._encoder.names, "self")
        channels, height, width = self._encoder.shape
        self.state_space = spaces.Box(0.0, 1.0, self._encoder.shape, np.float32)
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (channels + 1, height, width), np.float32),
                "action_mask": spaces.Box(0, 1, (len(ACTIONS),), np.int8),
            }
        )
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {
            agent: spaces.Discrete(len(ACTIONS)) for agent in self.possible_agents
        }
        self.game: GameState | None = None
        self.agents: list[str] = []
        self._cycles = 0
        self._window: rendering.HumanView | None = None
        self._moves: list[tuple[int, str, GameState]] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict]]:
        """Start a game (no randomness: ``seed`` changes nothing); ``options["state"]`` as AEC."""
        state = starting_state(options, self._initial)
        self.game = state
        self._encoder.reset(state)
        self._cycles = 0
        self.agents = [] if state.is_terminal() else list(self.possible_agents)
        self._moves.clear()
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
        ghost_share = -change / self.num_ghosts if self.num_ghosts and change else 0.0
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
        try:
            name = ACTIONS[action] if 0 <= action < len(ACTIONS) else None
        except TypeError:
            name = None
        if name is None:
            raise PacmanError(f"action {action!r} of {agent} is not in Discrete(5): use 0 to 4")
        if name in legal:
            return name, False
        if self.illegal_action == "error":
            options = ", ".join(f"{ACTIONS.index(a)} ({a})" for a in legal)
            raise IllegalActionError(
                f"action {int(action)} ({name}) is illegal for {agent}; legal: {options}"
            )
        return (STOP if index == 0 else legal[0]), True

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        state = self._require_game()
        return {
            agent: agent_observation(self._encoder, state, self.agent_index[agent])
            for agent in self.agents
        }

    def state(self) -> np.ndarray:
        self._require_game()
        return self._encoder.array.copy()

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
        self._window.show(state, self._moves or None)
        self._moves.clear()
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    def _require_game(self) -> GameState:
        if self.game is None:
            raise PacmanError("call reset() before using the environment")
        return self.game
