"""Exit codes and JSON output read as Claude Code reads them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui.hooks.config import HookSpec
from tui.hooks.outcome import read_outcome
from tui.hooks.runner import HookRun


def _run(event: str, code: int = 0, stdout: Any = "", stderr: str = "", command: str = "hook.sh") -> HookRun:
    spec = HookSpec(event, None, command, 60, Path("/p/.claude/settings.json"), True)
    text = json.dumps(stdout) if isinstance(stdout, dict) else stdout
    return HookRun(f"id-{command}", spec, event, "{}", stdout=text, stderr=stderr, exit_code=code)


def test_exit_2_on_pre_tool_use_denies_with_stderr_even_when_the_json_allows() -> None:
    allow = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
    outcome = read_outcome("PreToolUse", [_run("PreToolUse", 2, allow, "no rm -rf\n")])
    assert outcome.blocked and outcome.permission == "deny"
    assert outcome.feedback == [("hook.sh", "no rm -rf")]


@pytest.mark.parametrize("code", [1, 3, 127])
def test_other_exit_codes_never_block_and_tell_the_user(code: int) -> None:
    outcome = read_outcome("PreToolUse", [_run("PreToolUse", code, "", "oops\nmore")])
    assert not outcome.blocked and outcome.permission is None
    assert outcome.user_messages == [
        f"PreToolUse hook `hook.sh` (from /p/.claude/settings.json) failed with exit code {code}: oops"
    ]


def test_valid_json_decides_whatever_the_exit_code() -> None:
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "not here",
        }
    }
    outcome = read_outcome("PreToolUse", [_run("PreToolUse", 1, deny)])
    assert (outcome.permission, outcome.permission_reason) == ("deny", "not here")


def test_deny_beats_ask_beats_allow_and_contexts_are_all_kept() -> None:
    def out(choice: str, ctx: str) -> dict:
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": choice,
                "permissionDecisionReason": choice,
                "additionalContext": ctx,
            }
        }

    runs = [_run("PreToolUse", 0, out("allow", "a"), command="1"), _run("PreToolUse", 0, out("ask", "b"), command="2")]
    assert read_outcome("PreToolUse", runs).permission == "ask"
    runs.append(_run("PreToolUse", 0, out("deny", "c"), command="3"))
    outcome = read_outcome("PreToolUse", runs)
    assert outcome.permission == "deny" and outcome.permission_reason == "deny"
    assert outcome.contexts == [("additional context", c) for c in "abc"]
    assert outcome.decisions == {"id-1": "allow", "id-2": "ask", "id-3": "deny"}


def test_the_old_approve_and_block_decisions_map_to_allow_and_deny() -> None:
    assert read_outcome("PreToolUse", [_run("PreToolUse", 0, {"decision": "approve"})]).permission == "allow"
    assert (
        read_outcome("PreToolUse", [_run("PreToolUse", 0, {"decision": "block", "reason": "r"})]).permission == "deny"
    )


def test_updated_input_continue_false_and_system_message() -> None:
    data = {
        "continue": False,
        "stopReason": "enough",
        "systemMessage": "careful",
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "ls -a"}},
    }
    outcome = read_outcome("PreToolUse", [_run("PreToolUse", 0, data)])
    assert outcome.stop and outcome.stop_reason == "enough"
    assert outcome.user_messages == ["careful"] and outcome.updated_input == {"command": "ls -a"}


def test_plain_stdout_is_context_only_for_session_start_and_user_prompt_submit() -> None:
    assert read_outcome("UserPromptSubmit", [_run("UserPromptSubmit", 0, "today is Monday\n")]).contexts == [
        ("success", "today is Monday")
    ]
    assert read_outcome("SessionStart", [_run("SessionStart", 0, "ctx")]).contexts == [("success", "ctx")]
    assert read_outcome("PreToolUse", [_run("PreToolUse", 0, "ctx")]).contexts == []


@pytest.mark.parametrize("event", ["UserPromptSubmit", "Stop", "SubagentStop", "PreCompact"])
def test_decision_block_and_exit_2_block_the_events_that_can_block(event: str) -> None:
    assert read_outcome(event, [_run(event, 0, {"decision": "block", "reason": "why"})]).feedback == [
        ("hook.sh", "why")
    ]
    outcome = read_outcome(event, [_run(event, 2, "", "because")])
    assert outcome.blocked and outcome.reason == "because"


def test_post_tool_use_feedback_does_not_block() -> None:
    outcome = read_outcome("PostToolUse", [_run("PostToolUse", 0, {"decision": "block", "reason": "lint failed"})])
    assert not outcome.blocked and outcome.reason == "lint failed"
    assert read_outcome("PostToolUse", [_run("PostToolUse", 2, "", "bad")]).feedback == [("hook.sh", "bad")]


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd", "Notification", "PermissionRequest"])
def test_exit_2_where_nothing_can_be_blocked_only_shows_stderr(event: str) -> None:
    outcome = read_outcome(event, [_run(event, 2, "", "note")])
    assert not outcome.blocked and outcome.user_messages == [f"{event} hook: note"]


def test_invalid_json_is_one_sentence_and_ignored() -> None:
    outcome = read_outcome("PreToolUse", [_run("PreToolUse", 0, '{"permissionDecision": ')])
    assert outcome.permission is None
    assert outcome.user_messages == [
        "PreToolUse hook `hook.sh` (from /p/.claude/settings.json) printed invalid JSON; its output was ignored."
    ]


def test_permission_request_decision() -> None:
    data = {
        "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no"}}
    }
    assert read_outcome("PermissionRequest", [_run("PermissionRequest", 0, data)]).request_decision == {
        "behavior": "deny",
        "message": "no",
    }


def test_hook_output_nested_thousands_deep_is_plain_text_not_a_crash() -> None:
    deep = '{"a":' * 100_000 + "1" + "}" * 100_000
    outcome = read_outcome("PreToolUse", [_run("PreToolUse", 0, deep)])
    assert not outcome.blocked and outcome.permission is None
