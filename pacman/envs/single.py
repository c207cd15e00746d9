"""``PacmanEnv``: the Gymnasium environment where Pac-Man learns and the ghosts are built in."""

from __future__ import annotations

import numbers
import random
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pacman.directions import ACTION_ORDER, STOP
from pacman.envs import render as rendering
from pacman.envs.compact import FEATURE_NAMES, FeatureEncoder, WindowEncoder
from pacman.envs.limits import check_ghost_count, check_reward_scale
from pacman.envs.observation import GridEncoder, action_mask
from pacman.errors import IllegalActionError, PacmanError
from pacman.ghosts import GHOST_ALIASES, GHOST_TYPES, GhostAgent
from pacman.layout import Layout, load_layout
from pacman.mazegen import board_draw
from pacman.state import SCARED_TIME, GameState

#: Action ``i`` of ``Discrete(5)`` is ``ACTIONS[i]``: the game's legal-action order.
ACTIONS: tuple[str, ...] = ACTION_ORDER
#: The mask of a game that has ended: Stop alone, so that a mask is never empty (a masked
#: sampler or policy has an action to take in the step that autoreset ignores).
ENDED_MASK = action_mask([STOP], ACTIONS)
ENDED_MASK.flags.writeable = False

GhostFactory = Callable[[int, random.Random], Any]
#: ``(state before the step, state after it) -> reward``, replacing the score change.
RewardFunction = Callable[[GameState, GameState], float]
#: The ``observation`` kinds of ``PacmanEnv``; the vector environments take all but ``"dict"``.
OBSERVATIONS = ("grid", "dict", "features", "window")


def ghost_factory(ghost: str | GhostFactory) -> GhostFactory:
    """A ``(index, rng) -> agent`` builder from a ghost name or a callable."""
    if isinstance(ghost, type) and issubclass(ghost, GhostAgent):
        cls = ghost  # DirectionalGhost's second positional parameter is not the rng
        return lambda index, rng: cls(index, rng=rng)
    if callable(ghost):
        return ghost
    named = GHOST_ALIASES.get(str(ghost)) or GHOST_TYPES.get(str(ghost))
    if named is None:
        known = ", ".join([*GHOST_ALIASES, *GHOST_TYPES])
        raise PacmanError(f"unknown ghost {ghost!r}; known: {known}")
    return lambda index, rng: named(index, rng=rng)


def check_illegal_action(illegal_action: str) -> None:
    """Refuse an ``illegal_action`` argument other than ``"stop"`` or ``"error"``."""
    if illegal_action not in ("stop", "error"):
        raise PacmanError(f"illegal_action must be 'stop' or 'error', not {illegal_action!r}")


#: The largest window radius: a window of 201 cells across already sees all of the largest
#: board (100 x 100).
MAX_WINDOW_RADIUS = 100


def check_observation(observation: str, kinds: Sequence[str], window_radius: float) -> None:
    """Refuse an observation kind not in ``kinds`` or a window radius that is not a whole
    number of cells from 1 to :data:`MAX_WINDOW_RADIUS`."""
    if observation not in kinds:
        known = ", ".join(repr(kind) for kind in kinds)
        raise PacmanError(f"observation must be one of {known}, not {observation!r}")
    whole = isinstance(window_radius, numbers.Real) and float(window_radius).is_integer()
    if not whole or not 1 <= window_radius <= MAX_WINDOW_RADIUS:
        raise PacmanError(
            f"window_radius must be a whole number of cells from 1 to {MAX_WINDOW_RADIUS}, "
            f"not {window_radius!r}"
        )


def as_layout(layout: str | Layout) -> Layout:
    return layout if isinstance(layout, Layout) else load_layout(layout)


def load_game(layout: str | Layout, num_ghosts: int | None) -> tuple[Layout, GameState, int]:
    """The layout, its starting state with at most ``num_ghosts`` ghosts, and their number."""
    loaded = as_layout(layout)
    initial = GameState.initial(loaded, check_ghost_count(num_ghosts))
    return loaded, initial, initial.get_num_agents() - 1


def starting_state(options: dict[str, Any] | None, initial: GameState) -> GameState:
    """``options["state"]`` when given (checked against ``initial``'s game), else ``initial``."""
    state = (options or {}).get("state")
    if state is None:
        return initial
    if not isinstance(state, GameState) or state.layout is not initial.layout:
        raise PacmanError("options['state'] must be a GameState of this environment's layout")
    if state.get_num_agents() != initial.get_num_agents():
        raise PacmanError(
            f"options['state'] has {state.get_num_agents() - 1} ghosts; "
            f"this environment has {initial.get_num_agents() - 1}"
        )
    return state


