"""Permission policy: decides allow / deny / ask for each gated tool call.

This is the interface the loop uses. `check` is called for every tool call; a call
that is read-only and matches no deny/ask rule is allowed without asking.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from tui.tools.base import Tool, ToolContext

Decision = Literal["allow", "deny", "ask"]
MODES = ("default", "acceptEdits", "plan", "bypassPermissions")


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    reason: str
    rule: str | None = None
    source: str | None = None  # where the rule came from ("--allowedTools", a settings path, "mode")


def _rule_tool_name(rule: str) -> str:
    return rule.split("(", 1)[0].strip()


@dataclass
class PermissionPolicy:
    """Plain-tool-name rules plus the permission mode (the full grammar lives in rules.py)."""

    mode: str = "default"
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    project_dir: Path = field(default_factory=Path.cwd)
    session_allow: list[str] = field(default_factory=list)

    def check(self, tool: Tool, tool_input: dict[str, Any], ctx: ToolContext) -> Verdict:
        name = tool.name
        if any(_rule_tool_name(r) == name for r in self.deny):
            return Verdict("deny", f"{name} is denied by a rule.", name, "rules")
        if self.mode == "bypassPermissions":
            return Verdict("allow", "bypassPermissions mode", None, "mode")
        if self.mode == "plan" and not tool.read_only:
            return Verdict(
                "deny",
                f"Plan mode is on: {name} cannot run. Only read-only tools are available; "
                "present the plan instead of making changes.",
                None,
                "mode",
            )
        if any(_rule_tool_name(r) == name for r in self.ask):
            return Verdict("ask", f"{name} needs approval (ask rule).", name, "rules")
        if tool.read_only:
            return Verdict("allow", "read-only", None, "builtin")
        if any(_rule_tool_name(r) == name for r in self.allow + self.session_allow):
            return Verdict("allow", f"{name} is allowed by a rule.", name, "rules")
        if self.mode == "acceptEdits" and tool.kind == "edit":
            return Verdict("allow", "acceptEdits mode", None, "mode")
        return Verdict("ask", f"{name} needs approval.", None, "mode")

    def suggest_rule(self, tool: Tool, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        """The rule "always allow" would save for this call."""
        return tool.name

    def add_session_rule(self, rule: str) -> None:
        self.session_allow.append(rule)

    def save_rule(self, rule: str) -> Path | None:
        """Persist an allow rule to the local settings file; returns the path written."""
        self.session_allow.append(rule)
        return None
