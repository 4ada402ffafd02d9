"""The engine's events on their way to the UI thread: queued by the bus subscriber, drained in batches.

A mixin of `AgentApp` (app.py), kept apart so that file stays about composition and routing.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING, Any, cast

from . import gc_tuning

if TYPE_CHECKING:
    from tui.agent.events import Event

    from .app import AgentApp
    from .events import EngineEvent, EngineEvents

#: streamed deltas are handed to the UI thread in batches at most this far apart
DELTA_BATCH_S = 1 / 60
#: ...and this far apart after a batch of more than FAST_BATCH_EVENTS (thousands of deltas a second:
#: no model streams that fast, a replay or a benchmark can; the reply is then drawn every 0.25-0.5 s)
FAST_DELTA_BATCH_S = 0.1
FAST_BATCH_EVENTS = 50


class EngineInbox:
    """AgentApp's bus subscriber and the handlers that drain what it queued (it holds `_inbox` and its lock)."""

    _inbox: deque[Event]
    _inbox_lock: threading.Lock
    _wake_now: bool
    _wake_later: bool
    _delta_batch_s: float
    _delta_type: type
    _wake_message: type[EngineEvents] | None
    _loop: Any

    post_message: Any  # App.post_message

    @property
    def _app(self) -> AgentApp:
        """This mixin as the app it is part of (for the helpers typed on AgentApp)."""
        return cast("AgentApp", self)

    def _forward(self, event: Event) -> None:
        """Bus subscriber, called on the loop thread: queue the event for the UI thread.

        The UI drains the inbox in one go, so only an event that finds no drain scheduled
        wakes the UI thread. Text and JSON deltas wait up to `DELTA_BATCH_S` for company:
        at full streaming speed that is ~60 wake-ups a second instead of one per token (a
        wake-up costs both threads ~0.1 ms and the GIL hand-over more). Any other event
        (a tool starting, a permission request) wakes the UI at once.
        """
        gc_tuning.collect_young_early()  # on this (the engine's) thread, not inside a UI frame
        urgent = not isinstance(event, self._delta_type)
        if not urgent and event.loop_path != "main":
            return  # a subagent's text is not shown as it streams (its tool calls are)
        with self._inbox_lock:
            self._inbox.append(event)
            if self._wake_now or (self._wake_later and not urgent):
                return
            if urgent:
                self._wake_now = True
            else:
                self._wake_later = True
        wake = self._wake_message
        assert wake is not None  # set before the subscription that calls this
        if urgent:
            self.post_message(wake())
        elif self._loop is not None:
            try:
                self._loop.call_soon_threadsafe(self._loop.call_later, self._delta_batch_s, self.post_message, wake())
            except RuntimeError:  # the app's loop closed while the engine was still publishing
                pass

    async def on_engine_events(self, message: EngineEvents) -> None:
        from .events import coalesce_deltas
        from .frame_budget import handle_within_budget, waiting_for_refresh

        if waiting_for_refresh(self._app):
            return  # the rest of a burst: drained after the next refresh, with these
        with self._inbox_lock:
            batch = list(self._inbox)
            self._inbox.clear()
            self._wake_now = self._wake_later = False  # events from now on wake the UI again
            self._delta_batch_s = FAST_DELTA_BATCH_S if len(batch) > FAST_BATCH_EVENTS else DELTA_BATCH_S
        await handle_within_budget(self._app, coalesce_deltas(batch))  # a burst is spread over frames

    async def on_engine_event(self, message: EngineEvent) -> None:
        await self._app.controller.handle(message.event)
