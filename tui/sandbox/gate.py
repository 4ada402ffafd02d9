"""How the sandbox changes a Bash verdict: contained commands skip the dialog, leaving it always asks."""

from __future__ import annotations

from typing import Any

from tui.sandbox.runtime import current


def adjust(verdict: Any, tool: Any, tool_input: Any, mode: str) -> Any:
    """The verdict to use for this call, given the sandbox (deny rules always win)."""
    if getattr(tool, "name", "") != "Bash" or not isinstance(tool_input, dict) or verdict.decision == "deny":
        return verdict
    sandbox = current()
    if not sandbox.enabled:
        return verdict
    from tui.config.permissions import Verdict

    if tool_input.get("dangerouslyDisableSandbox") is True and sandbox.config.allow_unsandboxed:
        # bypassPermissions skips dialogs, not the sandbox: leaving it is always the user's call
        return Verdict("ask", "This command asks to run outside the sandbox (dangerouslyDisableSandbox), "
                              "with no limit on what it writes, reads or reaches on the network.", None, "sandbox")
    if verdict.decision == "ask" and verdict.rule is None and sandbox.config.auto_allow and mode != "plan" \
            and sandbox.contains(tool_input):
        return Verdict("allow", "contained by the sandbox", None, "sandbox")
    return verdict
