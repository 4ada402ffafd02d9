"""Hooks around the real loop: real hook scripts in temp projects, the SDK against the fake Messages API."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, tool_use
from tests.integration.helpers import make_session
from tui.agent.events import HookFinished, HookStarted, LoopStopped, Notice, ToolFinished

HOOK = Path(__file__).with_name("hook_script.py")


def hook(event: str, matcher: str | None = None, **behaviour: Any) -> dict[str, Any]:
    """One matcher group running hook_script.py with `behaviour` (see that file)."""
    command = f"{shlex.quote(sys.executable)} {HOOK} {shlex.quote(json.dumps(behaviour))}"
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
    if matcher is not None:
        group["matcher"] = matcher
    return {event: [group]}


def write_project(
    project: Path, *groups: dict[str, Any], trusted: bool = True, permissions: dict | None = None
) -> None:
    hooks: dict[str, list] = {}
    for group in groups:
        for event, value in group.items():
            hooks.setdefault(event, []).extend(value)
    (project / ".claude").mkdir(exist_ok=True)
    data: dict[str, Any] = {"hooks": hooks}
    if permissions:
        data["permissions"] = permissions
    (project / ".claude" / "settings.json").write_text(json.dumps(data))
    if trusted:
        user = Path(os.environ["XDG_CONFIG_HOME"]) / "agent-tui" / "settings.toml"
        user.parent.mkdir(parents=True, exist_ok=True)
        user.write_text(f"trusted_folders = [{json.dumps(str(project))}]\n")


def bash(command: str, id: str) -> Any:
    return tool_use("Bash", {"command": command, "description": "run"}, id=id)


def results_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    return body["messages"][-1]["content"]


def texts(blocks: list[dict[str, Any]]) -> list[str]:
    return [b["text"] for b in blocks if b.get("type") == "text"]


def test_pre_tool_use_denies_rewrites_and_never_beats_a_deny_rule(monkeypatch, tmp_path):
    write_project(
        tmp_path,
        hook(
            "PreToolUse",
            "Bash",
            when={
                "rm": {"exit": 2, "stderr": "no rm here"},
                "allowme": {
                    "json": {
                        "hookSpecificOutput": {
                            "hookEventName": "PreToolUse",
                            "permissionDecision": "allow",
                            "additionalContext": "ran by the hook's leave",
                        }
                    }
                },
                "denied": {
                    "json": {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
                },
                "rewrite": {
                    "json": {
                        "hookSpecificOutput": {
                            "hookEventName": "PreToolUse",
                            "permissionDecision": "allow",
                            "updatedInput": {"command": "touch rewritten"},
                        }
                    }
                },
            },
        ),
        permissions={"deny": ["Bash(touch denied*)"]},
    )
    script = [
        reply(
            bash("rm -f x", "t1"),
            bash("touch allowme", "t2"),
            bash("touch denied", "t3"),
            bash("touch rewrite", "t4"),
            stop_reason="tool_use",
        ),
        reply("Done."),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, parallel_tools=False, transcript=False)
        session.run_turn("go")
        second = api.message_requests[1].body
    results = {b["tool_use_id"]: b for b in results_of(second) if b["type"] == "tool_result"}
    assert results["t1"]["is_error"] and results["t1"]["content"].startswith("PreToolUse:Bash hook error: [")
    assert results["t1"]["content"].endswith("]: no rm here\n")
    assert (tmp_path / "allowme").exists()  # a hook allow skips the question -p could not ask
    assert not (tmp_path / "denied").exists() and "denied by the rule" in results["t3"]["content"]
    assert (tmp_path / "rewritten").exists() and not (tmp_path / "rewrite").exists()
    assert (
        "<system-reminder>\nPreToolUse:Bash hook additional context: ran by the hook's leave\n</system-reminder>\n"
        in texts(results_of(second))
    )  # after every tool_result, as Claude Code sends it
    finished = {e.tool_use_id: e for e in rec.of(HookFinished)}
    assert finished["t1"].outcome == "blocking" and finished["t1"].exit_code == 2 and finished["t1"].decision == "block"
    assert finished["t2"].decision == "allow" and finished["t2"].hook_name == "PreToolUse:Bash"
    started = {e.tool_use_id: e for e in rec.of(HookStarted)}
    assert json.loads(started["t4"].stdin)["tool_input"] == {"command": "touch rewrite", "description": "run"}


def test_post_tool_use_feedback_and_failure_hooks_reach_the_model(monkeypatch, tmp_path):
    write_project(
        tmp_path,
        hook(
            "PostToolUse",
            "Bash",
            json={
                "decision": "block",
                "reason": "lint failed",
                "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ctx after"},
            },
        ),
        hook("PostToolUseFailure", "Bash", record=str(tmp_path / "failure.json")),
    )
    script = [reply(bash("echo ok", "t1"), bash("exit 3", "t2"), stop_reason="tool_use"), reply("Done.")]
    with FakeAPI(script) as api:
        session, _rec = make_session(monkeypatch, api.base_url, tmp_path, allowed_tools=["Bash"], transcript=False)
        session.run_turn("go")
        second = api.message_requests[1].body
    notes = texts(results_of(second))
    assert any(
        'PostToolUse:Bash hook blocking error from command: "' in n
        and n.endswith('": lint failed\n</system-reminder>\n')
        for n in notes
    )
    assert "<system-reminder>\nPostToolUse:Bash hook additional context: ctx after\n</system-reminder>\n" in notes
    failure = json.loads((tmp_path / "failure.json").read_text())
    assert failure["hook_event_name"] == "PostToolUseFailure" and failure["tool_use_id"] == "t2"
    assert "Exit code: 3" in failure["error"] and failure["is_interrupt"] is False


def test_user_prompt_submit_blocks_the_prompt_or_adds_context(monkeypatch, tmp_path):
    write_project(
        tmp_path,
        hook(
            "UserPromptSubmit",
            when={"secret": {"exit": 2, "stderr": "no secrets"}, "hello": {"stdout": "the date is today"}},
        ),
    )
    with FakeAPI([reply("Hi.")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, transcript=False)
        session.run_turn("my secret is 42")
        assert api.message_requests == [] and session.messages == []  # erased, never sent
        stop = rec.of(LoopStopped)[-1]
        assert stop.reason == "hook_blocked" and stop.detail.endswith("so it was not sent: no secrets")
        session.run_turn("hello")
        first = api.message_requests[0].body
    assert texts(first["messages"][0]["content"]) == [
        "hello",
        "<system-reminder>\nUserPromptSubmit hook success: the date is today\n</system-reminder>\n",
    ]


def test_stop_hook_keeps_the_model_going_once_then_lets_it_stop(monkeypatch, tmp_path):
    write_project(tmp_path, hook("Stop", stop_once="run the tests first"))
    with FakeAPI([reply("Done."), reply("Tests pass.")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, transcript=False)
        session.run_turn("fix it")
        bodies = [r.body for r in api.message_requests]
    assert len(bodies) == 2
    assert texts(bodies[1]["messages"][-1]["content"])[0].startswith("Stop hook feedback:\n[")
    assert texts(bodies[1]["messages"][-1]["content"])[0].endswith("]: run the tests first\n")
    inputs = [json.loads(e.stdin) for e in rec.of(HookStarted)]
    assert [i["stop_hook_active"] for i in inputs] == [False, True]
    assert inputs[1]["last_assistant_message"] == "Tests pass."
    assert rec.of(LoopStopped)[-1].reason == "end_turn"


def test_continue_false_stops_the_loop_and_permission_request_hooks_answer(monkeypatch, tmp_path):
    write_project(
        tmp_path,
        hook(
            "PermissionRequest",
            "Bash",
            json={"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}},
        ),
        hook("PostToolUse", "Bash", json={"continue": False, "stopReason": "the build is broken"}),
    )
    script = [reply(bash("touch made", "t1"), stop_reason="tool_use"), reply("never asked")]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, transcript=False)
        session.run_turn("go")
        assert len(api.message_requests) == 1
    assert (tmp_path / "made").exists()  # -p cannot ask; the PermissionRequest hook allowed it
    stop = rec.of(LoopStopped)[-1]
    assert (stop.reason, stop.detail) == ("hook_stopped", "the build is broken")
    assert session.messages[-1]["content"][0]["type"] == "tool_result"  # the history stays valid


def test_a_ask_rule_still_asks_after_a_hook_allow(monkeypatch, tmp_path):
    write_project(
        tmp_path,
        hook(
            "PreToolUse",
            "Bash",
            json={"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}},
        ),
        permissions={"ask": ["Bash(touch:*)"]},
    )
    with FakeAPI([reply(bash("touch asked", "t1"), stop_reason="tool_use"), reply("ok")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, transcript=False)
        session.run_turn("go")
    assert not (tmp_path / "asked").exists()
    assert rec.of(ToolFinished)[0].status == "denied"


def test_session_start_context_and_session_end(monkeypatch, tmp_path):
    end = tmp_path / "end.json"
    write_project(
        tmp_path,
        hook("SessionStart", "startup", stdout="branch main, 3 open issues"),
        hook("SessionEnd", record=str(end)),
    )
    with FakeAPI([reply("Hi.")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, transcript=False)
        session.run_turn("hello")
        session.close()
        first = api.message_requests[0].body
    assert (
        "<system-reminder>\nSessionStart:startup hook success: branch main, 3 open issues\n</system-reminder>\n"
        in texts(first["messages"][0]["content"])
    )
    assert json.loads(end.read_text())["reason"] == "other"
    assert [e.hook_name for e in rec.of(HookFinished)] == ["SessionStart:startup", "SessionEnd:other"]


@pytest.mark.parametrize("trusted", [False, True])
def test_project_hooks_run_only_in_a_trusted_folder_user_hooks_always(monkeypatch, tmp_path, trusted):
    project = tmp_path / "p"
    project.mkdir()
    write_project(project, hook("UserPromptSubmit", record=str(tmp_path / "project.json")), trusted=trusted)
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "agent-tui" / "settings.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    command = f"{sys.executable} {HOOK} {shlex.quote(json.dumps({'record': str(tmp_path / 'user.json')}))}"
    user.write_text(
        (user.read_text() if user.exists() else "")
        + f'[[hooks.UserPromptSubmit]]\nhooks = [{{ type = "command", command = {json.dumps(command)} }}]\n'
    )
    with FakeAPI([reply("Hi.")]) as api:
        session, _rec = make_session(monkeypatch, api.base_url, project, transcript=False)
        session.run_turn("hello")
    assert (tmp_path / "user.json").exists()
    assert (tmp_path / "project.json").exists() is trusted


def test_a_hanging_or_flooding_hook_is_one_sentence_and_the_turn_goes_on(monkeypatch, tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "hooks": [
                                {"type": "command", "command": "sleep 30", "timeout": 0.3},
                                {"type": "command", "command": "head -c 10000000 /dev/zero; echo '{bad json'"},
                                {"type": "command", "command": "this-hook-does-not-exist"},
                            ]
                        }
                    ]
                }
            }
        )
    )
    write_project_trust = Path(os.environ["XDG_CONFIG_HOME"]) / "agent-tui" / "settings.toml"
    write_project_trust.parent.mkdir(parents=True, exist_ok=True)
    write_project_trust.write_text(f"trusted_folders = [{json.dumps(str(tmp_path))}]\n")
    with FakeAPI([reply(bash("echo fine", "t1"), stop_reason="tool_use"), reply("Done.")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, allowed_tools=["Bash"], transcript=False)
        session.run_turn("go")
    notices = [n.text for n in rec.of(Notice)]
    assert any("`sleep 30`" in n and "ran past its 0.3 s timeout and was stopped" in n for n in notices)
    assert any("`this-hook-does-not-exist`" in n and "failed with exit code 127" in n for n in notices)
    assert all(".claude/settings.json" in n for n in notices) and len(notices) == 2
    assert rec.of(ToolFinished)[0].status == "done" and rec.of(LoopStopped)[-1].reason == "end_turn"
    outcomes = sorted(e.outcome for e in rec.of(HookFinished))
    assert outcomes == ["error", "success", "timeout"]  # 10 MB then bad JSON: not JSON at all, plain output


def test_pre_compact_can_block_and_session_start_follows_a_compaction(monkeypatch, tmp_path):
    from tests.integration.test_compaction import synthetic_history

    write_project(
        tmp_path,
        hook("PreCompact", "manual", when={"keep": {"exit": 2, "stderr": "not now"}}),
        hook("SessionStart", "compact", stdout="re-read NOTES.md"),
    )
    history = synthetic_history(6, chars=100, seed=3)
    with FakeAPI([reply("Short summary."), reply("ok")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, transcript=False)
        session.messages = list(history)
        blocked = session.compact("keep everything")
        assert (
            not blocked.ok
            and blocked.detail == "A PreCompact hook blocked compaction, the history is unchanged: not now"
        )
        assert session.messages == history and api.message_requests == []
        assert session.compact("the TODO").ok
        session.run_turn("continue")
        sent = api.message_requests[-1].body["messages"][-1]["content"]
    compact_input = json.loads(rec.of(HookStarted)[0].stdin)
    assert (compact_input["trigger"], compact_input["custom_instructions"]) == ("manual", "keep everything")
    assert "<system-reminder>\nSessionStart:compact hook success: re-read NOTES.md\n</system-reminder>\n" in texts(sent)


def test_a_permission_question_fires_notification_hooks(monkeypatch, tmp_path, sandbox_off):
    import time

    from tui.agent.events import PermissionRequested
    from tui.agent.events.permission import PermissionReply

    seen = tmp_path / "notification.json"
    write_project(
        tmp_path, hook("Notification", "permission_prompt", record=str(seen)), permissions={"ask": ["Bash(touch:*)"]}
    )  # asks, whatever a sandbox would allow
    with FakeAPI([reply(bash("touch approved", "t1"), stop_reason="tool_use"), reply("ok")]) as api:
        session, _rec = make_session(monkeypatch, api.base_url, tmp_path, transcript=False, interactive=True)
        session.bus.subscribe(
            lambda e: isinstance(e, PermissionRequested) and e.reply.set_result(PermissionReply(True)), inline=True
        )
        session.run_turn("go")
    deadline = time.monotonic() + 60  # a bound for a loaded machine
    while not (seen.exists() and seen.read_text().endswith("}")) and time.monotonic() < deadline:
        time.sleep(0.02)  # the hook runs on a thread of its own
    data = json.loads(seen.read_text())
    assert (data["notification_type"], data["message"]) == (
        "permission_prompt",
        "Claude needs your permission to use Bash",
    )
    assert (tmp_path / "approved").exists()


def test_session_start_sources_resume_and_clear(monkeypatch, tmp_path):
    write_project(tmp_path, hook("SessionStart"), hook("SessionEnd"))
    with FakeAPI([reply("one"), reply("two"), reply("three")]) as api:
        first, rec1 = make_session(monkeypatch, api.base_url, tmp_path, sessions_dir=tmp_path / "sessions")
        first.run_turn("hello")
        first.close()
        second, rec2 = make_session(monkeypatch, api.base_url, tmp_path, sessions_dir=tmp_path / "sessions")
        second.resume(first.transcript_path)
        second.run_turn("again")
        second.clear()
        second.run_turn("fresh")
        second.close()
    assert [e.hook_name for e in rec1.of(HookFinished)] == ["SessionStart:startup", "SessionEnd:other"]
    names = [e.hook_name for e in rec2.of(HookFinished)]
    assert names[0] == "SessionStart:resume"  # /clear's SessionEnd runs on a thread: the rest in any order
    assert sorted(names[1:]) == ["SessionEnd:clear", "SessionEnd:other", "SessionStart:clear"]


def test_a_subagent_ending_fires_subagent_stop_not_stop(monkeypatch, tmp_path):
    sub, main = tmp_path / "subagent_stop.json", tmp_path / "stop.json"
    write_project(tmp_path, hook("SubagentStop", record=str(sub)), hook("Stop", record=str(main)))
    agent_call = tool_use("Agent", {"description": "look around", "prompt": "look around", "subagent_type": "Explore"})
    with FakeAPI([reply(agent_call, stop_reason="tool_use"), reply("Found it."), reply("All done.")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, transcript=False)
        session.run_turn("explore")
    inputs = [json.loads(e.stdin) for e in rec.of(HookStarted)]
    assert [i["hook_event_name"] for i in inputs] == ["SubagentStop", "Stop"]
    assert inputs[0]["agent_type"] == "Explore" and inputs[0]["last_assistant_message"] == "Found it."


def test_hook_json_with_fields_of_the_wrong_type_is_a_notice_and_the_rest_counts(monkeypatch, tmp_path):
    wrong = {
        "continue": "no",
        "systemMessage": 5,
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": ["deny"],
            "updatedInput": "rm -rf /",
            "additionalContext": "checked by the hook",
        },
    }
    write_project(tmp_path, hook("PreToolUse", "Bash", json=wrong))
    with FakeAPI([reply(bash("echo fine", "t1"), stop_reason="tool_use"), reply("Done.")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, allowed_tools=["Bash"], transcript=False)
        session.run_turn("go")
        second = api.message_requests[1].body
    notices = [n.text for n in rec.of(Notice)]
    assert len(notices) == 1, notices
    assert notices[0].startswith("PreToolUse hook `") and "(from " in notices[0]
    assert notices[0].endswith(
        "printed JSON where `continue` should be true or false, not a string; `systemMessage` "
        "should be a string, not a number; `hookSpecificOutput.permissionDecision` should be a "
        "string, not a list; `hookSpecificOutput.updatedInput` should be an object, not a "
        "string; those fields were ignored."
    )
    result = next(b for b in results_of(second) if b["type"] == "tool_result")
    assert result["content"].startswith("fine") and not result.get("is_error")  # the command ran as asked
    assert any("checked by the hook" in t for t in texts(results_of(second)))  # the well-typed field still counts
    assert rec.of(LoopStopped)[-1].reason == "end_turn"


def test_a_hook_stderr_cut_at_its_limit_says_it_was_cut(monkeypatch, tmp_path):
    flood = f"{shlex.quote(sys.executable)} -c \"import sys; sys.stderr.write('no ' * 100000); sys.exit(2)\""
    write_project(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": flood}]}]})
    with FakeAPI([reply(bash("echo fine", "t1"), stop_reason="tool_use"), reply("Done.")]) as api:
        session, _rec = make_session(monkeypatch, api.base_url, tmp_path, allowed_tools=["Bash"], transcript=False)
        session.run_turn("go")
        second = api.message_requests[1].body
    result = next(b for b in results_of(second) if b["type"] == "tool_result")
    assert result["is_error"] and "no no no" in result["content"]
    assert "[… the rest of this hook's stderr was cut: only its first 256 KB are kept]" in result["content"]
