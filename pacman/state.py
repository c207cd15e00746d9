"""The game state and every rule of the game (CS188's multiagent rules, exactly).

A ``GameState`` never changes after it is made: ``generate_successor``
returns a new state that shares everything unchanged with its parent. The
maze (walls and the legal moves of every cell) is computed once per layout
and shared; food is an ``int`` used as a bitset; agents are a tuple of
``(position, direction, scared_timer)`` tuples. Equality and hashing cover
what CS188's do: agent positions, directions and scared timers, food,
capsules and score.

Rules kept as CS188 has them even where odd (see RULES.md):
- Pac-Man choosing ``Stop`` keeps facing its previous direction.
- Touching two unscared ghosts in one Pac-Man move costs 500 twice.
- A scared ghost's timer ending between cells snaps it to ``int(x + 0.5)``,
  which may move it back half a cell.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, cast

from pacman.compat import AgentStateCamelCase, GameStateCamelCase, Twinned
from pacman.directions import ACTION_ORDER, REVERSE, STOP, VECTORS
from pacman.errors import IllegalActionError
from pacman.grid import Grid

if TYPE_CHECKING:
    from pacman.layout import Layout

Position = tuple[float, float]

TIME_PENALTY = 1
FOOD_SCORE = 10
WIN_SCORE = 500
LOSE_PENALTY = 500
GHOST_SCORE = 200
SCARED_TIME = 40
COLLISION_TOLERANCE = 0.7
#: How many food columns, and how many lists of food cells, a maze keeps built (a bound on
#: the memory of what it keeps).
FOOD_KEPT = 4096

_RUNNING, _WON, _LOST = 0, 1, -1


class Maze:
    """What never changes during a game on one layout: walls and move tables."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.walls = layout.walls
        wall = layout.walls.data
        height = layout.height
        open_cells = [(x, y) for x in range(layout.width) for y in range(height) if not wall[x][y]]
        #: cell -> {action: destination}, actions in legal-action order (destinations: whole cells).
        self.pacman_moves: dict[Position, dict[str, tuple[int, int]]] = {}
        #: (cell, facing) -> a ghost's legal actions there.
        self.ghost_legal: dict[tuple[Position, str], tuple[str, ...]] = {}
        for x, y in open_cells:
            moves: dict[str, tuple[int, int]] = {}
            for action in ACTION_ORDER:
                dx, dy = VECTORS[action]
                if not wall[x + dx][y + dy]:
                    moves[action] = (x + dx, y + dy)
            self.pacman_moves[(x, y)] = moves
            possible = [action for action in moves if action != STOP]
            for facing in ACTION_ORDER:
                reverse = REVERSE[facing]
                if reverse in possible and len(possible) > 1:
                    self.ghost_legal[((x, y), facing)] = tuple(a for a in possible if a != reverse)
                else:
                    self.ghost_legal[((x, y), facing)] = tuple(possible)
        self.pacman_legal = {cell: tuple(moves) for cell, moves in self.pacman_moves.items()}
        #: food cell -> its bit; bit order is x-major, as Grid.as_list() lists cells.
        self.food_bit: dict[Position, int] = {(x, y): 1 << (x * height + y) for x, y in open_cells}
        self.bit_cell = {bit.bit_length() - 1: cell for cell, bit in self.food_bit.items()}
        #: A column's food bits -> that column of the food grid: columns repeat from state to
        #: state, so a search's thousands of getFood() calls build few (see food_column).
        self.food_columns: dict[int, tuple[bool, ...]] = {}
        #: The food bits of a state -> its food cells, x-major (states of a search share them).
        self.food_lists: dict[int, tuple[Position, ...]] = {}

    def food_column(self, bits: int) -> tuple[bool, ...]:
        """The food grid's column whose food bits (y upward) are ``bits``."""
        column = self.food_columns.get(bits)
        if column is None:
            column = tuple(bool(bits >> y & 1) for y in range(self.layout.height))
            if len(self.food_columns) < FOOD_KEPT:
                self.food_columns[bits] = column
        return column

    def food_cells(self, food: int) -> tuple[Position, ...]:
        """The cells of the food bits ``food``, x-major (as ``Grid.as_list()`` lists them)."""
        cells = self.food_lists.get(food)
        if cells is None:
            found, rest, bit_cell = [], food, self.bit_cell
            while rest:
                low = rest & -rest
                found.append(bit_cell[low.bit_length() - 1])
                rest ^= low
            cells = tuple(found)
            if len(self.food_lists) < FOOD_KEPT:
                self.food_lists[food] = cells
        return cells

    def food_int(self, cells: Iterable[Position]) -> int:
        food = 0
        for cell in cells:
            food |= self.food_bit[cell]
        return food


