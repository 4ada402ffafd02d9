"""Files agent-tui itself wrote, and when: the sandbox's sweep of protected paths leaves them alone.

A protected path that did not exist when a contained command started and exists after it is
removed (the command made it). While a long command runs (a background task), agent-tui may
make one itself (the first "always allow" writes `.agent-tui/settings.local.toml`); those stay.
"""

from __future__ import annotations

import os
import threading
import time

_lock = threading.Lock()
_writes: dict[str, float] = {}
#: entries kept, at most (the oldest go first)
MAX_KEPT = 1000


def note(path: str | os.PathLike[str]) -> None:
    """Remember that agent-tui wrote `path` now."""
    with _lock:
        _writes[os.path.abspath(path)] = time.monotonic()
        if len(_writes) > MAX_KEPT:
            for old in sorted(_writes, key=_writes.__getitem__)[: len(_writes) - MAX_KEPT]:
                del _writes[old]


def wrote_under(path: str, since: float) -> bool:
    """Whether agent-tui wrote `path`, or a file under it, after `since` (time.monotonic)."""
    prefix = path.rstrip("/") + "/"
    with _lock:
        return any(when >= since and (p == path or p.startswith(prefix)) for p, when in _writes.items())
