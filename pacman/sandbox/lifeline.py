"""What a worker's two threads share: the request's thread and the idle watcher's.

Each part has one guard: a request under way and a closed worker are Events, and why the
worker stopped is written under a lock, once: the first thread to see it stop names the
reason, and a later one only reads it.
"""

from __future__ import annotations

import threading


class Lifeline:
    """A worker's shared state: busy, closed, and why it stopped."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._why: str | None = None
        #: A request is under way (the idle watcher stands aside).
        self.busy = threading.Event()
        #: The worker is closed for good (the idle watcher ends).
        self.closed = threading.Event()

    @property
    def why(self) -> str | None:
        """Why the worker stopped, or None while it runs."""
        with self._lock:
            return self._why

    def end(self, why: str) -> str:
        """Record ``why`` the worker stopped unless a reason is recorded already; return the
        reason that stands."""
        with self._lock:
            if self._why is None:
                self._why = why
            return self._why