_MAZES: weakref.WeakKeyDictionary[Layout, Maze] = weakref.WeakKeyDictionary()


def maze_of(layout: Layout) -> Maze:
    """The shared maze of a layout, built on first use."""
    maze = _MAZES.get(layout)
    if maze is None:
        maze = _MAZES[layout] = Maze(layout)
    return maze


class FoodGrid(Grid):
    """The read-only food grid a state hands out; it lists its cells from the state's food
    bits, which the states of a search share (CS188 code asks ``getFood().asList()`` of every
    state it scores)."""

    __slots__ = ("_food", "_maze")
    _food: int
    _maze: Maze

    def as_list(self, key: object = True) -> list[tuple[int, int]]:
        if key is True:  # food cells are whole cells
            return cast("list[tuple[int, int]]", list(self._maze.food_cells(self._food)))
        return Grid.as_list(self, key)


class Configuration(Twinned):
    """A position and a facing direction (CS188's ``game.Configuration``)."""

    __slots__ = ("direction", "pos")

    def __init__(self, pos: Position, direction: str) -> None:
        self.pos = pos
        self.direction = direction

    def get_position(self) -> Position:
        return self.pos

    def get_direction(self) -> str:
        return self.direction

    def is_integer(self) -> bool:
        x, y = self.pos
        return x == int(x) and y == int(y)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Configuration):
            return NotImplemented
        return self.pos == other.pos and self.direction == other.direction

    def __hash__(self) -> int:
        return hash((self.pos, self.direction))

    def __repr__(self) -> str:
        return f"(x,y)={self.pos}, {self.direction}"

    getPosition = get_position
    getDirection = get_direction
    isInteger = is_integer


class AgentState(AgentStateCamelCase):
    """A snapshot of one agent: changing it does not change the game."""

    __slots__ = ("configuration", "is_pacman", "scared_timer", "start")

    def __init__(
        self, configuration: Configuration, start: Configuration, scared_timer: int, is_pacman: bool
    ) -> None:
        self.configuration = configuration
        self.start = start
        self.scared_timer = scared_timer
        self.is_pacman = is_pacman

    def get_position(self) -> Position:
        return self.configuration.pos

    def get_direction(self) -> str:
        return self.configuration.direction

    def copy(self) -> AgentState:
        return AgentState(
            Configuration(self.configuration.pos, self.configuration.direction),
            self.start,
            self.scared_timer,
            self.is_pacman,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentState):
            return NotImplemented
        return self.configuration == other.configuration and self.scared_timer == other.scared_timer

    def __hash__(self) -> int:
        return hash((self.configuration, self.scared_timer))

    def __repr__(self) -> str:
        kind = "Pacman" if self.is_pacman else "Ghost"
        return f"{kind}: {self.configuration!r}"


