"""What the hooks of one event decided, read as Claude Code reads exit codes and JSON output.

Exit 0: stdout starting with `{` is JSON, anything else plain text (context for
SessionStart and UserPromptSubmit only). Exit 2: a block on events that can block, the
message being stderr. Any other code: a non-blocking error shown to the user, unless stdout
is valid JSON, which then decides. Several hooks merge: deny > ask > allow, every context
and message kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tui.hooks.runner import HookRun

#: events whose plain stdout (exit 0) becomes context for the model
CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit"}
#: events an exit code 2 blocks, and who reads stderr then ("model" or "user")
EXIT2 = {
    "PreToolUse": "model", "PostToolUse": "model", "PostToolUseFailure": "model", "UserPromptSubmit": "user",
    "Stop": "model", "SubagentStop": "model", "PreCompact": "user",
}
#: events where exit 2 only shows stderr to the user
EXIT2_USER_ONLY = {"SessionStart", "SessionEnd", "Notification", "PermissionRequest"}
PRECEDENCE = {"deny": 3, "ask": 2, "allow": 1}


@dataclass
class HookOutcome:
    """The merged verdict of one event's hooks."""

    blocked: bool = False
    #: (command, message) of each block (to the model or the user, by event), or PostToolUse feedback
    feedback: list[tuple[str, str]] = field(default_factory=list)
    #: PreToolUse: allow | deny | ask, with its reason
    permission: str | None = None
    permission_reason: str = ""
    updated_input: dict[str, Any] | None = None
    #: PermissionRequest: hookSpecificOutput.decision
    request_decision: dict[str, Any] | None = None
    #: (kind, text): "success" for plain stdout, "additional context" for additionalContext
    contexts: list[tuple[str, str]] = field(default_factory=list)
    #: warnings and non-blocking errors for the user (systemMessage, failed hooks)
    user_messages: list[str] = field(default_factory=list)
    #: `continue: false`: the loop stops, saying `stop_reason`
    stop: bool = False
    stop_reason: str = ""
    #: per run: the decision it contributed (for HookFinished)
    decisions: dict[str, str] = field(default_factory=dict)

    @property
    def reason(self) -> str:
        """Every block message, one a line."""
        return "\n".join(message for _, message in self.feedback)


def parse_json(stdout: str) -> dict[str, Any] | None:
    """The JSON object a hook printed, or None (plain text, or not valid JSON)."""
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested thousands deep
        return None
    return data if isinstance(data, dict) else None


def read_outcome(event: str, runs: list[HookRun]) -> HookOutcome:
    """Merge what every run of `event` said into one outcome."""
    outcome = HookOutcome()
    for run in runs:
        decision = _read_run(event, run, outcome)
        if decision:
            outcome.decisions[run.hook_id] = decision
    return outcome


def _read_run(event: str, run: HookRun, outcome: HookOutcome) -> str | None:
    failure = run.failure()
    if failure:
        outcome.user_messages.append(failure)
        return None
    stderr = run.stderr.strip()
    if run.exit_code == 2:
        who = EXIT2.get(event)
        message = stderr or f"{event} hook `{run.spec.command}` exited with code 2."
        if who is None:
            if stderr:
                outcome.user_messages.append(f"{event} hook: {stderr}")
            return None
        outcome.feedback.append((run.spec.command, message))
        if event in ("PostToolUse", "PostToolUseFailure"):
            return "feedback"
        outcome.blocked = True
        if event == "PreToolUse":
            _permission(outcome, "deny", message)
        return "block"
    data = parse_json(run.stdout)
    if data is None and run.stdout.strip().startswith("{") and run.exit_code == 0:
        outcome.user_messages.append(
            f"{event} hook `{run.spec.command}` (from {run.spec.source}) printed invalid JSON; its output was ignored.")
        return None
    if data is None:
        if run.exit_code != 0:
            first = stderr.splitlines()[0] if stderr else f"exit code {run.exit_code}"
            outcome.user_messages.append(
                f"{event} hook `{run.spec.command}` (from {run.spec.source}) failed with exit code {run.exit_code}: {first}")
            return None
        if event in CONTEXT_EVENTS and run.stdout.strip():
            outcome.contexts.append(("success", run.stdout.strip()))
        return None
    return _read_json(event, run.spec.command, data, outcome)


def _read_json(event: str, command: str, data: dict[str, Any], outcome: HookOutcome) -> str | None:
    decision: str | None = None
    if data.get("continue") is False:
        outcome.stop = True
        outcome.stop_reason = str(data.get("stopReason") or "")
        decision = "stop"
    if isinstance(data.get("systemMessage"), str) and data["systemMessage"]:
        outcome.user_messages.append(data["systemMessage"])
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    context = specific.get("additionalContext")
    if isinstance(context, str) and context:
        outcome.contexts.append(("additional context", context))
    reason = str(data.get("reason") or "")
    old = data.get("decision")
    if event == "PreToolUse":
        choice = specific.get("permissionDecision")
        why = str(specific.get("permissionDecisionReason") or reason)
        if choice not in PRECEDENCE and old in ("approve", "block"):
            choice = "allow" if old == "approve" else "deny"
        if choice in PRECEDENCE:
            _permission(outcome, choice, why)
            decision = choice
        if isinstance(specific.get("updatedInput"), dict):
            outcome.updated_input = specific["updatedInput"]
        return decision
    if event == "PermissionRequest":
        choice = specific.get("decision")
        if isinstance(choice, dict) and choice.get("behavior") in ("allow", "deny"):
            if outcome.request_decision is None or choice["behavior"] == "deny":
                outcome.request_decision = choice
            decision = str(choice["behavior"])
        return decision
    if old == "block" and event in EXIT2:
        outcome.feedback.append((command, reason or f"Blocked by a {event} hook."))
        outcome.blocked = event not in ("PostToolUse", "PostToolUseFailure")
        return "block"
    return decision


def _permission(outcome: HookOutcome, choice: str, reason: str) -> None:
    if outcome.permission is None or PRECEDENCE[choice] > PRECEDENCE[outcome.permission]:
        outcome.permission = choice
        outcome.permission_reason = reason
    elif choice == outcome.permission and reason:
        outcome.permission_reason = f"{outcome.permission_reason}\n{reason}" if outcome.permission_reason else reason
