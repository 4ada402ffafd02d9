"""The events of a tool call, from queued to finished, and the results sent back."""

from __future__ import annotations

from typing import Any, Literal

from .base import Event, _event

ToolStatus = Literal["done", "error", "denied", "interrupted"]


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
class ToolResultsSent(Event):
    iteration: int
    message: dict[str, Any]
