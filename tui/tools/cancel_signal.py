"""An interrupt flag that says when it is raised, so a wait can end at once instead of polling it."""

from __future__ import annotations

import threading
from collections.abc import Callable


class CancelSignal(threading.Event):
    """A `threading.Event` that calls back whoever watches it the moment it is set (Esc, a stopped task)."""

    def __init__(self) -> None:
        super().__init__()
        self._watch_lock = threading.Lock()
        self._watchers: list[Callable[[], None]] = []

    def set(self) -> None:
        super().set()
        with self._watch_lock:
            watchers = list(self._watchers)
        for watcher in watchers:
            watcher()

    def watch(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` when the flag is set (at once if it is set already); returns what stops watching."""
        with self._watch_lock:
            self._watchers.append(callback)
        if self.is_set():
            callback()

        def unwatch() -> None:
            with self._watch_lock:
                if callback in self._watchers:
                    self._watchers.remove(callback)

        return unwatch
