"""The event vocabulary of the agent loop (DESIGN §4).

Every moment of the loop is one frozen dataclass published on the bus. The app, the
headless renderer, the transcript writer and the tests all read the same events.
Order within one turn: TurnStarted, then per iteration RequestSent, ResponseStarted,
Block*, ResponseFinished, StopReasonHandled, Tool*/Permission*, ToolResultsSent; then
LoopStopped and finally TurnFinished.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import dataclass, field, fields
from typing import Any, Literal

ToolStatus = Literal["done", "error", "denied", "interrupted"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event: a wall-clock timestamp and a JSON form."""

    ts: float = field(default_factory=time.time)

    @property
    def type(self) -> str:
        return type(self).__name__

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (futures and other live objects are left out)."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Future) or f.name.startswith("_"):
                continue
            out[f.name] = value
        return out


# --- the turn -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStarted(Event):
    turn_id: int
    prompt: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnFinished(Event):
    """Always the last event of a turn."""

    turn_id: int
    stop_reason: str
    is_error: bool
    num_iterations: int
    duration_ms: int
    usage: dict[str, int]  # input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens
    cost_usd: float
    session_usage: dict[str, int]
    session_cost_usd: float


# --- one API call ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestSent(Event):
    iteration: int
    attempt: int
    model: str
    body: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResponseStarted(Event):
    iteration: int
    message_id: str
    request_id: str | None
    ttfb_ms: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockStarted(Event):
    iteration: int
    index: int
    block_type: str
    tool_use_id: str | None = None
    tool_name: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockDelta(Event):
    """A piece of a content block: text, thinking, or a fragment of tool input JSON."""

    iteration: int
    index: int
    delta_type: str  # text_delta | thinking_delta | input_json_delta | signature_delta | citations_delta
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockFinished(Event):
    iteration: int
    index: int
    block: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResponseFinished(Event):
    """`message_stop` arrived: the assembled assistant message exactly as the API sent it."""

    iteration: int
    message: dict[str, Any]
    stop_reason: str | None
    usage: dict[str, Any]
    request_id: str | None
    ttfb_ms: int
    duration_ms: int
    cost_usd: float
    # raw SSE events as (seconds since the request was sent, event type, data dict)
    raw_events: tuple[tuple[float, str, dict[str, Any]], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class StopReasonHandled(Event):
    iteration: int
    stop_reason: str | None
    action: str  # "turn ends", "dispatching 3 tools, 3 in parallel", "cut by max_tokens", ...


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryScheduled(Event):
    iteration: int
    attempt: int  # the attempt that will run next (2 = first retry)
    max_attempts: int
    delay_s: float
    reason: str  # "overloaded", "rate limited", "connection dropped", "stream stalled", ...
    status: int | None = None


# --- tools ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolQueued(Event):
    tool_use_id: str
    name: str
    input: dict[str, Any]
    label: str
    batch: int
    parallel: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolStarted(Event):
    tool_use_id: str
    name: str
    batch: int
    parallel: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOutput(Event):
    """Live output of a running tool (Bash stdout/stderr)."""

    tool_use_id: str
    chunk: str
    stream: str = "stdout"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFinished(Event):
    tool_use_id: str
    name: str
    status: ToolStatus
    is_error: bool
    result_text: str
    duration_ms: int
    batch: int
    parallel: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionRequested(Event):
    """A gated tool needs a yes. The loop thread waits on `reply`.

    `reply` resolves to a PermissionReply (tui.agent.permission_gate); an interrupt
    resolves it as a denial.
    """

    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    label: str
    preview: dict[str, Any]  # {"kind": "diff"|"command"|"text", "text": ..., "path"/"cwd": ...}
    suggested_rule: str
    reason: str
    reply: Future = field(compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionResolved(Event):
    tool_use_id: str
    tool_name: str
    allowed: bool
    scope: str  # once | session | always | rule | mode | interrupted
    reason: str = ""
    rule: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultsSent(Event):
    iteration: int
    message: dict[str, Any]


# --- loop end and side channels -------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopStopped(Event):
    """The loop left. `reason` is one of STOP_REASONS below."""

    reason: str
    detail: str
    is_error: bool
    stop_reason: str | None = None  # the last API stop_reason, when there was one


STOP_REASONS = (
    "end_turn",
    "stop_sequence",
    "max_tokens",
    "refusal",
    "model_context_window_exceeded",
    "unknown_stop_reason",
    "interrupted",
    "no_progress",
    "budget",
    "max_turns",
    "api_error",
    "stream_failed",
    "tool_fatal",
    "error",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Notice(Event):
    """Something the user should read: offline model in use, a settings problem, a warning."""

    level: Literal["info", "warning", "error"]
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TodosUpdated(Event):
    todos: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class FileChangedOutside(Event):
    """A file the agent read changed on disk without the agent writing it."""

    path: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextUsage(Event):
    used_tokens: int
    window_tokens: int
    estimated: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionStarted(Event):
    automatic: bool
    used_tokens: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionFinished(Event):
    summary: str
    messages_before: int
    messages_after: int
    ok: bool
    detail: str = ""
