"""Thread-safe, ordered publish/subscribe for loop events.

Every subscriber sees every event in one global order (publishing takes a lock and
stamps a sequence number). A subscriber is either *inline* (called on the publishing
thread: only for handlers that are cheap and never block, like Textual's
`post_message`) or *queued* (its own daemon thread drains a queue), so a slow
subscriber never stalls the loop.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from . import Event

log = logging.getLogger(__name__)

Handler = Callable[[Event], Any]
_STOP = object()


class _QueuedSubscriber:
    def __init__(self, handler: Handler, name: str, skip: tuple[type[Event], ...]) -> None:
        self.handler = handler
        self.skip = skip
        self.queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.pending = 0
        self.idle = threading.Condition()
        self.thread = threading.Thread(target=self._run, name=f"bus-{name}", daemon=True)
        self.thread.start()

    def put(self, event: Event) -> None:
        with self.idle:
            self.pending += 1
        self.queue.put(event)

    def _run(self) -> None:
        while True:
            item = self.queue.get()
            if item is _STOP:
                return
            try:
                self.handler(item)
            except Exception:  # a broken subscriber must not take the bus down
                log.exception("bus subscriber %r failed", self.handler)
            finally:
                with self.idle:
                    self.pending -= 1
                    if self.pending == 0:
                        self.idle.notify_all()

    def wait_idle(self, timeout: float | None) -> bool:
        with self.idle:
            return self.idle.wait_for(lambda: self.pending == 0, timeout)

    def stop(self) -> None:
        self.queue.put(_STOP)


class Subscription:
    """Handle returned by `EventBus.subscribe`; call `close()` to unsubscribe."""

    def __init__(self, bus: EventBus, key: int) -> None:
        self._bus = bus
        self._key = key

    def close(self) -> None:
        self._bus._unsubscribe(self._key)


class EventBus:
    """Ordered fan-out of events to inline and queued subscribers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys = itertools.count()
        self._inline: dict[int, Handler] = {}
        self._queued: dict[int, _QueuedSubscriber] = {}
        self.published = 0

    def subscribe(
        self, handler: Handler, *, inline: bool = False, name: str = "sub", skip: tuple[type[Event], ...] = ()
    ) -> Subscription:
        """Register `handler`. Inline handlers run on the publishing thread, under the bus lock.

        `skip` names event types the handler never wants (per-token deltas, say), so a queued
        subscriber's thread is not woken for each of them.
        """
        with self._lock:
            key = next(self._keys)
            if inline:
                self._inline[key] = handler
            else:
                self._queued[key] = _QueuedSubscriber(handler, name, skip)
        return Subscription(self, key)

    def _unsubscribe(self, key: int) -> None:
        with self._lock:
            self._inline.pop(key, None)
            sub = self._queued.pop(key, None)
        if sub is not None:
            sub.stop()

    def publish(self, event: Event) -> None:
        """Deliver `event` to every subscriber, in the same order for all of them."""
        with self._lock:
            self.published += 1
            for handler in self._inline.values():
                try:
                    handler(event)
                except Exception:
                    log.exception("inline bus subscriber %r failed", handler)
            for sub in self._queued.values():
                if not (sub.skip and isinstance(event, sub.skip)):
                    sub.put(event)

    def flush(self, timeout: float | None = 10.0) -> bool:
        """Wait until every queued subscriber has handled what was published so far."""
        with self._lock:
            subs = list(self._queued.values())
        return all(sub.wait_idle(timeout) for sub in subs)

    def close(self) -> None:
        with self._lock:
            subs = list(self._queued.values())
            self._queued.clear()
            self._inline.clear()
        for sub in subs:
            sub.stop()
