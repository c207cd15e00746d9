"""What the search asks of a state, as a type: the game's ``GameState``, a test's game-tree
state and the recording wrapper the tree views watch the search through all fit it."""

from __future__ import annotations

from typing import Protocol

__all__ = ["SearchState"]


class SearchState(Protocol):
    """The public state API the search uses, and nothing more (so a wrapper sees every call)."""

    def get_legal_actions(self, agent_index: int = 0) -> list[str]: ...

    def generate_successor(self, agent_index: int, action: str) -> SearchState: ...

    def is_win(self) -> bool: ...

    def is_lose(self) -> bool: ...

    def get_num_agents(self) -> int: ...
