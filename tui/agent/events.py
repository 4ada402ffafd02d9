"""The event vocabulary of the agent loop (docs/architecture.md).

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
from typing import TYPE_CHECKING, Any, Literal, TypeVar, dataclass_transform

if TYPE_CHECKING:
    from .permission_gate import PermissionReply

_E = TypeVar("_E")

ToolStatus = Literal["done", "error", "denied", "interrupted"]


#: every event class: frozen, slotted, keyword-only. `repr` and `eq` come from `Event` instead of
#: being generated per class: dataclass compiles each generated method, and 25 classes × 6 methods
#: made this module ~20 ms of every start-up; with 3 per class it is about half.
@dataclass_transform(frozen_default=True, kw_only_default=True)
def _event(cls: type[_E]) -> type[_E]:
    return dataclass(frozen=True, slots=True, kw_only=True, repr=False, eq=False)(cls)


@_event
class Event:
    """Base of every event: a wall-clock timestamp, the loop path that emitted it and a JSON form.

    `loop_path` is `main` for the top loop and `main/<alias>` (deeper: `main/<a>/<b>`) for a subagent's;
    a subagent session stamps it on the events it publishes (tui/agent/subagents.py).
    """

    ts: float = field(default_factory=time.time)
    loop_path: str = "main"

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self))
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

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


# --- tools ----------------------------------------------------------------------------


@_event
class ToolQueued(Event):
    tool_use_id: str
    name: str
    input: dict[str, Any]
    label: str
    batch: int
    parallel: bool


@_event
class ToolStarted(Event):
    tool_use_id: str
    name: str
    batch: int
    parallel: bool


@_event
class ToolOutput(Event):
    """Live output of a running tool (Bash stdout/stderr)."""

    tool_use_id: str
    chunk: str
    stream: str = "stdout"


@_event
class ToolFinished(Event):
    tool_use_id: str
    name: str
    status: ToolStatus
    is_error: bool
    result_text: str
    duration_ms: int
    batch: int
    parallel: bool


@_event
class LinesChanged(Event):
    """An edit tool changed a file: the lines it added and removed (what Claude Code counts as lines of code)."""

    tool_use_id: str
    path: str
    added: int
    removed: int


@_event
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
    reply: Future[PermissionReply] = field(compare=False, repr=False)


@_event
class PermissionResolved(Event):
    tool_use_id: str
    tool_name: str
    allowed: bool
    scope: str  # once | session | always | rule | mode | interrupted
    reason: str = ""
    rule: str | None = None


@_event
class ToolResultsSent(Event):
    iteration: int
    message: dict[str, Any]


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
class PermissionModeChanged(Event):
    """The permission mode changed; `by` names who changed it (Shift+Tab, ACP, the Agent SDK, a hook...)."""

    mode: str
    previous: str
    by: str


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


#: events defined in cost_events.py and part_events.py, reachable from here like the others (ev.CacheMissed)
_COST_EVENTS = frozenset({"CacheMissed", "CompactionProposed", "MessagePinned", "RequestCosted"})
_PART_EVENTS = frozenset(
    {
        "McpServerChanged",
        "McpMessage",
        "SubagentStarted",
        "SubagentFinished",
        "BackgroundShellChanged",
        "UserQuestionAsked",
        "HookEvent",
        "HookStarted",
        "HookFinished",
        "SandboxBlocked",
        "DiagnosticsReported",
        "LspProblem",
        "CheckpointSaved",
    }
)


def __getattr__(name: str) -> Any:
    if name in _COST_EVENTS:  # looked up lazily: cost_events imports this module
        from . import cost_events

        return getattr(cost_events, name)
    if name in _PART_EVENTS:  # the same for part_events
        from . import part_events

        return getattr(part_events, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
