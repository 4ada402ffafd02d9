"""Events of the parts beside the loop: MCP servers, subagents, background tasks, questions to the user,
hooks, the sandbox and checkpoints.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import field
from typing import Any

from .base import Event, _event

# --- MCP (tui/mcp) --------------------------------------------------------------------


@_event
class McpServerChanged(Event):
    """An MCP server's status or lists changed (connecting, connected, failed, disabled, re-listed)."""

    server: str
    status: str  # pending | connected | failed | disabled
    transport: str
    source: str
    tools: tuple[str, ...] = ()
    resources: int = 0
    prompts: int = 0
    error: str = ""
    stderr_tail: str = ""
    warnings: tuple[str, ...] = ()


@_event
class McpMessage(Event):
    """One JSON-RPC message to or from an MCP server, in order (for the inspector)."""

    server: str
    direction: str  # send | recv
    message: dict[str, Any]


# --- subagents --------------------------------------------------------------------------


@_event
class SubagentStarted(Event):
    """An Agent call started a subagent; its own events carry `loop_path` = `agent_path`."""

    tool_use_id: str
    agent_id: str
    agent_path: str
    subagent_type: str
    description: str
    model: str
    transcript: str | None = None
    worktree: str | None = None


@_event
class SubagentFinished(Event):
    """A subagent's loop ended; its final text went back as the Agent call's tool_result."""

    tool_use_id: str
    agent_id: str
    agent_path: str
    stop_reason: str
    is_error: bool
    duration_ms: int
    total_tokens: int
    tool_uses: int
    summary: str = ""
    worktree_diff: str = ""
    worktree_branch: str | None = None


# --- background tasks -----------------------------------------------------------------


@_event
class BackgroundShellChanged(Event):
    """A background task started or ended (Bash `run_in_background`, a background agent)."""

    task_id: str
    kind: str
    description: str
    status: str  # running | completed | failed | killed
    output_path: str
    exit_code: int | None = None


# --- asking the user ------------------------------------------------------------------


@_event
class UserQuestionAsked(Event):
    """AskUserQuestion or ExitPlanMode waits for the user. The loop thread waits on `reply`.

    `kind` is "questions" (payload: {"questions": [...]}) or "plan" (payload: {"plan": str}).
    `reply` resolves to {"answers": {question: answer}}, {"choice": "auto"|"ask"|"keep",
    "feedback": str} or {"dismissed": True}; an interrupt cancels it.
    """

    tool_use_id: str
    kind: str
    payload: dict[str, Any]
    reply: Future[dict[str, Any]] = field(compare=False, repr=False)


# --- hooks ----------------------------------------------------------------------------


@_event
class HookEvent(Event):
    """What every hook event names: the run, its event, the command and the file it came from."""

    hook_id: str
    hook_event: str
    hook_name: str  # Claude Code's: `PreToolUse:Bash`, `SessionStart:startup`, `Stop`
    matcher: str | None
    command: str
    source: str
    tool_use_id: str | None = None


@_event
class HookStarted(HookEvent):
    """A hook command started; `stdin` is the exact JSON it was given."""

    stdin: str = ""


@_event
class HookFinished(HookEvent):
    """A hook command ended: its exit code (None after a timeout), exact output and what it decided."""

    duration_ms: int = 0
    exit_code: int | None = None
    outcome: str = "success"  # success | blocking | error | timeout
    decision: str | None = None
    stdout: str = ""
    stderr: str = ""
    message: str = ""


# --- sandbox -------------------------------------------------------------------------


@_event
class SandboxBlocked(Event):
    """A sandboxed Bash command was refused something (a path, a host); `blocked` says what, one phrase each."""

    tool_use_id: str
    command: str
    blocked: tuple[str, ...]


@_event
class DiagnosticsReported(Event):
    """A language server's diagnostics for a file an edit just changed (appended to the edit's tool result)."""

    tool_use_id: str
    path: str
    server: str
    errors: int
    warnings: int
    #: `file:line:col severity [source/code] message`, as the model read them
    lines: tuple[str, ...]


@_event
class LspProblem(Event):
    """A language server could not start, or exited: one sentence (editing goes on without it)."""

    server: str
    text: str


# --- time travel (checkpoints, rewind) -----------------------------------------------


@_event
class CheckpointSaved(Event):
    """A checkpoint was written to disk: before a prompt, or before `paths` changed (Edit, Write, Bash, rewind)."""

    checkpoint: int
    reason: str
    paths: tuple[str, ...] = ()
