"""Engine events handled within a frame's budget, so a burst is spread over frames instead of freezing one.

Eight subagents starting or finishing at once publish hundreds of events in a few milliseconds; handled
in one go they made one frame of 50-80 ms (every key press waits for it). Here the UI handles events
until `FRAME_BUDGET_S` has passed, hands the rest back to the front of the inbox (order kept) and picks
them up again after the next frame is drawn (or, when they drew nothing, a few refreshes later): the screen is
drawn in between, and keys are read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.agent.events import BlockStarted, Event

    from .app import AgentApp

#: handler time per frame before the rest of a batch waits for the next refresh
FRAME_BUDGET_S = 0.006
#: the deferred events are drained by then even if the refresh's callback is lost
FALLBACK_S = 0.1
#: times a drain is put back after a refresh that drew no frame, before it takes it that the events drew nothing
MAX_HOPS = 4


def waiting_for_refresh(app: AgentApp) -> bool:
    """True while deferred events wait for the next refresh (a publisher's wake-up must not drain them first)."""
    return app._events_deferred


async def handle_within_budget(app: AgentApp, events: list[Event]) -> None:
    """Handle `events` in order; what is left when the budget is spent goes back to the inbox."""
    start = time.perf_counter()
    app.controller.batch = events  # what the handlers may look ahead in (finished_in_batch)
    for i, event in enumerate(events):
        await app.controller.handle(event)
        if i + 1 < len(events) and time.perf_counter() - start >= FRAME_BUDGET_S:
            defer(app, events[i + 1 :])
            return


def finished_in_batch(batch: list[Event], started: BlockStarted) -> bool:
    """Whether the block `started` opens also finishes later in `batch` (a reply that arrived within one frame)."""
    from tui.agent.events import BlockFinished

    after = next((i for i, event in enumerate(batch) if event is started), None)
    return after is not None and any(
        isinstance(event, BlockFinished)
        and (event.index, event.iteration, event.loop_path) == (started.index, started.iteration, started.loop_path)
        for event in batch[after + 1 :]
    )


def defer(app: AgentApp, rest: list[Event]) -> None:
    """Put `rest` before anything that arrived meanwhile and drain again after the next refresh."""
    from .events import EngineEvents

    with app._inbox_lock:
        app._inbox.extendleft(reversed(rest))
        app._wake_now = True  # a drain is scheduled: publishers need not wake the UI
    app._events_deferred = True
    frame = app.frames_drawn
    hops = 0

    def drain() -> None:
        if app._events_deferred:
            app._events_deferred = False
            app.post_message(EngineEvents())

    def after_refresh() -> None:
        # Textual runs this on the screen's idle, at once when nothing is dirty yet: the widgets these events
        # changed tell the screen so by messages still queued; the next events wait for the frame that shows them
        nonlocal hops
        if app._events_deferred and app.frames_drawn == frame and hops < MAX_HOPS:
            hops += 1
            app.call_after_refresh(after_refresh)
            return
        drain()

    app.call_after_refresh(after_refresh)
    app.set_timer(FALLBACK_S, drain)  # a screen popped before its refresh (a dialog answered) drops its callbacks


#: work kept for when the screen is quiet waits for this long without a frame drawn...
QUIET_S = 0.1
#: ...but no longer than this (a new turn streaming at once)
QUIET_LIMIT_S = 2.0


def when_quiet(app: AgentApp, callback: Callable[[], object]) -> None:
    """Run `callback` once QUIET_S has passed without a frame drawn (at the latest after QUIET_LIMIT_S).

    A turn's end is drawn over several frames (its markers, the frozen reply, the summary's layout);
    `call_after_refresh` ran the turn's collection at the screen's next idle, before the last of them,
    which it then delayed by the collection's 8-10 ms (subagents_profile).
    """
    start = time.monotonic()
    seen = app.frames_drawn

    def check() -> None:
        nonlocal seen
        if app.frames_drawn != seen and time.monotonic() - start < QUIET_LIMIT_S:
            seen = app.frames_drawn
            app.set_timer(QUIET_S, check)
            return
        callback()

    app.set_timer(QUIET_S, check)
