"""The inspector's data: one `ApiCall` per request the loop sent, built from engine events.

Plain data, no widgets: the panel renders from it lazily, tests read it directly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from tui.agent.events import (
    CacheMissed,
    CompactionFinished,
    Event,
    HookFinished,
    HookStarted,
    MessagesSteered,
    RequestCosted,
    RequestSent,
    ResponseFinished,
    ResponseStarted,
    RetryScheduled,
    StopReasonHandled,
)

#: the views of one call, in tab order; also the `<view>` part of exported file names
VIEWS = ("request", "response", "sse", "diff", "cost")


@dataclass
class ApiCall:
    """One API request and, once it arrives, its response."""

    number: int  # 1-based position in the session
    iteration: int
    attempt: int
    model: str
    body: dict[str, Any]
    sent_at: float
    message_id: str | None = None
    request_id: str | None = None
    ttfb_ms: int | None = None
    message: dict[str, Any] | None = None
    stop_reason: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    raw_events: tuple[tuple[float, str, dict[str, Any]], ...] = ()
    duration_ms: int | None = None
    cost_usd: float | None = None
    action: str | None = None  # what the loop did with the stop_reason
    retry_reason: str | None = None  # set when this attempt failed and a retry was scheduled
    hooks: list[dict[str, Any]] = field(default_factory=list)  # hooks run after this response: exact stdin/stdout
    version: int = 0  # bumped on every change, so views know when to rebuild
    loop_path: str = "main"  # the loop that sent it: `main`, or a subagent's `main/<alias>`
    #: what it cost, by token kind and by part of the request (tui.agent.cost.cost.RequestCost.to_dict())
    cost: dict[str, Any] | None = None
    #: a compaction's summary request (iteration 0): the summary, its plan and what it dropped
    compaction: dict[str, Any] | None = None

    @property
    def is_compaction(self) -> bool:
        return self.iteration == 0

    @property
    def cache_miss(self) -> dict[str, Any] | None:
        return (self.cost or {}).get("cache_miss")

    steered: tuple[str, ...] = ()  # messages the user queued that joined this request (tui/agent/loop/steer.py)

    @property
    def finished(self) -> bool:
        return self.message is not None

    @property
    def status(self) -> str:
        """The stop_reason, or what the call is doing / why it failed."""
        if self.stop_reason:
            return "compaction" if self.is_compaction else self.stop_reason
        if self.retry_reason:
            return f"retry: {self.retry_reason}"
        if self.message is not None:
            return "-"
        return "streaming" if self.message_id else "waiting"

    @property
    def input_tokens(self) -> int:
        """All prompt tokens: uncached + cache reads + cache writes."""
        u = self.usage
        return (
            int(u.get("input_tokens") or 0)
            + int(u.get("cache_read_input_tokens") or 0)
            + int(u.get("cache_creation_input_tokens") or 0)
        )

    @property
    def output_tokens(self) -> int:
        return int(self.usage.get("output_tokens") or 0)

    @property
    def cache_hit_share(self) -> float | None:
        """Share of prompt tokens read from the cache, or None before usage is known."""
        total = self.input_tokens
        if not total:
            return None
        return int(self.usage.get("cache_read_input_tokens") or 0) / total

    def response_view(self) -> dict[str, Any]:
        """The Response view as JSON: the assembled message plus usage and timings."""
        return {
            "stop_reason": self.stop_reason,
            "usage": self.usage,
            "message": self.message,
            "request_id": self.request_id,
            "ttfb_ms": self.ttfb_ms,
            "duration_ms": self.duration_ms,
            "cost_usd": self.cost_usd,
            "action": self.action,
            **({"compaction": self.compaction} if self.compaction else {}),
            **({"hooks": self.hooks} if self.hooks else {}),
        }

    def sse_view(self) -> list[dict[str, Any]]:
        """The SSE view as JSON: one object per raw event."""
        return [{"t": round(t, 3), "type": kind, "data": data} for t, kind, data in self.raw_events]


#: calls whose request body and raw SSE events stay in memory (older ones keep their summary and response:
#: each body holds the whole history, so a long day kept hundreds of megabytes; the transcript has them all)
KEEP_FULL_CALLS = 100
#: calls the inspector keeps at all (its list scrolls through them); older ones leave, and the panel says how
#: many are only in the transcript. A retired call still held its response, usage and cost: a day kept thousands
KEEP_CALLS = 500


def retired_body(number: int) -> dict[str, Any]:
    """What the Request view shows for a call whose body is no longer held."""
    return {
        "note": f"Request #{number} is no longer held in memory (the inspector keeps the last "
        f"{KEEP_FULL_CALLS} in full); the session's transcript has it."
    }


class InspectorModel:
    """The list of API calls of a session, fed one engine event at a time."""

    def __init__(self, keep: int = KEEP_CALLS) -> None:
        #: the newest `keep` calls, oldest first; a call's number stays its place in the session
        self.calls: list[ApiCall] = []
        self.keep = keep
        #: calls sent before the oldest kept one, no longer held
        self.dropped = 0
        #: hooks that ran before the first request (SessionStart, UserPromptSubmit): shown with it
        self._early_hooks: list[dict[str, Any]] = []
        #: queued messages steered into the request about to be sent
        self._steered: tuple[str, ...] = ()

    def clear(self) -> None:
        self.calls.clear()
        self.dropped = 0

    def get(self, number: int) -> ApiCall | None:
        """Call `number` (1-based, in the session), or None when it was dropped or never sent."""
        index = number - self.dropped - 1
        return self.calls[index] if 0 <= index < len(self.calls) else None

    @property
    def count(self) -> int:
        """Calls sent in the session (kept or not)."""
        return self.dropped + len(self.calls)

    def previous(self, call: ApiCall) -> ApiCall | None:
        """The call the same loop sent just before `call` (what its Diff view compares against)."""
        for earlier in reversed(self.calls[: max(call.number - self.dropped - 1, 0)]):
            if earlier.loop_path == call.loop_path:
                return earlier
        return None

    def loop_paths(self) -> list[str]:
        """Every loop path that sent a call: main first, then the subagents' by name."""
        return sorted({call.loop_path for call in self.calls}, key=lambda path: (path != "main", path))

    def record(self, event: Event) -> ApiCall | None:
        """Apply one event; return the call it changed (None for unrelated events)."""
        if isinstance(event, RequestSent):
            sent = ApiCall(
                number=self.count + 1,
                iteration=event.iteration,
                attempt=event.attempt,
                model=event.model,
                body=event.body,
                sent_at=event.ts or time.time(),
                loop_path=event.loop_path,
            )
            sent.hooks, self._early_hooks = self._early_hooks, []
            if event.loop_path == "main":
                sent.steered, self._steered = self._steered, ()
            self.calls.append(sent)
            if len(self.calls) > KEEP_FULL_CALLS:
                old = self.calls[-KEEP_FULL_CALLS - 1]
                old.body, old.raw_events = retired_body(old.number), ()
                old.version += 1
            extra = len(self.calls) - self.keep
            if extra > 0:
                del self.calls[:extra]
                self.dropped += extra
            return sent
        if isinstance(event, MessagesSteered):
            self._steered = event.texts
            return None
        if isinstance(event, (HookStarted, HookFinished)):
            return self._record_hook(event)
        call = self._latest(getattr(event, "iteration", None), event.loop_path)
        if call is None:
            return None
        if isinstance(event, ResponseStarted):
            call.message_id = event.message_id
            call.request_id = event.request_id
            call.ttfb_ms = event.ttfb_ms
        elif isinstance(event, ResponseFinished):
            call.message = event.message
            call.stop_reason = event.stop_reason
            call.usage = dict(event.usage or {})
            call.raw_events = tuple(event.raw_events)
            call.request_id = event.request_id or call.request_id
            call.ttfb_ms = event.ttfb_ms
            call.duration_ms = event.duration_ms
            call.cost_usd = event.cost_usd
        elif isinstance(event, StopReasonHandled):
            call.action = event.action
        elif isinstance(event, RetryScheduled):
            call.retry_reason = event.reason + (f" ({event.status})" if event.status else "")
        elif isinstance(event, RequestCosted):
            call.cost = event.cost
        elif isinstance(event, CacheMissed):
            if call.cost is not None and call.cost.get("cache_miss") is None:  # normally within `cost` already
                call.cost = {
                    **call.cost,
                    "cache_miss": {"cause": event.cause, "text": event.text, "lost_tokens": event.lost_tokens},
                }
        elif isinstance(event, CompactionFinished):
            if not call.is_compaction or not event.ok:
                return None
            call.compaction = {
                "summary": event.summary,
                "plan": event.plan,
                "dropped": list(event.dropped),
                "messages_before": event.messages_before,
                "messages_after": event.messages_after,
            }
        else:
            return None
        call.version += 1
        return call

    def _record_hook(self, event: HookStarted | HookFinished) -> ApiCall | None:
        """A hook's exact input and output, kept with the response it followed."""
        call = self.calls[-1] if self.calls else None
        hooks = call.hooks if call is not None else self._early_hooks
        if isinstance(event, HookStarted):
            hooks.append(
                {
                    "hook": event.hook_name,
                    "command": event.command,
                    "source": event.source,
                    "tool_use_id": event.tool_use_id,
                    "stdin": event.stdin,
                    "hook_id": event.hook_id,
                }
            )
        else:
            for entry in [*hooks, *self._early_hooks]:
                if entry.get("hook_id") == event.hook_id:
                    entry.update(
                        exit_code=event.exit_code,
                        outcome=event.outcome,
                        decision=event.decision,
                        duration_ms=event.duration_ms,
                        stdout=event.stdout,
                        stderr=event.stderr,
                    )
        if call is not None:
            call.version += 1
        return call

    def _latest(self, iteration: int | None, loop_path: str = "main") -> ApiCall | None:
        """The newest call of `loop_path`, if it belongs to `iteration` (events carry no call number)."""
        call = next((c for c in reversed(self.calls) if c.loop_path == loop_path), None)
        if call is None:
            return None
        if iteration is not None and call.iteration != iteration:
            return None
        return call
