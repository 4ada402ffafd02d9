"""Handing work from a thread to the UI thread without ever waiting for it.

Textual's `call_from_thread` blocks the calling thread until the callback has run. A worker
thread that calls it while the app is shutting down waits for a loop that will never run the
callback, and since worker threads are joined at interpreter exit the whole process hangs.
Everything here is fire-and-forget: it returns False when the app can no longer take it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message_pump import MessagePump


def call_soon_from_thread(target: MessagePump, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
    """Run `callback(*args, **kwargs)` on `target`'s message loop soon; False if it is closing or closed."""
    try:
        return target.call_later(callback, *args, **kwargs)  # post_message is thread-safe
    except RuntimeError:  # the event loop has already closed
        return False
