"""The one way to change a session's permission mode, and the permission updates that may carry one.

Every front end (Shift+Tab, ACP `session/set_mode`, the Agent SDK's `set_permission_mode`, a
`can_use_tool` answer's or a PermissionRequest hook's `updatedPermissions`, an approved plan) calls
`set_permission_mode`. It applies the one rule, bypassPermissions only in a session started in it,
and publishes one PermissionModeChanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tui.config.modes import MODES

from .events import Event, Notice, PermissionModeChanged

if TYPE_CHECKING:
    from .options import AgentOptions

BYPASS = "bypassPermissions"


def rule_text(value: Any) -> str | None:
    """Claude Code's {toolName, ruleContent} as a rule text, None when it is not one."""
    if not isinstance(value, dict) or not isinstance(value.get("toolName"), str) or not value["toolName"]:
        return None
    content = value.get("ruleContent")
    return f"{value['toolName']}({content})" if isinstance(content, str) and content else value["toolName"]


class ModeMixin:
    """AgentSession's permission mode: read it, list the reachable ones, change it."""

    options: AgentOptions
    policy: Any  # a PermissionPolicy (AgentSession.policy: the settings' own, or a caller's)
    publish: Callable[[Event], None]  # AgentSession.publish

    @property
    def permission_mode(self) -> str:
        return str(getattr(self.policy, "mode", "default"))

    @property
    def bypass_allowed(self) -> bool:
        """bypassPermissions is reachable only in a session started in it (`--permission-mode`)."""
        return bool(self.options.permission_mode == BYPASS)

    def allowed_modes(self) -> list[str]:
        """The modes this session may switch to, in Shift+Tab's order."""
        return [m for m in MODES if m != BYPASS or self.bypass_allowed]

    def mode_refusal(self, mode: Any) -> str | None:
        """Why `mode` cannot be switched to (one sentence), None when it can."""
        if mode not in MODES:
            return f"agent-tui has no permission mode {str(mode)[:60]!r} (it has {', '.join(MODES)})."
        if mode == BYPASS and not self.bypass_allowed:
            return (
                "bypassPermissions is possible only in a session started in it "
                "(--permission-mode bypassPermissions), so the mode stays "
                f"{self.permission_mode}."
            )
        return None

    def set_permission_mode(self, mode: Any, by: str) -> str | None:
        """Switch to `mode` on behalf of `by`; the refusal sentence when the rule forbids it, else None."""
        if problem := self.mode_refusal(mode):
            return problem
        previous = self.permission_mode
        self.policy.mode = mode
        if previous != mode:
            self.publish(PermissionModeChanged(mode=str(mode), previous=previous, by=by))
        return None

    def apply_permission_updates(self, updates: Any, by: str) -> list[str]:
        """Claude Code's `updatedPermissions`: allow rules for this session and a mode; the rules added.

        What is not applied (another kind, a mode the rule forbids, a destination other than the
        session) is said in one notice. The first rule is left to the caller (the dispatcher
        remembers it as a dialog's "this session"); the others are added here.
        """
        rules: list[str] = []
        skipped: list[str] = []
        for update in updates if isinstance(updates, list) else []:
            kind = update.get("type") if isinstance(update, dict) else None
            if kind == "addRules" and update.get("behavior") == "allow":
                found = [r for r in map(rule_text, update.get("rules") or []) if r]
                rules += found
                if update.get("destination", "session") != "session":
                    skipped.append(
                        f"{', '.join(found)} kept for this session only (not saved to {update.get('destination')})"
                    )
            elif kind == "setMode":
                if problem := self.set_permission_mode(update.get("mode"), by):
                    skipped.append(f"setMode not applied: {problem.rstrip('.')}")
            else:
                skipped.append(f"{kind or 'an update'} not applied")
        if skipped:
            self.publish(Notice(level="info", text=f"Permission updates from {by}: " + "; ".join(skipped) + "."))
        for extra in rules[1:]:
            self.policy.add_session_rule(extra)
        return rules
