"""How the sandbox changes a Bash verdict: contained commands skip the dialog, leaving it always asks."""

from __future__ import annotations

from typing import Any

from tui.sandbox.runtime import current

READ_TOOLS = ("Read", "Grep", "Glob")


def adjust(verdict: Any, tool: Any, tool_input: Any, mode: str, project_dir: Any = None, trusted: bool = True) -> Any:
    """The verdict to use for this call, given the sandbox (deny rules always win).

    In a folder the user has not trusted nothing is auto-allowed: a contained command may still run programs
    the folder names (a repository's fsmonitor, a Makefile), and trust gates all code from the folder.
    """
    name = getattr(tool, "name", "")
    if not isinstance(tool_input, dict) or verdict.decision == "deny":
        return verdict
    if name in READ_TOOLS:
        return _read_verdict(verdict, name, tool_input, project_dir)
    if name != "Bash":
        return verdict
    sandbox = current()
    if not sandbox.enabled:
        return verdict
    from tui.config.permissions import Verdict

    if tool_input.get("dangerouslyDisableSandbox") is True and sandbox.config.allow_unsandboxed:
        # bypassPermissions skips dialogs, not the sandbox: leaving it is always the user's call
        return Verdict(
            "ask",
            "This command asks to run outside the sandbox (dangerouslyDisableSandbox), "
            "with no limit on what it writes, reads or reaches on the network.",
            None,
            "sandbox",
        )
    if (
        verdict.decision == "ask"
        and verdict.rule is None
        and sandbox.config.auto_allow
        and mode != "plan"
        and trusted
        and sandbox.contains(tool_input)
    ):
        return Verdict("allow", "contained by the sandbox", None, "sandbox")
    return verdict


def _read_verdict(verdict: Any, name: str, tool_input: dict[str, Any], project_dir: Any) -> Any:
    """Read, Grep and Glob refuse a path in `sandbox.deny_read`, in every mode."""
    import os

    raw = tool_input.get("file_path") or tool_input.get("path")
    if not isinstance(raw, str) or not raw or "\x00" in raw:
        return verdict
    path = os.path.join(str(project_dir or os.getcwd()), os.path.expanduser(raw))
    secret = current().read_denied(path)
    if secret is None:
        return verdict
    from tui.config.permissions import Verdict

    return Verdict(
        "deny", f"{raw} is in sandbox.deny_read ({secret}): it holds secrets that no tool reads.", None, "sandbox"
    )