class GameState(GameStateCamelCase):
    """One moment of a game. Immutable and hashable; successors are cheap."""

    __slots__ = (
        "_agents",
        "_capsules",
        "_food",
        "_food_grid",
        "_hash",
        "_maze",
        "_outcome",
        "_score",
    )
    # The slots' types (set by _make, never changed after).
    _maze: Maze
    _agents: tuple[tuple[Position, str, int], ...]
    _food: int
    _capsules: tuple[Position, ...]
    _score: int
    _outcome: int
    _hash: int | None
    _food_grid: Grid | None

    @classmethod
    def initial(cls, layout: Layout, num_ghosts: int | None = None) -> GameState:
        """The start of a game on ``layout`` with at most ``num_ghosts`` ghosts (default: all)."""
        maze = maze_of(layout)
        starts = layout.agent_positions
        if num_ghosts is not None:
            starts = starts[: 1 + max(0, num_ghosts)]
        agents = tuple((position, STOP, 0) for _, position in starts)
        return _make(
            maze, agents, maze.food_int(layout.food_positions), layout.capsules, 0, _RUNNING
        )

    # ----------------------------------------------------------------- moves

    def get_legal_actions(self, agent_index: int = 0) -> list[str]:
        """Legal actions, in the order West, Stop, East, North, South; none once the game is over."""
        if self._outcome:
            return []
        if agent_index == 0:
            return list(self._maze.pacman_legal[self._agents[0][0]])
        position, facing, _ = self._agent(agent_index)
        legal = self._maze.ghost_legal.get((position, facing))
        # A scared ghost between two cells may only go on.
        return [facing] if legal is None else list(legal)

    def generate_successor(self, agent_index: int, action: str) -> GameState:
        """The state after ``agent_index`` plays ``action``; raises IllegalActionError."""
        if self._outcome:
            raise IllegalActionError(
                f"agent {agent_index} cannot play {action!r}: the game is already "
                f"{'won' if self._outcome == _WON else 'lost'}"
            )
        maze = self._maze
        agents = self._agents
        score = self._score
        outcome = _RUNNING
        if agent_index == 0:
            position, facing, _ = agents[0]
            target = maze.pacman_moves[position].get(action)
            if target is None:
                raise self._illegal(0, action)
            score -= TIME_PENALTY
            food = self._food
            bit = maze.food_bit[target]
            if food & bit:
                food ^= bit
                score += FOOD_SCORE
                if not food:
                    score += WIN_SCORE
                    outcome = _WON
            capsules = self._capsules
            ghosts = agents[1:]
            if target in capsules:
                capsules = tuple(c for c in capsules if c != target)
                ghosts = tuple((g_pos, g_facing, SCARED_TIME) for g_pos, g_facing, _ in ghosts)
            px, py = target
            new_agents: list[tuple[Position, str, int]] = [
                (target, facing if action == STOP else action, 0)
            ]
            for index, ghost in enumerate(ghosts, start=1):
                (gx, gy), _, scared = ghost
                if abs(gx - px) + abs(gy - py) <= COLLISION_TOLERANCE:
                    if scared:
                        score += GHOST_SCORE
                        ghost = (maze.layout.agent_positions[index][1], STOP, 0)
                    elif outcome != _WON:
                        score -= LOSE_PENALTY
                        outcome = _LOST
                new_agents.append(ghost)
            return _make(maze, tuple(new_agents), food, capsules, score, outcome)

        position, facing, scared = self._agent(agent_index)
        legal = maze.ghost_legal.get((position, facing))
        if action not in (legal if legal is not None else (facing,)):
            raise self._illegal(agent_index, action)
        dx, dy = VECTORS[action]
        x, y = position
        if scared:
            x, y = _half_step(x, dx), _half_step(y, dy)
            if scared == 1:
                x, y = int(x + 0.5), int(y + 0.5)
            scared -= 1
        else:
            x += dx
            y += dy
        ghost = ((x, y), action, scared)
        pacman_x, pacman_y = agents[0][0]
        if abs(x - pacman_x) + abs(y - pacman_y) <= COLLISION_TOLERANCE:
            if scared:
                score += GHOST_SCORE
                ghost = (maze.layout.agent_positions[agent_index][1], STOP, 0)
            else:
                score -= LOSE_PENALTY
                outcome = _LOST
        moved = (*agents[:agent_index], ghost, *agents[agent_index + 1 :])
        return _make(maze, moved, self._food, self._capsules, score, outcome)

    def generate_pacman_successor(self, action: str) -> GameState:
        return self.generate_successor(0, action)

    def get_legal_pacman_actions(self) -> list[str]:
        return self.get_legal_actions(0)

    def _agent(self, agent_index: int) -> tuple[Position, str, int]:
        if not 0 <= agent_index < len(self._agents):
            raise IllegalActionError(
                f"there is no agent {agent_index}: agents are 0 to {len(self._agents) - 1}"
            )
        return self._agents[agent_index]

    def _illegal(self, agent_index: int, action: str) -> IllegalActionError:
        legal = ", ".join(self.get_legal_actions(agent_index))
        who = "Pac-Man" if agent_index == 0 else f"ghost {agent_index}"
        position = self._agents[agent_index][0]
        return IllegalActionError(
            f"illegal action {action!r} for {who} (agent {agent_index}) at {position}; legal: {legal}"
        )

    # ------------------------------------------------------------- questions

    @property
    def layout(self) -> Layout:
        return self._maze.layout

    def get_num_agents(self) -> int:
        return len(self._agents)

    def get_pacman_position(self) -> Position:
        return self._agents[0][0]

    def get_pacman_state(self) -> AgentState:
        return self._agent_state(0)

    def get_ghost_states(self) -> list[AgentState]:
        return [self._agent_state(index) for index in range(1, len(self._agents))]

    def get_ghost_state(self, agent_index: int) -> AgentState:
        if agent_index == 0:
            raise IllegalActionError("agent 0 is Pac-Man, not a ghost")
        self._agent(agent_index)
        return self._agent_state(agent_index)

    def get_ghost_position(self, agent_index: int) -> Position:
        if agent_index == 0:
            raise IllegalActionError("agent 0 is Pac-Man, not a ghost")
        return self._agent(agent_index)[0]

    def get_ghost_positions(self) -> list[Position]:
        return [agent[0] for agent in self._agents[1:]]

    def get_scared_timers(self) -> list[int]:
        """Each ghost's scared timer, in agent order."""
        return [agent[2] for agent in self._agents[1:]]

    def get_food(self) -> Grid:
        """The remaining food as a read-only grid (``food[x][y]``)."""
        grid = self._food_grid
        if grid is None:
            maze, food = self._maze, self._food
            height, known = maze.layout.height, maze.food_columns
            mask = (1 << height) - 1
            bits = [food >> (x * height) & mask for x in range(maze.layout.width)]
            grid = self._food_grid = cast(
                FoodGrid,
                FoodGrid.frozen([known.get(column) or maze.food_column(column) for column in bits]),
            )
            grid._maze, grid._food = maze, food
        return grid

    def get_food_positions(self) -> list[Position]:
        """The cells that still hold food, x-major (as ``get_food().as_list()``)."""
        return list(self._maze.food_cells(self._food))

    def get_walls(self) -> Grid:
        return self._maze.walls

    def get_capsules(self) -> list[Position]:
        return list(self._capsules)

    def get_num_food(self) -> int:
        return self._food.bit_count()

    def has_food(self, x: int, y: int) -> bool:
        bit = self._maze.food_bit.get((x, y))
        return bool(bit and self._food & bit)

    def has_wall(self, x: int, y: int) -> bool:
        return self._maze.walls.data[x][y]

    def get_score(self) -> float:
        return float(self._score)

    def is_win(self) -> bool:
        return self._outcome == _WON

    def is_lose(self) -> bool:
        return self._outcome == _LOST

    def is_terminal(self) -> bool:
        return self._outcome != _RUNNING

    def _agent_state(self, index: int) -> AgentState:
        position, facing, scared = self._agents[index]
        start = self._maze.layout.agent_positions[index][1]
        return AgentState(
            Configuration(position, facing), Configuration(start, STOP), scared, index == 0
        )

    def copy(self) -> GameState:
        """A distinct object equal to this one (what agents are handed)."""
        return _make(
            self._maze, self._agents, self._food, self._capsules, self._score, self._outcome
        )

    # ------------------------------------------------------------ protocols

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return (
            self._agents == other._agents
            and self._food == other._food
            and self._capsules == other._capsules
            and self._score == other._score
        )

    def __hash__(self) -> int:
        value = self._hash
        if value is None:
            value = self._hash = hash((self._agents, self._food, self._capsules, self._score))
        return value

    def __str__(self) -> str:
        layout = self._maze.layout
        cells = [list(row.replace("P", " ").replace("G", " ")) for row in layout.rows]
        cells = [[c if c == "%" else " " for c in row] for row in cells]
        top = layout.height - 1
        # Food and capsules lie on whole cells (int() only tells the type checker so).
        for x, y in self.get_food_positions():
            cells[top - int(y)][int(x)] = "."
        for x, y in self._capsules:
            cells[top - int(y)][int(x)] = "o"
        for index, ((x, y), facing, scared) in enumerate(self._agents):
            col, row = int(x + 0.5), top - int(y + 0.5)
            if index == 0:
                cells[row][col] = {"North": "v", "South": "^", "West": ">", "East": "<"}.get(
                    facing, "P"
                )
            else:
                cells[row][col] = "S" if scared else "G"
        board = "\n".join("".join(row) for row in cells)
        return f"{board}\nScore: {self._score}"

    def __repr__(self) -> str:
        return (
            f"<GameState {self._maze.layout.name} score={self._score} "
            f"pacman={self._agents[0][0]} food={self.get_num_food()}>"
        )

    def __reduce__(self) -> tuple[Callable[..., GameState], tuple[object, ...]]:
        return (
            _make,
            (self._maze, self._agents, self._food, self._capsules, self._score, self._outcome),
        )


def _half_step(coordinate: float, direction: int) -> float:
    """A scared ghost's move along one axis; a whole number stays an int, as on every grid point."""
    if not direction:
        return coordinate
    coordinate += direction * 0.5
    return int(coordinate) if coordinate.is_integer() else coordinate


_new = object.__new__


def _make(
    maze: Maze,
    agents: tuple[tuple[Position, str, int], ...],
    food: int,
    capsules: tuple[Position, ...],
    score: int,
    outcome: int,
) -> GameState:
    state = _new(GameState)
    state._maze = maze
    state._agents = agents
    state._food = food
    state._capsules = capsules
    state._score = score
    state._outcome = outcome
    state._hash = None
    state._food_grid = None
    return state
