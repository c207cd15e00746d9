"""CS188's ``util`` names for student code: distances, ``Counter``, containers, sampling.

Written for this project from the documented behaviour of CS188's module:
``Counter`` is a dict whose missing keys read as 0, ``lookup`` finds a name in
a namespace or among loaded modules, ``raiseNotDefined`` marks unwritten code.
"""

from __future__ import annotations

import heapq
import inspect
import os
import random
import sys
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "Counter",
    "FixedRandom",
    "PriorityQueue",
    "PriorityQueueWithFunction",
    "Queue",
    "Stack",
    "arrayInvert",
    "chooseFromDistribution",
    "flipCoin",
    "getProbability",
    "lookup",
    "manhattanDistance",
    "matrixAsList",
    "nSample",
    "nearestPoint",
    "normalize",
    "raiseNotDefined",
    "sample",
    "sampleFromCounter",
    "sign",
]


def manhattanDistance(xy1: Iterable[float], xy2: Iterable[float]) -> float:
    """|x1 - x2| + |y1 - y2|."""
    (x1, y1), (x2, y2) = xy1, xy2
    return abs(x1 - x2) + abs(y1 - y2)


def nearestPoint(pos: tuple[float, float]) -> tuple[int, int]:
    """The grid point nearest to a position (halves round up, as in CS188)."""
    x, y = pos
    return int(x + 0.5), int(y + 0.5)


def sign(x: float) -> int:
    """1 for x >= 0, else -1 (CS188's convention: sign(0) is 1)."""
    return 1 if x >= 0 else -1


class Stack:
    """Last in, first out."""

    def __init__(self) -> None:
        self.list: list[Any] = []

    def push(self, item: Any) -> None:
        self.list.append(item)

    def pop(self) -> Any:
        return self.list.pop()

    def isEmpty(self) -> bool:
        return not self.list


class Queue:
    """First in, first out."""

    def __init__(self) -> None:
        self.list: list[Any] = []

    def push(self, item: Any) -> None:
        self.list.insert(0, item)

    def pop(self) -> Any:
        return self.list.pop()

    def isEmpty(self) -> bool:
        return not self.list


class PriorityQueue:
    """Lowest priority first; equal priorities leave in insertion order."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, Any]] = []
        self.count = 0

    def push(self, item: Any, priority: float) -> None:
        heapq.heappush(self.heap, (priority, self.count, item))
        self.count += 1

    def pop(self) -> Any:
        return heapq.heappop(self.heap)[2]

    def isEmpty(self) -> bool:
        return not self.heap

    def update(self, item: Any, priority: float) -> None:
        """Lower ``item``'s priority (or push it); a higher priority is ignored."""
        for index, (old, count, present) in enumerate(self.heap):
            if present == item:
                if old <= priority:
                    return
                self.heap[index] = (priority, count, item)
                heapq.heapify(self.heap)
                return
        self.push(item, priority)


class PriorityQueueWithFunction(PriorityQueue):
    """A priority queue whose priorities come from a function of the item."""

    def __init__(self, priorityFunction: Callable[[Any], float]) -> None:
        super().__init__()
        self.priorityFunction = priorityFunction

    def push(self, item: Any, priority: float | None = None) -> None:
        super().push(item, self.priorityFunction(item) if priority is None else priority)


class Counter(dict):
    """A dict of numbers whose missing keys read as 0 (reading one stores it, as in CS188)."""

    def __getitem__(self, key: Any) -> Any:
        self.setdefault(key, 0)
        return dict.__getitem__(self, key)

    def incrementAll(self, keys: Iterable[Any], count: float) -> None:
        for key in keys:
            self[key] += count

    def argMax(self) -> Any:
        """The key with the largest value (the first such key); None when empty."""
        if not self:
            return None
        best_key, best_value = None, None
        for key, value in self.items():
            if best_value is None or value > best_value:
                best_key, best_value = key, value
        return best_key

    def sortedKeys(self) -> list[Any]:
        """Keys by decreasing value."""
        return [key for key, _ in sorted(self.items(), key=lambda kv: kv[1], reverse=True)]

    def totalCount(self) -> float:
        return sum(self.values())

    def normalize(self) -> None:
        """Scale the values in place so they sum to 1 (nothing happens when they sum to 0)."""
        total = float(self.totalCount())
        if total == 0:
            return
        for key in list(self):
            self[key] = self[key] / total

    def divideAll(self, divisor: float) -> None:
        divisor = float(divisor)
        for key in list(self):
            self[key] /= divisor

    def copy(self) -> Counter:
        return Counter(dict.copy(self))

    def __mul__(self, other: Counter) -> float:
        """Dot product over the keys both hold."""
        small, large = (self, other) if len(self) <= len(other) else (other, self)
        return sum(value * large[key] for key, value in small.items() if key in large)

    def __radd__(self, other: Counter) -> Counter:
        for key, value in other.items():
            self[key] += value
        return self

    def __add__(self, other: Counter) -> Counter:
        result = Counter()
        for key in set(self) | set(other):
            result[key] = self.get(key, 0) + other.get(key, 0)
        return result

    def __sub__(self, other: Counter) -> Counter:
        result = Counter()
        for key in set(self) | set(other):
            result[key] = self.get(key, 0) - other.get(key, 0)
        return result


