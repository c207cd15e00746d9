"""How fast the viewer draws; prints figures, asserts nothing about time.

    python benchmarks/bench_draw.py [--layout mediumClassic] [--frames 300]

Figures: ``draw()`` per frame at zoom 1 and 2 (the window redraws at 60 fps,
so a frame must stay well under 16 ms), the first drawing of a layout (the
maze is painted once per size and cached), the same with the search overlay (V)
placing its values anew every frame, GIF and PNG recording per move, and the
window's cost per move at ``frame_time=0`` under SDL's dummy driver.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from pacman.game import Game
from pacman.ghosts import RandomGhost
from pacman.layout import load_layout
from pacman.state import GameState


def sample_states(layout_name: str, count: int) -> list[GameState]:
    """States of one random game (restarted as often as needed) for drawing."""
    rng = random.Random(0)
    layout = load_layout(layout_name)
    states: list[GameState] = []
    state = GameState.initial(layout)
    index = 0
    while len(states) < count:
        if state.is_terminal():
            state, index = GameState.initial(layout), 0
        state = state.generate_successor(index, rng.choice(state.get_legal_actions(index)))
        index = (index + 1) % state.get_num_agents()
        states.append(state)
    return states


class RandomPacman:
    def __init__(self) -> None:
        self.rng = random.Random(1)

    def get_action(self, state: GameState) -> str:
        return self.rng.choice(state.get_legal_actions(0))


def game(layout_name: str, observers: list[object], max_moves: int) -> int:
    state = GameState.initial(load_layout(layout_name))
    ghosts = [RandomGhost(i, rng=random.Random(i)) for i in range(1, state.get_num_agents())]
    result = Game(state, [RandomPacman(), *ghosts], observers=observers, max_moves=max_moves).run()
    return result.moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="mediumClassic")
    parser.add_argument("--frames", type=int, default=300)
    options = parser.parse_args()

    from pacman.view import draw
    from pacman.view.frames import FrameRecorder
    from pacman.view.pygame_view import PygameDisplay

    states = sample_states(options.layout, options.frames)
    layout = states[0].layout
    for zoom in (1.0, 2.0):
        surface = draw.pygame.Surface(draw.frame_size(layout, zoom))
        tic = time.perf_counter()
        draw.draw(surface, states[0])  # paints and caches the maze
        first = time.perf_counter() - tic
        times = []
        for state in states:
            tic = time.perf_counter()
            draw.draw(surface, state, caption="RandomAgent  move 123")
            times.append(time.perf_counter() - tic)
        print(
            f"draw {options.layout} zoom {zoom:g} {surface.get_size()}: first {first * 1e3:.1f} ms, "
            f"then median {statistics.median(times) * 1e3:.2f} ms, max {max(times) * 1e3:.2f} ms"
        )

    # The values of one search, drawn over every sampled state: each state moves the agents,
    # so the labels are placed anew each frame (the window places them once a move).
    from agents import AlphaBetaAgent
    from pacman.marks import BoardNotes

    searcher = AlphaBetaAgent(depth=2)
    searcher.get_action(states[0])
    notes = BoardNotes([], searcher.last_result, states[0])
    surface = draw.pygame.Surface(draw.frame_size(layout, 1.0))
    times = []
    for state in states:
        tic = time.perf_counter()
        draw.draw(surface, state, caption="RandomAgent  move 123", notes=notes, overlay=True)
        times.append(time.perf_counter() - tic)
    print(
        f"draw {options.layout} zoom 1 with the values (V): median "
        f"{statistics.median(times) * 1e3:.2f} ms, max {max(times) * 1e3:.2f} ms"
    )

    moves = options.frames
    with tempfile.TemporaryDirectory() as folder:
        for label, recorder in (
            ("GIF", FrameRecorder(gif=Path(folder) / "game.gif")),
            ("PNG", FrameRecorder(frames_dir=Path(folder) / "frames")),
        ):
            tic = time.perf_counter()
            played = game(options.layout, [recorder], moves)
            seconds = time.perf_counter() - tic
            size = sum(path.stat().st_size for path in recorder.written)
            print(
                f"{label} recording: {played} moves in {seconds:.2f} s "
                f"({seconds / played * 1e3:.2f} ms per move), {size / 1024:.0f} KiB"
            )

    window = PygameDisplay(frame_time=0.0, hold=0)
    tic = time.perf_counter()
    played = game(options.layout, [window], moves)
    seconds = time.perf_counter() - tic
    window.close()
    bare = time.perf_counter()
    game(options.layout, [], moves)
    bare = time.perf_counter() - bare
    print(
        f"window at frame_time 0 ({os.environ['SDL_VIDEODRIVER']} driver): {played} moves in "
        f"{seconds:.2f} s vs {bare:.2f} s without it"
    )


if __name__ == "__main__":
    main()
