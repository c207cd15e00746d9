"""Per-move totals of a searching agent: the ``--stats`` line."""

from __future__ import annotations

__all__ = ["SearchStats"]


class SearchStats:
    """Totals over the moves an agent made: the ``--stats`` line."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Start counting afresh (the runner calls it before each game)."""
        self.moves = 0
        self.nodes = 0
        self.evaluations = 0
        self.seconds = 0.0
        self.max_seconds = 0.0
        self.depths: list[int] = []
        self.simulations: list[int] = []

    def add(
        self,
        nodes: int,
        evaluations: int,
        seconds: float,
        depth: int | None = None,
        simulations: int | None = None,
    ) -> None:
        """Count one move; ``depth`` is the depth reached, for agents whose depth varies, and
        ``simulations`` the playouts of a Monte Carlo agent."""
        self.moves += 1
        self.nodes += nodes
        self.evaluations += evaluations
        self.seconds += seconds
        self.max_seconds = max(self.max_seconds, seconds)
        if depth is not None:
            self.depths.append(depth)
        if simulations is not None:
            self.simulations.append(simulations)

    def summary(self) -> str:
        moves = max(self.moves, 1)
        rate = self.nodes / self.seconds if self.seconds > 0 else 0.0
        text = (
            f"{self.moves} moves, {self.nodes} nodes ({self.nodes / moves:.0f}/move), "
            f"{self.evaluations} evaluations, {self.seconds / moves * 1000:.1f} ms/move "
            f"(max {self.max_seconds * 1000:.1f} ms), {rate:.0f} nodes/s"
        )
        if self.depths:
            mean = sum(self.depths) / len(self.depths)
            text += f", depth {mean:.1f} on average ({min(self.depths)}-{max(self.depths)})"
        if self.simulations:
            mean = sum(self.simulations) / len(self.simulations)
            text += (
                f", {mean:.0f} simulations/move ({min(self.simulations)}-{max(self.simulations)})"
            )
        return text