def raiseNotDefined() -> None:
    """Mark code the student has not written yet: raises, naming the method and line."""
    caller = inspect.stack()[1]
    raise NotImplementedError(
        f"*** Method not implemented: {caller.function} at line {caller.lineno} "
        f"of {os.path.basename(caller.filename)}"
    )


def normalize(vectorOrCounter: Any) -> Any:
    """A normalised copy of a Counter or a list of numbers."""
    if isinstance(vectorOrCounter, Counter):
        result = Counter()
        total = float(vectorOrCounter.totalCount())
        if total == 0:
            return vectorOrCounter
        for key, value in vectorOrCounter.items():
            result[key] = value / total
        return result
    total = float(sum(vectorOrCounter))
    if total == 0:
        return vectorOrCounter
    return [value / total for value in vectorOrCounter]


def nSample(distribution: list[float], values: list[Any], n: int) -> list[Any]:
    if sum(distribution) != 1:
        distribution = normalize(distribution)
    draws = sorted(random.random() for _ in range(n))
    samples, index, running = [], 0, distribution[0]
    for draw in draws:
        while draw >= running:
            index += 1
            running += distribution[index]
        samples.append(values[index])
    return samples


def sample(distribution: Any, values: list[Any] | None = None) -> Any:
    """One draw from a distribution (a Counter, or weights with their values)."""
    if isinstance(distribution, Counter):
        items = sorted(distribution.items())
        distribution = [weight for _, weight in items]
        values = [key for key, _ in items]
    if sum(distribution) != 1:
        distribution = normalize(distribution)
    assert values is not None
    draw = random.random()
    index, running = 0, distribution[0]
    while draw > running:
        index += 1
        running += distribution[index]
    return values[index]


def sampleFromCounter(ctr: Counter) -> Any:
    items = sorted(ctr.items())
    return sample([weight for _, weight in items], [key for key, _ in items])


def getProbability(value: Any, distribution: list[float], values: list[Any]) -> float:
    return sum(prob for prob, val in zip(distribution, values, strict=False) if val == value)


def flipCoin(p: float) -> bool:
    return random.random() < p


def chooseFromDistribution(distribution: Any) -> Any:
    """A draw from a dict/Counter of weights, or from a list of (weight, value) pairs."""
    if isinstance(distribution, (dict, Counter)):
        return sample(Counter(distribution))
    draw = random.random()
    base = 0.0
    for prob, element in distribution:
        base += prob
        if draw <= base:
            return element
    return distribution[-1][1]


def arrayInvert(array: list[list[Any]]) -> list[list[Any]]:
    """The transpose of a list of equal-length lists."""
    return [list(column) for column in zip(*array, strict=False)]


def matrixAsList(matrix: Any, value: bool = True) -> list[tuple[int, int]]:
    """The (x, y) cells of a grid-like matrix equal to ``value``."""
    return [
        (x, y) for x in range(len(matrix)) for y in range(len(matrix[0])) if matrix[x][y] == value
    ]


def lookup(name: str, namespace: dict[str, Any]) -> Any:
    """The object called ``name`` (``module.attr`` or a bare name) in ``namespace`` or a loaded module."""
    if name.count(".") > 0:
        module_name, attr = name.rsplit(".", 1)
        module = __import__(module_name)
        return getattr(module, attr)
    if name in namespace:
        return namespace[name]
    found = [
        getattr(module, name)
        for module in list(sys.modules.values())
        if module is not None
        and getattr(module, "__file__", None)
        and name in getattr(module, "__dict__", {})
        and not name.startswith("_")
    ]
    if found:
        return found[0]
    raise Exception(f"{name} not found as a method or class")


class FixedRandom:
    """A ``random.Random`` with a fixed, documented starting state (seed 0)."""

    def __init__(self) -> None:
        self.random = random.Random(0)