class PacmanEnv(rendering.GameRendering, gym.Env):
    """Pac-Man on a CS188 maze, as a single-agent Gymnasium environment.

    ## Description

    The CS188 multi-agent Pac-Man game with its exact rules. The agent plays
    Pac-Man; after each of its moves every ghost (``RandomGhost`` by default,
    ``DirectionalGhost`` with ``ghost="directional"``) moves once, in index
    order, inside ``step``. Pac-Man eats food (+10) and capsules; a capsule
    scares the ghosts for 40 moves, and eating a scared ghost gives +200.
    Every Pac-Man move costs 1. Clearing the food wins (+500); touching an
    unscared ghost loses (-500).

    ## Action Space

    ``Discrete(5)``; action ``i`` is ``ACTIONS[i]``, the game's legal-action order:

    | action | direction |
    | ------ | --------- |
    | 0 | West |
    | 1 | Stop |
    | 2 | East |
    | 3 | North |
    | 4 | South |

    ``info["action_mask"]`` (``int8``, shape ``(5,)``) marks the legal actions
    of the returned state (Stop alone once the episode has terminated: a mask
    is never empty); pass it to ``action_space.sample(mask=...)``. An illegal action (into a wall) is
    played as ``Stop`` by default (``illegal_action="stop"``), because generic
    RL code and Gymnasium's checker sample the whole space; ``info["illegal"]``
    then says so. With ``illegal_action="error"`` it raises
    ``pacman.errors.IllegalActionError`` naming the action and the legal ones.
    ``action_masks()`` gives the mask as booleans (sb3-contrib's convention).

    ## Observation Space

    ``Box(0, 1, (C, H, W), float32)``: ``H``, ``W`` are the layout's height and
    width; row 0 is the top row of the maze, so the cell of position
    ``(x, y)`` is ``[H - 1 - y, x]``. Channels (names in ``channel_names``):
    ``walls``, ``food``, ``capsules``, ``pacman``, then ``ghosts`` (unscared
    ghosts) or, with ``per_ghost_channels=True``, ``ghost_0`` ... one per
    ghost, and last ``scared_ghosts`` (``scared_timer / 40`` on each scared
    ghost's cell). ``C`` is 6, or 5 plus the number of ghosts. A ghost between
    two cells is shown on the nearer one. The shape depends only on the
    layout, the number of ghosts and ``per_ghost_channels``: it never changes
    on reset.

    With ``observation="dict"``, a ``Dict`` with ``grid`` (the box above),
    ``pacman`` (``float32 (2,)``, the ``(x, y)`` position), ``ghosts``
    (``float32 (G, 2)``, positions; halves when scared) and ``scared_timers``
    (``int64 (G,)``, 0 to 40).

    With ``observation="features"``, a ``float32`` vector of 5 blocks of
    ``len(FEATURE_NAMES)``, one per action: what Pac-Man finds on the cell the
    action leads to (see ``pacman.envs.compact``). With
    ``observation="window"``, the grid channels but ``pacman`` in a square of
    side ``2 * window_radius + 1`` centred on Pac-Man. None of these is an
    image (values 0 to 1, ``float32``).

    ## Rewards

    The change of the game score over the step: Pac-Man's move and the ghosts'
    replies (so -1 a move, +10 a food, +200 a scared ghost, +500 a win, -500 a
    loss). The sum of an episode's rewards is the final score. ``reward_fn``
    ``(state_before, state_after) -> float`` replaces the score change, and
    ``reward_scale`` multiplies the reward; ``info["score"]`` stays the score.

    ## Starting State

    The layout's start: Pac-Man, the ghosts, all food and capsules in place,
    score 0. ``reset(options={"state": s})`` starts from a ``GameState`` ``s``
    of the same layout and number of ghosts instead. The ghosts draw from a
    ``random.Random`` seeded from the environment's ``np_random``, so the same
    seed and actions give the same episode.

    ## Episode End

    Terminated when Pac-Man wins (no food left) or loses (caught). Truncated
    by the ``TimeLimit`` wrapper of ``gymnasium.make`` after
    ``max_episode_steps`` (1000 for the registered ids) Pac-Man moves.

    ## Arguments

    ``gymnasium.make("pacman.envs:Pacman-v0")`` (mediumClassic) or
    ``"pacman.envs:Pacman-<layout>-v0"`` for every bundled layout, with:

    - ``layout``: a bundled layout name, a ``.lay`` path, a ``Layout`` or a
      ``random:WxH[,...]`` spec (without ``seed=``: a new board each episode,
      drawn from ``np_random``).
    - ``num_ghosts``: at most this many ghosts (default: all of the layout's).
    - ``ghost``: ``"random"`` (default), ``"directional"``, a CS188 class name
      or ghost class, or a callable ``(index, rng) -> agent`` with
      ``get_action(state)``.
    - ``illegal_action``: ``"stop"`` (default) or ``"error"``.
    - ``observation``: ``"grid"`` (default), ``"features"``, ``"window"`` or
      ``"dict"``; ``window_radius`` (default 4) for the window.
    - ``reward_scale`` (default 1) and ``reward_fn`` (default: the score change).
    - ``per_ghost_channels``: one channel per ghost (default ``False``).
    - ``render_mode``: ``None``, ``"human"`` (the game window, each step's
      moves animated over ``1 / render_fps`` s), ``"rgb_array"`` (an
      ``(height, width, 3)`` ``uint8`` frame, no display needed: the viewer's
      drawing with pygame installed, else a 16-pixel-a-cell NumPy drawing) or
      ``"ansi"`` (the text board).

    ## Version History

    - v0: first version.
    """

    metadata: dict[str, Any] = rendering.render_metadata()

    def __init__(
        self,
        layout: str | Layout = "mediumClassic",
        num_ghosts: int | None = None,
        ghost: str | GhostFactory = "random",
        illegal_action: str = "stop",
        observation: str = "grid",
        per_ghost_channels: bool = False,
        render_mode: str | None = None,
        window_radius: int = 4,
        reward_scale: float = 1.0,
        reward_fn: RewardFunction | None = None,
    ) -> None:
        check_illegal_action(illegal_action)
        check_observation(observation, OBSERVATIONS, window_radius)
        rendering.check_render_mode(render_mode, self.metadata["render_modes"])
        # A random: spec without seed= is a distribution: a new board each episode.
        self._boards = board_draw(layout)
        first = layout if self._boards is None else self._boards(0)
        self.layout, self._initial, self.num_ghosts = load_game(first, num_ghosts)
        self.illegal_action = illegal_action
        self.observation_kind = observation
        self.render_mode = render_mode
        self.reward_scale = check_reward_scale(reward_scale)
        self.reward_fn = reward_fn
        self._ghost_rng = random.Random()
        make_ghost = ghost_factory(ghost)
        self._ghosts = [make_ghost(i, self._ghost_rng) for i in range(1, self.num_ghosts + 1)]
        self._encoder = GridEncoder(self.layout, self.num_ghosts, per_ghost_channels)
        self.channel_names = self._encoder.names

        grid = spaces.Box(0.0, 1.0, self._encoder.shape, np.float32)
        self.action_space: spaces.Discrete = spaces.Discrete(len(ACTIONS))
        self._features: FeatureEncoder | None = None
        self._window_encoder: WindowEncoder | None = None
        if observation == "grid":
            self.observation_space = grid
        elif observation == "features":
            self._features = FeatureEncoder(self.layout, self.num_ghosts)
            self.feature_names = FEATURE_NAMES
            self.observation_space = spaces.Box(
                np.zeros_like(self._features.high), self._features.high, dtype=np.float32
            )
        elif observation == "window":
            self._window_encoder = WindowEncoder(
                self._encoder.names, self._encoder.shape, int(window_radius)
            )
            self.channel_names = self._window_encoder.names
            self.observation_space = spaces.Box(0.0, 1.0, self._window_encoder.shape, np.float32)
        else:
            high = np.array([self.layout.width - 1, self.layout.height - 1], dtype=np.float32)
            n = self.num_ghosts
            self.observation_space = spaces.Dict(
                {
                    "grid": grid,
                    "pacman": spaces.Box(np.zeros(2, np.float32), high, (2,), np.float32),
                    "ghosts": spaces.Box(
                        np.zeros((n, 2), np.float32), np.tile(high, (n, 1)), (n, 2), np.float32
                    ),
                    "scared_timers": spaces.Box(0, SCARED_TIME, (n,), np.int64),
                }
            )
        self.state: GameState | None = None
        # Pac-Man's legal actions depend only on its cell: (legal names, mask) per cell.
        self._legal_cache: dict[tuple[float, float], tuple[frozenset[str], np.ndarray]] = {}
        self._ended = (frozenset({STOP}), ENDED_MASK)
        # The moves of the current step, kept only to animate them in "human" mode.
        self._moves: list[tuple[int, str, GameState]] | None = (
            [] if render_mode == "human" else None
        )

    # ------------------------------------------------------------------ API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        self._ghost_rng.seed(int(self.np_random.integers(2**63)))
        if seed is not None:
            random.seed(seed)  # ghost classes written for CS188 draw from the module
        if self._boards is not None:
            self._new_board(self._boards(int(self.np_random.integers(2**31))))
        state = starting_state(options, self._initial)
        self.state = state
        self._encoder.reset(state)
        if self._moves is not None:
            self._moves.clear()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self.current_info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        reward, illegal = self.advance(action)
        state = self.state
        assert state is not None, "advance() left the new state"
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, state.is_terminal(), False, self.current_info(illegal)

    def advance(self, action: Any) -> tuple[float, bool]:
        """Play Pac-Man's ``action`` and the ghosts' replies; returns (reward, was illegal).

        Updates ``state`` and the encoder's array; builds no observation (the
        vector environment copies :meth:`observation_array` into its own batch).
        """
        state = self.state
        if state is None:
            raise PacmanError("call reset() before step()")
        if state.is_terminal():
            raise PacmanError("the episode has ended (won or lost); call reset()")
        try:
            name = ACTIONS[action]
        except (IndexError, TypeError):
            name = None
        if name is None or not 0 <= action < len(ACTIONS):
            raise PacmanError(f"action {action!r} is not in Discrete(5): use 0 to 4")
        illegal = name not in self._legal(state)[0]
        if illegal:
            if self.illegal_action == "error":
                legal = ", ".join(f"{ACTIONS.index(a)} ({a})" for a in state.get_legal_actions(0))
                raise IllegalActionError(
                    f"action {int(action)} ({name}) is illegal for Pac-Man at "
                    f"{state.get_pacman_position()}; legal: {legal}"
                )
            name = STOP
        successor = state.generate_successor(0, name)
        moves = self._moves
        if moves is not None:
            moves.append((0, name, successor))
        for ghost in self._ghosts:
            if successor.is_terminal():
                break
            ghost_action = ghost.get_action(successor)
            successor = successor.generate_successor(ghost.index, ghost_action)
            if moves is not None:
                moves.append((ghost.index, ghost_action, successor))
        self._encoder.update(state, successor)
        self.state = successor
        if self.reward_fn is None:
            reward = successor.get_score() - state.get_score()
        else:
            reward = float(self.reward_fn(state, successor))
        return reward * self.reward_scale, illegal

    def render(self) -> np.ndarray | str | None:
        if self.state is None:
            raise PacmanError("call reset() before render()")
        frame = self._render_state(self.state, self._moves)
        if self._moves:
            self._moves.clear()
        return frame

    # -------------------------------------------------------------- helpers

    def _new_board(self, layout: Layout) -> None:
        """Play the next episodes on ``layout`` (same size and ghosts as the first board)."""
        self.layout, self._initial, _ = load_game(layout, self.num_ghosts)
        self._encoder = GridEncoder(layout, self.num_ghosts, self._encoder.per_ghost_channels)
        if self._features is not None:
            self._features = FeatureEncoder(layout, self.num_ghosts)
        self._legal_cache.clear()

    def action_mask(self) -> np.ndarray:
        """The legal actions of the current state as an ``int8`` mask (a fresh array)."""
        if self.state is None:
            raise PacmanError("call reset() before action_mask()")
        return self.legal_mask().copy()

    def legal_mask(self) -> np.ndarray:
        """The legal actions of the current state, shared: copy it to keep or change it."""
        state = self.state
        assert state is not None, "reset() comes first"
        return self._legal(state)[1]

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans: the method sb3-contrib's ``MaskablePPO`` calls."""
        return self.action_mask().astype(bool)

    def _legal(self, state: GameState) -> tuple[frozenset[str], np.ndarray]:
        if state.is_terminal():
            return self._ended
        position = state.get_pacman_position()
        entry = self._legal_cache.get(position)
        if entry is None:
            legal = state.get_legal_actions(0)
            entry = self._legal_cache[position] = (frozenset(legal), action_mask(legal, ACTIONS))
        return entry

    def current_info(self, illegal: bool = False) -> dict[str, Any]:
        """The info of the current state, as ``reset`` and ``step`` return it."""
        state = self.state
        assert state is not None, "reset() comes first"
        return {
            "action_mask": self.legal_mask().copy(),
            "score": state.get_score(),
            "illegal": illegal,
        }

    def observation_array(self) -> np.ndarray:
        """The array observation of the current state, owned by an encoder: copy to keep it."""
        state = self.state
        if self._features is not None:
            assert state is not None, "reset() comes first"
            return self._features.encode(state)
        if self._window_encoder is not None:
            assert state is not None, "reset() comes first"
            return self._window_encoder.encode(self._encoder.array, state.get_pacman_position())
        return self._encoder.array

    def _observation(self) -> Any:
        if self.observation_kind != "dict":
            return self.observation_array().copy()
        state = self.state
        assert state is not None
        return {
            "grid": self._encoder.array.copy(),
            "pacman": np.array(state.get_pacman_position(), dtype=np.float32),
            "ghosts": np.array(state.get_ghost_positions(), dtype=np.float32).reshape(-1, 2),
            "scared_timers": np.array(state.get_scared_timers(), dtype=np.int64),
        }
