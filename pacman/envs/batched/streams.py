"""Each game's own random stream, drawn for a whole batch at once.

A stream is SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit counter advanced by a fixed odd
constant and hashed. Its state is one ``uint64`` a game, so a batch draws with a few array
operations and every game's draws depend only on its own seed and on how many times it drew,
never on the other games in the batch. A draw is 53 bits made a float in [0, 1), as
``random.random()`` makes its draws.

:class:`StreamRandom` is the same stream as a ``random.Random``: the object engine's ghosts
drawing from it choose exactly the moves a batched game's ghosts choose.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

import numpy as np

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
MIX_1 = 0xBF58476D1CE4E5B9
MIX_2 = 0x94D049BB133111EB
# Keeps a stream's start away from the raw seed, so seed 0 does not start at state 0.
SALT = 0x2545F4914F6CDD1D
TO_UNIT = 2.0**-53


def mix(value: int) -> int:
    """SplitMix64's output function of a 64-bit state."""
    value = (value ^ (value >> 30)) * MIX_1 & MASK
    value = (value ^ (value >> 27)) * MIX_2 & MASK
    return value ^ (value >> 31)


def start_state(seed: int) -> int:
    """The state a stream starts from for ``seed`` (any int; taken modulo 2**64)."""
    return mix((seed ^ SALT) & MASK)


class StreamRandom(random.Random):
    """``random.Random`` drawing a game's stream: ``random()`` gives what the batch draws.

    Only ``random()`` (and ``getrandbits``, from the same 64-bit outputs) are of the stream;
    hand it to ``RandomGhost(index, rng=...)`` or ``DirectionalGhost(index, rng=...)``.
    """

    def __init__(self, seed: int = 0) -> None:
        self._state = 0
        super().__init__(seed)

    def seed(self, a: object = None, version: int = 2) -> None:
        if a is None:
            a = random.SystemRandom().getrandbits(64)
        if not isinstance(a, int):
            raise TypeError(f"StreamRandom seeds are ints, not {type(a).__name__}")
        self._state = start_state(a)

    def next64(self) -> int:
        """The next 64-bit output."""
        self._state = (self._state + GAMMA) & MASK
        return mix(self._state)

    def random(self) -> float:
        return (self.next64() >> 11) * TO_UNIT

    def getrandbits(self, k: int) -> int:
        bits, have = 0, 0
        while have < k:
            bits |= self.next64() << have
            have += 64
        return bits & ((1 << k) - 1)

    def getstate(self) -> int:  # type: ignore[override]
        return self._state

    def setstate(self, state: int) -> None:  # type: ignore[override]
        self._state = int(state) & MASK


class Streams:
    """One stream per game, as a ``uint64`` array of states."""

    def __init__(self, count: int) -> None:
        self.state = np.zeros(count, dtype=np.uint64)
        self._work = np.zeros(count, dtype=np.uint64)
        self._shifted = np.zeros(count, dtype=np.uint64)
        self._out = np.zeros(count, dtype=np.float64)

    def seed(self, games: np.ndarray, seeds: Iterable[int]) -> None:
        """Start the streams of ``games`` (indices) from ``seeds`` (ints), as StreamRandom does."""
        self.state[games] = [start_state(int(seed)) for seed in seeds]

    def _advance(self, moving: np.ndarray | None) -> np.ndarray:
        """Step the states of the ``moving`` games (all if None); the hashed states."""
        state = self.state
        state += np.uint64(GAMMA)
        if moving is not None:
            state[~moving] -= np.uint64(GAMMA)
        z, shifted = self._work, self._shifted
        np.copyto(z, state)
        for shift, factor in ((30, MIX_1), (27, MIX_2)):
            np.right_shift(z, shift, out=shifted)
            z ^= shifted
            z *= np.uint64(factor)
        np.right_shift(z, 31, out=shifted)
        z ^= shifted
        return z

    def uniform(self, moving: np.ndarray | None = None) -> np.ndarray:
        """A draw in [0, 1) per game; only the ``moving`` games' streams advance (all if None).

        The games left out get a value too, to be ignored. The array is reused by the next call.
        """
        z = self._advance(moving)
        np.right_shift(z, 11, out=z)
        np.multiply(z, TO_UNIT, out=self._out)
        return self._out

    def words(self, games: np.ndarray) -> list[int]:
        """The next 64-bit output of each of ``games`` (indices), advancing only those."""
        moving = np.zeros(self.state.shape, dtype=bool)
        moving[games] = True
        return [int(value) for value in self._advance(moving)[games]]
