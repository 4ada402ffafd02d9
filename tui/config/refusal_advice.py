"""What actually lets a call run when no one can be asked: advice that works, by why the verdict asked or denied.

An allow rule never beats a deny or an ask rule, acceptEdits allows edits but no command, a write outside
the project or a command reaching outside it asks whatever the allow rules say, and leaving the sandbox asks
even in bypassPermissions. So "add --allowedTools X" is offered only where it works, and otherwise what does.
"""

from __future__ import annotations

import json
from typing import Any

#: the `--settings` value that turns the sandbox off for one run
SANDBOX_OFF = "--settings '" + json.dumps({"sandbox": {"enabled": False}}) + "'"


def print_mode_advice(verdict: Any, tool_kind: str, tool_input: Any, suggested: str) -> str:
    """For a call `-p` refused because it needed a yes: the one thing the user can change so it runs."""
    source, rule = getattr(verdict, "source", None), getattr(verdict, "rule", None)
    if source == "sandbox":
        leaving = isinstance(tool_input, dict) and tool_input.get("dangerouslyDisableSandbox") is True
        first = (
            "Run the command inside the sandbox (without dangerouslyDisableSandbox)"
            if leaving
            else "Run it in a way the sandbox contains"
        )
        return (
            f"{first}; leaving the sandbox always needs a yes, even in bypassPermissions. To let it run outside, "
            f"rerun with the sandbox off ({SANDBOX_OFF}) and --allowedTools '{suggested}'."
        )
    if rule and getattr(verdict, "decision", "") == "ask":
        return (
            f"The rule `{rule}` ({source}) asks for it and an allow rule does not override an ask rule: remove "
            "that rule, or rerun with --permission-mode bypassPermissions."
        )
    if source == "boundary":
        return (
            "That always needs a yes, whatever the allow rules say: only --permission-mode bypassPermissions "
            "runs it without one. Or continue without it."
        )
    if source == "parser":
        return (
            "Only --allowedTools Bash (every command) or --permission-mode bypassPermissions allows a command "
            "that cannot be checked. Or continue without it."
        )
    if tool_kind == "edit":
        return f"Rerun with --permission-mode acceptEdits or --allowedTools '{suggested}' to allow it, or continue without it."
    return f"Rerun with --allowedTools '{suggested}' to allow it, or continue without it."


def shell_line_advice(verdict: Any, suggested: str) -> str:
    """For a command file's `!` line that the Bash verdict did not allow (it never asks): what would let it run."""
    source, rule = getattr(verdict, "source", None), getattr(verdict, "rule", None)
    decision = getattr(verdict, "decision", "")
    if decision == "deny" and rule:
        return (
            f"The rule `{rule}` ({source}) denies it, and a deny rule wins over `allowed-tools`: remove that rule "
            "to let the line run."
        )
    if decision == "deny":
        return "Nothing in the file can allow it in this permission mode (leave plan mode to let it run)."
    if rule:
        return (
            f"The rule `{rule}` ({source}) asks for it, `!` lines never ask, and `allowed-tools` does not "
            "override an ask rule: remove that rule to let the line run."
        )
    if source == "parser":
        return (
            "It cannot be checked before it runs, so only `Bash` in `allowed-tools` (every command) allows it; "
            "`!` lines never ask."
        )
    if source == "boundary":
        return (
            "That always needs a yes whatever `allowed-tools` says, and `!` lines never ask: only "
            "bypassPermissions mode runs it, or run it yourself in bash mode (`!cmd` in the prompt)."
        )
    return (
        f"Allow it in the file's `allowed-tools` (e.g. `{suggested}`) or with a permission rule; `!` lines never ask."
    )
