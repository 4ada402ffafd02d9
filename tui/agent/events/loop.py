"""The loop's own events: a turn, each API call and its stream, queued messages, the loop's end and its side
channels (notices, todos, files changed outside, context, compaction)."""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal

from .base import Event, _event

# --- the turn -------------------------------------------------------------------------


@_event
class TurnStarted(Event):
    turn_id: int
    prompt: str
    #: images sent with the prompt (tui.tools.attachments.Attachment.image_entry): the API block, name and sizes
    images: tuple[dict[str, Any], ...] = ()


@_event
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


@_event
class RequestSent(Event):
    iteration: int
    attempt: int
    model: str
    body: dict[str, Any]


@_event
class ResponseStarted(Event):
    iteration: int
    message_id: str
    request_id: str | None
    ttfb_ms: int


@_event
class BlockStarted(Event):
    iteration: int
    index: int
    block_type: str
    tool_use_id: str | None = None
    tool_name: str | None = None


@_event
class BlockDelta(Event):
    """A piece of a content block: text, thinking, or a fragment of tool input JSON."""

    iteration: int
    index: int
    delta_type: str  # text_delta | thinking_delta | input_json_delta | signature_delta | citations_delta
    text: str


@_event
class BlockFinished(Event):
    iteration: int
    index: int
    block: dict[str, Any]


@_event
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


@_event
class StopReasonHandled(Event):
    iteration: int
    stop_reason: str | None
    action: str  # "turn ends", "dispatching 3 tools, 3 in parallel", "cut by max_tokens", ...


@_event
class RetryScheduled(Event):
    iteration: int
    attempt: int  # the attempt that will run next (2 = first retry)
    max_attempts: int
    delay_s: float
    reason: str  # "overloaded", "rate limited", "connection dropped", "stream stalled", ...
    status: int | None = None


@_event
class MessageQueued(Event):
    """The user sent a message while a turn runs; it waits in the session's inbox (`count` wait now)."""

    text: str
    count: int
    source: str = "prompt"  # prompt | stream-json


@_event
class MessagesSteered(Event):
    """Queued messages joined request `iteration` of the running turn, as text blocks after its tool results."""

    iteration: int
    texts: tuple[str, ...]


# --- loop end and side channels -------------------------------------------------------


@_event
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
    "max_budget_usd",  # --max-budget-usd (Claude Code's result subtype error_max_budget_usd)
    "max_turns",
    "api_error",
    "credentials",  # the provider's credentials could not be had (a missing AWS profile, no key): -p exits 2
    "stream_failed",
    "tool_fatal",
    "context_full",
    "hook_blocked",  # a UserPromptSubmit hook blocked the prompt
    "hook_stopped",  # a hook said `continue: false`
    "error",
)


@_event
class Notice(Event):
    """Something the user should read: offline model in use, a settings problem, a warning."""

    level: Literal["info", "warning", "error"]
    text: str


@_event
class TodosUpdated(Event):
    todos: tuple[dict[str, Any], ...]


@_event
class FileChangedOutside(Event):
    """A file the agent read changed on disk without the agent writing it."""

    path: str


@_event
class ContextUsage(Event):
    used_tokens: int
    window_tokens: int
    estimated: bool


@_event
class CompactionStarted(Event):
    automatic: bool
    used_tokens: int


@_event
class CompactionFinished(Event):
    """A compaction ended; when `ok`, `dropped` says what the summary replaced (compaction.py)."""

    summary: str
    messages_before: int
    messages_after: int
    ok: bool
    detail: str = ""
    #: what was summarised and kept: turn ranges, message and token counts, pins (compaction.compaction_plan)
    plan: dict[str, Any] = field(default_factory=dict)
    #: one entry per message summarised away: {"index", "role", "text" (an excerpt), "tokens"}
    dropped: tuple[dict[str, Any], ...] = ()
    #: the user interrupted it (Esc, Ctrl+C): the history is unchanged, and the turn ends as interrupted
    interrupted: bool = False
