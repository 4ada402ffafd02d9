"""Threads started while Textual captures `print` keep that capture, and the app with it.

`threading.Thread` stores the `sys.stderr` of its creation (for its excepthook when `sys.stderr` is gone
later). Started while the app runs, that is Textual's print capture, which holds the app: every widget,
drawn strip and cache stays alive as long as the thread object does (the engine's idle pool workers, the
session's last turn thread), after the app has closed.
"""

from __future__ import annotations

import sys
import threading
from typing import Any


def release_app_streams(app: Any) -> int:
    """Point the threads that keep `app`'s print capture at the process's own stderr; how many did."""
    released = 0
    for thread in threading.enumerate():
        stream = getattr(thread, "_stderr", None)
        if stream is not None and getattr(stream, "app", None) is app:
            thread._stderr = sys.__stderr__  # type: ignore[attr-defined]
            released += 1
    return released
