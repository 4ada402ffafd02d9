"""The events of a permission question (asked, resolved) and of a change of the permission mode."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .base import Event, _event

if TYPE_CHECKING:
    from tui.config.permissions import RuleDestination

Scope = Literal["once", "session", "always"]


@dataclass(frozen=True)
class PermissionReply:
    """Resolves the Future in PermissionRequested.

    allowed=False with `reason` sends that reason back to the model. `rule` is the
    (possibly user-edited) rule to remember for scope "session" or "always", and `destination` the
    settings file "always" saves it to (`tui.config.permissions.rule_destinations`). `updated_input`
    (the Agent SDK's can_use_tool) is the input the call runs with instead, checked by the
    rules again; `answered_by` names who answered when it was not the user at a dialog.
    """

    allowed: bool
    scope: Scope = "once"
    rule: str | None = None
    destination: RuleDestination = "local"
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    answered_by: str = ""


def rule_value(rule: str) -> dict[str, str]:
    """A rule text as Claude Code's {toolName, ruleContent} (a permission suggestion's rule)."""
    name, _, rest = rule.partition("(")
    value = {"toolName": name}
    if rest:
        value["ruleContent"] = rest[:-1] if rest.endswith(")") else rest
    return value


@_event
class PermissionRequested(Event):
    """A gated tool needs a yes. The loop thread waits on `reply`.

    `reply` resolves to a PermissionReply (above); an interrupt
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
