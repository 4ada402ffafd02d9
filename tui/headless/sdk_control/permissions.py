"""The Agent SDK's `can_use_tool` callback answers the permission questions (`--permission-prompt-tool stdio`).

A bus subscriber, as the app's dialog is: each PermissionRequested the dispatcher publishes goes to the
SDK as a `can_use_tool` control request, and its answer resolves the question's reply Future exactly as
a dialog answer would (the dispatcher publishes the PermissionResolved). Only questions come here: what
the rules, the mode, the sandbox or a hook settle never reaches the callback. An interrupt withdraws the
request (`control_cancel_request`).
"""

from __future__ import annotations

import json
from concurrent.futures import Future, InvalidStateError
from typing import TYPE_CHECKING, Any

from tui.agent.events import Event, PermissionReply, PermissionRequested, rule_value

from .channel import ChannelClosed, ControlChannel

if TYPE_CHECKING:
    from tui.agent.door import Session

ANSWERED_BY = "the Agent SDK's can_use_tool"


class PermissionBridge:
    """Sends each permission question to the SDK and answers it with the SDK's decision."""

    def __init__(self, session: Session, channel: ControlChannel) -> None:
        self.session = session
        self.channel = channel

    def __call__(self, event: Event) -> None:
        if not isinstance(event, PermissionRequested) or event.reply.done():
            return
        payload: dict[str, Any] = {
            "subtype": "can_use_tool",
            "tool_name": event.tool_name,
            "input": event.input,
            "permission_suggestions": [
                {
                    "type": "addRules",
                    "rules": [rule_value(event.suggested_rule)],
                    "behavior": "allow",
                    "destination": "session",
                }
            ]
            if event.suggested_rule
            else [],
            "blocked_path": None,
            "decision_reason": event.reason,
            "title": event.label,
            "tool_use_id": event.tool_use_id,
        }
        if event.loop_path != "main":  # a subagent's call
            payload["agent_id"] = event.loop_path
        asked = self.channel.request(payload)
        event.reply.add_done_callback(lambda reply: asked.cancel() if reply.cancelled() else None)
        asked.add_done_callback(lambda done: self.answer(event, done))

    def answer(self, event: PermissionRequested, asked: Future[dict[str, Any]]) -> None:
        """Resolve the question with the SDK's decision (a failed request denies the call, saying why)."""
        if asked.cancelled():
            return
        interrupt = False
        try:
            reply, interrupt = self.decision(asked.result())
        except ChannelClosed as exc:
            reply = PermissionReply(False, reason=f"Not run: {exc}.", answered_by=ANSWERED_BY)
        except Exception as exc:  # noqa: BLE001 - the callback raised, or answered nonsense: the call is denied
            reply = PermissionReply(False, reason=f"Not run: {ANSWERED_BY} failed ({exc}).", answered_by=ANSWERED_BY)
        try:
            event.reply.set_result(reply)
        except InvalidStateError:  # interrupted, or a rule settled it meanwhile
            return
        if interrupt:
            self.session.cancel()  # `interrupt: true`: the turn ends here, as Claude Code does

    def decision(self, response: dict[str, Any]) -> tuple[PermissionReply, bool]:
        """The SDK's `{behavior, updatedInput, updatedPermissions, message, interrupt}` as a reply."""
        behavior = response.get("behavior")
        if behavior == "deny":
            message = response.get("message")
            reason = message if isinstance(message, str) and message else f"Denied by {ANSWERED_BY}."
            return PermissionReply(False, reason=reason, answered_by=ANSWERED_BY), response.get("interrupt") is True
        if behavior != "allow":
            raise ValueError(f"it answered {json.dumps(response)[:200]}, expected behavior allow or deny")
        updated = response.get("updatedInput")
        if updated is not None and not isinstance(updated, dict):
            raise ValueError("its updatedInput is not an object")
        rules = self.apply_updates(response.get("updatedPermissions"))
        return PermissionReply(
            True,
            scope="session" if rules else "once",
            rule=rules[0] if rules else None,
            updated_input=updated,
            answered_by=ANSWERED_BY,
        ), False

    def apply_updates(self, updates: Any) -> list[str]:
        """Apply `updatedPermissions` through the session (its one mode rule); the rules to remember."""
        rules: list[str] = self.session.apply_permission_updates(updates, ANSWERED_BY)
        return rules
