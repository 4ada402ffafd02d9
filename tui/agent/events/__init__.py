"""The event vocabulary of the agent loop (docs/architecture.md).

Every moment of the loop is one frozen dataclass published on the bus. The app, the
headless renderer, the transcript writer and the tests all read the same events.
Order within one turn: TurnStarted, then per iteration RequestSent, ResponseStarted,
Block*, ResponseFinished, StopReasonHandled, Tool*/Permission*, ToolResultsSent; then
LoopStopped and finally TurnFinished.

One module per part of the vocabulary, each re-exported here by a plain import, so callers write
`from tui.agent.events import X` (or `import tui.agent.events as ev`) whichever module defines it:
`base` (Event and the `@_event` decorator), `loop`, `tools`, `permission`, `cost` (money and context)
and `parts` (MCP, subagents, tasks, questions, hooks, the sandbox, language servers, checkpoints).
"""

from __future__ import annotations

from .base import Event
from .cost import CacheMissed, CompactionProposed, MessagePinned, RequestCosted
from .loop import (
    STOP_REASONS,
    BlockDelta,
    BlockFinished,
    BlockStarted,
    CompactionFinished,
    CompactionStarted,
    ContextUsage,
    FileChangedOutside,
    LoopStopped,
    MessageQueued,
    MessagesSteered,
    Notice,
    RequestSent,
    ResponseFinished,
    ResponseStarted,
    RetryScheduled,
    StopReasonHandled,
    TodosUpdated,
    TurnFinished,
    TurnStarted,
)
from .parts import (
    BackgroundShellChanged,
    CheckpointSaved,
    DiagnosticsReported,
    HookEvent,
    HookFinished,
    HookStarted,
    LspProblem,
    McpMessage,
    McpServerChanged,
    SandboxBlocked,
    SubagentFinished,
    SubagentStarted,
    UserQuestionAsked,
)
from .permission import PermissionModeChanged, PermissionReply, PermissionRequested, PermissionResolved, rule_value
from .tools import LinesChanged, ToolFinished, ToolOutput, ToolQueued, ToolResultsSent, ToolStarted, ToolStatus

__all__ = [
    "STOP_REASONS",
    "BackgroundShellChanged",
    "BlockDelta",
    "BlockFinished",
    "BlockStarted",
    "CacheMissed",
    "CheckpointSaved",
    "CompactionFinished",
    "CompactionProposed",
    "CompactionStarted",
    "ContextUsage",
    "DiagnosticsReported",
    "Event",
    "FileChangedOutside",
    "HookEvent",
    "HookFinished",
    "HookStarted",
    "LinesChanged",
    "LoopStopped",
    "LspProblem",
    "McpMessage",
    "McpServerChanged",
    "MessagePinned",
    "MessageQueued",
    "MessagesSteered",
    "Notice",
    "PermissionModeChanged",
    "PermissionReply",
    "PermissionRequested",
    "PermissionResolved",
    "RequestCosted",
    "RequestSent",
    "ResponseFinished",
    "ResponseStarted",
    "RetryScheduled",
    "SandboxBlocked",
    "StopReasonHandled",
    "SubagentFinished",
    "SubagentStarted",
    "TodosUpdated",
    "ToolFinished",
    "ToolOutput",
    "ToolQueued",
    "ToolResultsSent",
    "ToolStarted",
    "ToolStatus",
    "TurnFinished",
    "TurnStarted",
    "UserQuestionAsked",
    "rule_value",
]
