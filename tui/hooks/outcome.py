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

from tui.hooks.runner import KEEP_BYTES, HookRun

#: events whose plain stdout (exit 0) becomes context for the model
CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit"}
#: events an exit code 2 blocks, and who reads stderr then ("model" or "user")
EXIT2 = {
    "PreToolUse": "model",
    "PostToolUse": "model",
    "PostToolUseFailure": "model",
    "UserPromptSubmit": "user",
    "Stop": "model",
    "SubagentStop": "model",
    "PreCompact": "user",
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


#: events where `onFailure: "block"` is ignored (as in Claude Code)
NO_FAILURE_BLOCK = {"Stop", "SubagentStop", "TaskCompleted", "TeammateIdle"}


def _failed(run: HookRun) -> str | None:
    """Why the hook failed as `onFailure` counts it: no start, a timeout, an exit neither 0 nor 2, bad JSON."""
    if failure := run.failure():
        return failure
    if run.exit_code not in (0, 2):
        first = (run.stderr.strip().splitlines() or [""])[0][:300]
        return f"{run.event} hook `{run.spec.command}` failed with exit code {run.exit_code}" + (
            f": {first}" if first else "."
        )
    if run.exit_code == 0 and run.stdout.strip().startswith("{") and parse_json(run.stdout) is None:
        return f"{run.event} hook `{run.spec.command}` printed invalid JSON."
    return None


def _read_run(event: str, run: HookRun, outcome: HookOutcome) -> str | None:
    failure = run.failure()
    blocking = run.spec.block_on_failure and event in EXIT2 and event not in NO_FAILURE_BLOCK and not run.detached
    if blocking and (why := _failed(run)):  # `onFailure: "block"`: the failure counts as exit code 2
        return _exit2(event, run, outcome, f"{why} (onFailure: block)")
    if failure:
        outcome.user_messages.append(failure)
        return None
    stderr = run.stderr.strip()
    if run.exit_code == 2:
        return _exit2(event, run, outcome, stderr or f"{event} hook `{run.spec.command}` exited with code 2.")
    return _read_output(event, run, outcome, stderr)


def _exit2(event: str, run: HookRun, outcome: HookOutcome, message: str) -> str | None:
    """Exit code 2: a block where the event can block (stderr to the model or the user), else a notice."""
    if EXIT2.get(event) is None:
        if stderr := run.stderr.strip():
            outcome.user_messages.append(f"{event} hook: {stderr}")
        return None
    outcome.feedback.append((run.spec.command, message))
    if event in ("PostToolUse", "PostToolUseFailure"):
        return "feedback"
    outcome.blocked = True
    if event == "PreToolUse":
        _permission(outcome, "deny", message)
    return "block"


def _read_output(event: str, run: HookRun, outcome: HookOutcome, stderr: str) -> str | None:
    data = parse_json(run.stdout)
    if data is None and run.stdout.strip().startswith("{") and run.exit_code == 0:
        cut = f" (its output was cut at {KEEP_BYTES // 1024} KB)" if run.stdout_cut else ""
        outcome.user_messages.append(
            f"{event} hook `{run.spec.command}` (from {run.spec.origin}) printed invalid JSON{cut}; its output was ignored."
        )
        return None
    if data is None:
        if run.exit_code != 0:
            first = stderr.splitlines()[0] if stderr else f"exit code {run.exit_code}"
            first = first if len(first) <= 300 else first[:300] + "…"
            outcome.user_messages.append(
                f"{event} hook `{run.spec.command}` (from {run.spec.origin}) failed with exit code {run.exit_code}: {first}"
            )
            return None
        if event in CONTEXT_EVENTS and run.stdout.strip():
            outcome.contexts.append(("success", run.stdout.strip()))
        return None
    return _read_json(event, run, data, outcome)


#: the fields Claude Code reads from a hook's JSON, with the type each must have
_TOP_FIELDS: dict[str, tuple[type, str]] = {
    "continue": (bool, "true or false"),
    "stopReason": (str, "a string"),
    "suppressOutput": (bool, "true or false"),
    "systemMessage": (str, "a string"),
    "decision": (str, "a string"),
    "reason": (str, "a string"),
    "hookSpecificOutput": (dict, "an object"),
}
_SPECIFIC_FIELDS: dict[str, tuple[type, str]] = {
    "hookEventName": (str, "a string"),
    "additionalContext": (str, "a string"),
    "permissionDecision": (str, "a string"),
    "permissionDecisionReason": (str, "a string"),
    "updatedInput": (dict, "an object"),
    "decision": (dict, "an object"),
}


def _type_name(value: Any) -> str:
    names = {bool: "a boolean", str: "a string", dict: "an object", list: "a list", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def checked_fields(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`data` without the fields of the wrong type, and one phrase for each field dropped."""
    wrong: list[str] = []

    def keep(table: dict[str, Any], fields: dict[str, tuple[type, str]], prefix: str) -> dict[str, Any]:
        kept = {}
        for key, value in table.items():
            kind = fields.get(key)
            if kind is not None and not isinstance(value, kind[0]):
                wrong.append(f"`{prefix}{key}` should be {kind[1]}, not {_type_name(value)}")
                continue
            kept[key] = value
        return kept

    clean = keep(data, _TOP_FIELDS, "")
    if isinstance(clean.get("hookSpecificOutput"), dict):
        clean["hookSpecificOutput"] = keep(clean["hookSpecificOutput"], _SPECIFIC_FIELDS, "hookSpecificOutput.")
    return clean, wrong


def _read_json(event: str, run: HookRun, data: dict[str, Any], outcome: HookOutcome) -> str | None:
    command = run.spec.command
    data, wrong = checked_fields(data)
    if wrong:  # as for invalid JSON: the user hears of it, and the rest of the output still counts
        outcome.user_messages.append(
            f"{event} hook `{command}` (from {run.spec.origin}) printed JSON where {'; '.join(wrong)}; "
            f"{'that field was' if len(wrong) == 1 else 'those fields were'} ignored."
        )
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
