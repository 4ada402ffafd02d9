"""Requests from agent-tui to the Agent SDK program, and the answers that come back on stdin.

agent-tui asks the SDK three things: `can_use_tool` (a permission decision), `hook_callback` (a hook
written in Python) and `mcp_message` (a JSON-RPC message for an in-process MCP server). Each goes out
as a `control_request` line with a fresh `request_id`; the SDK's `control_response` with that id
resolves the request's Future. A request given up on (an interrupt, a timeout) is withdrawn with
`control_cancel_request`; when stdin ends, every request still waiting fails at once.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from typing import Any

from tui.headless.stream_input import InputLineError


class ControlError(Exception):
    """The SDK answered a request with an error; the message is the SDK's."""


class ChannelClosed(ControlError):
    """stdin ended before the SDK answered (the program closed its input or went away)."""


class ControlChannel:
    """The requests agent-tui has sent the SDK and is waiting on."""

    def __init__(self, emit: Callable[[dict[str, Any]], None]) -> None:
        self.emit = emit
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        #: request id -> (subtype, the Future its answer resolves)
        self._pending: dict[str, tuple[str, Future[dict[str, Any]]]] = {}
        #: ids answered or withdrawn (a late answer to one of them is ignored, not an error)
        self._finished: set[str] = set()
        self.closed: str | None = None
        #: called with the subtypes still waiting when stdin ended (tui/headless/sdk_control/__init__.py interrupts the turn)
        self.on_lost: Callable[[list[str]], None] | None = None

    def request(self, payload: dict[str, Any]) -> Future[dict[str, Any]]:
        """Send `payload` (its `subtype` and fields) as a control_request; the Future resolves with the `response`."""
        future: Future[dict[str, Any]] = Future()
        subtype = str(payload.get("subtype"))
        with self._lock:
            if self.closed is not None:
                future.set_exception(ChannelClosed(self.closed))
                return future
            request_id = f"agent_tui_{next(self._ids)}"
            self._pending[request_id] = (subtype, future)
        future.add_done_callback(lambda done: self._withdraw(request_id, done))
        self.emit({"type": "control_request", "request_id": request_id, "request": payload})
        return future

    def _withdraw(self, request_id: str, done: Future[dict[str, Any]]) -> None:
        """A request cancelled here (interrupt, timeout, a rule settled it) is withdrawn from the SDK too."""
        with self._lock:
            waiting = self._pending.pop(request_id, None) is not None
            self._finished.add(request_id)
        if waiting and done.cancelled() and self.closed is None:
            self.emit({"type": "control_cancel_request", "request_id": request_id})

    def on_response(self, obj: dict[str, Any], number: int) -> None:
        """A `control_response` line: resolves the request it answers (an input line handler)."""
        response = obj.get("response")
        request_id = response.get("request_id") if isinstance(response, dict) else None
        if not isinstance(response, dict) or not isinstance(request_id, str):
            raise InputLineError('a control_response needs a "response" object with a string "request_id"')
        with self._lock:
            entry = self._pending.pop(request_id, None)
            late = entry is None and request_id in self._finished
            self._finished.add(request_id)
        if entry is None:
            if late:
                return  # answered after it was withdrawn: nothing waits for it any more
            raise InputLineError(f"a control_response for {json.dumps(request_id)}, which agent-tui never sent")
        subtype, future = entry
        kind = response.get("subtype")
        try:  # a request cancelled this very moment takes no answer
            if kind == "success":
                answer = response.get("response")
                future.set_result(answer if isinstance(answer, dict) else {})
            elif kind == "error":
                future.set_exception(ControlError(str(response.get("error") or f"the {subtype} request failed")))
            else:
                future.set_exception(
                    ControlError(f"the answer to {subtype} had subtype {json.dumps(kind)} (expected success or error)")
                )
        except InvalidStateError:
            pass

    def close(self, reason: str) -> None:
        """stdin ended: every request still waiting fails with `reason` (and `on_lost` hears which)."""
        with self._lock:
            self.closed = reason
            waiting = list(self._pending.values())
            self._pending.clear()
        for _, future in waiting:
            try:
                future.set_exception(ChannelClosed(reason))
            except InvalidStateError:
                pass
        lost = [subtype for subtype, _ in waiting]
        if lost and self.on_lost is not None:
            self.on_lost(lost)
