"""The events of a permission question (asked, resolved) and of a change of the permission mode."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import field
from typing import TYPE_CHECKING, Any

from .base import Event, _event

if TYPE_CHECKING:
    from ..permission_gate import PermissionReply


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
class PermissionModeChanged(Event):
    """The permission mode changed; `by` names who changed it (Shift+Tab, ACP, the Agent SDK, a hook...)."""

    mode: str
    previous: str
    by: str
