"""The inspector's events from before it is first opened, kept light: only the newest calls keep their
request body and raw SSE events (each body holds the whole history; a long day's would be hundreds of MB)."""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import Any


class InspectorBacklog:
    """Request/response events waiting for the inspector, the oldest calls' heavy parts replaced by a note."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        #: indices of events that carry a request body or raw SSE events, oldest first
        self._heavy: deque[int] = deque()
        self._retired_requests = 0

    def add(self, event: Any) -> None:
        from .widgets.inspector.model import KEEP_FULL_CALLS, retired_body

        self.events.append(event)
        if type(event).__name__ not in ("RequestSent", "ResponseFinished"):
            return
        self._heavy.append(len(self.events) - 1)
        if len(self._heavy) <= 2 * KEEP_FULL_CALLS:  # a request and its response per call
            return
        index = self._heavy.popleft()
        old = self.events[index]
        if type(old).__name__ == "RequestSent":
            self._retired_requests += 1
            self.events[index] = dataclasses.replace(old, body=retired_body(self._retired_requests))
        else:
            self.events[index] = dataclasses.replace(old, raw_events=())

    def take(self) -> list[Any]:
        """Every event kept, in order; the backlog is empty afterwards."""
        events, self.events = self.events, []
        self._heavy.clear()
        return events
