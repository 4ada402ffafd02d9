"""The tool belt through the loop: background tasks announced and ended with -p, WebFetch behind its domain rule."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tests.integration.test_exits import env, marker, none_left, signal_once_running, start, temp_files  # noqa: F401
from tui.agent.events import BackgroundShellChanged


def test_a_finished_task_is_announced_in_the_next_request(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    go = tmp_path / "go"  # the command ends only once its tool result went out (not a race with the request)

    def started(body: dict) -> object:
        go.touch()
        return reply(text("Started."), stop_reason="end_turn")

    build = f"while [ ! -e '{go}' ]; do sleep 0.02; done; echo built"
    script = [
        reply(
            tool_use("Bash", {"command": build, "run_in_background": True, "description": "build"}),
            stop_reason="tool_use",
        ),
        started,
        reply(text("It finished."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(
            monkeypatch, api.base_url, tmp_path, permission_mode="bypassPermissions", transcript=False
        )
        session.run_turn("build it in the background")
        [task] = session.state.tasks.all()
        assert session.state.tasks.wait(task.id, 30)
        session.run_turn("is it done?")
        bodies = [r.body for r in api.message_requests]
    assert "task-notification" not in json.dumps(bodies[1])  # not yet finished when the tool result went out
    last_user = bodies[2]["messages"][-1]["content"]
    notes = [b["text"] for b in last_user if b["type"] == "text" and "<task-notification>" in b["text"]]
    assert len(notes) == 1
    assert f"<task-id>{task.id}</task-id>" in notes[0] and "<status>completed</status>" in notes[0]
    assert 'Background command "build" completed (exit code 0)' in notes[0]
    assert [e.status for e in rec.of(BackgroundShellChanged)] == ["running", "completed"]
    session.close()


def test_print_mode_ends_background_tasks_when_it_ends(tmp_path: Path, env: dict[str, str]) -> None:
    mark = marker()
    script = [
        reply(
            tool_use("Bash", {"command": f"sleep {mark} & sleep {mark}", "run_in_background": True}),
            stop_reason="tool_use",
        ),
        reply(text("Left it running."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        proc = start(["start a server", "--output-format", "json"], tmp_path, env, api.base_url)
        out, err = proc.communicate(timeout=60)
        result = api.message_requests[1].body["messages"][-1]["content"][0]["content"]
    assert proc.returncode == 0, err
    assert "Command running in background with ID: b" in result
    assert json.loads(out)["result"] == "Left it running."
    assert none_left(mark) == [], "a background task must end with the -p run"
    assert temp_files(env) == []


def test_webfetch_asks_by_default_and_a_domain_rule_lets_the_small_model_answer(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import threading
    from http.server import ThreadingHTTPServer

    from tests.unit.tools.test_web_fetch import Handler  # the loopback pages

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/page.html"
    call = tool_use("WebFetch", {"url": url, "prompt": "What version?"})
    script = [
        reply(call, stop_reason="tool_use"),
        reply(text("Not allowed."), stop_reason="end_turn"),
        reply(call, stop_reason="tool_use"),
        reply(text("Version 2.0.")),  # the second is the small model
        reply(text("It is 2.0."), stop_reason="end_turn"),
    ]
    try:
        with FakeAPI(script) as api:
            session, _ = make_session(monkeypatch, api.base_url, tmp_path, transcript=False)
            session.run_turn("which version?")
            denied = api.message_requests[1].body["messages"][-1]["content"][0]
            session.policy.allow.append("WebFetch(domain:127.0.0.1)")
            session.run_turn("which version, now?")
            side, after = api.message_requests[3].body, api.message_requests[4].body
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert denied["is_error"] and "needs approval" in denied["content"]
    assert side["model"] == "claude-haiku-5-5" and "tools" not in side
    assert "# Release notes" in side["messages"][0]["content"][0]["text"]
    result = after["messages"][-1]["content"][0]
    assert not result.get("is_error") and result["content"].endswith("Version 2.0.")


def test_web_search_is_a_server_tool_and_pause_turn_continues_the_turn(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.fakeapi.web_search import SEARCH_ID, search_script
    from tui.agent.events import ResponseFinished, StopReasonHandled, TurnFinished

    with FakeAPI(search_script()) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, transcript=False)
        session.run_turn("what is textual?")
        first, second = (r.body for r in api.message_requests)
    assert {"type": "web_search_20250305", "name": "web_search", "max_uses": 8} in [
        {k: v for k, v in t.items() if k != "cache_control"} for t in first["tools"]
    ]
    assert second["messages"][-1]["role"] == "assistant"  # the paused content goes back as it is
    assert second["messages"][-1]["content"][-1]["id"] == SEARCH_ID
    actions = [e.action for e in rec.of(StopReasonHandled)]
    assert actions == ["server tool paused, turn continues (1/10)", "turn ends"]
    [finished] = rec.of(TurnFinished)
    assert finished.usage["web_search_requests"] == 1 and finished.cost_usd >= 0.01
    assert rec.of(ResponseFinished)[1].message["content"][0]["type"] == "web_search_tool_result"
    assert session.last_assistant_text() == "Textual is a Python framework for terminal UIs."


def test_a_websearch_deny_rule_keeps_the_server_tool_out(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with FakeAPI([reply(text("ok"))]) as api:
        session, _ = make_session(monkeypatch, api.base_url, tmp_path, transcript=False, disallowed_tools=["WebSearch"])
        session.run_turn("hi")
        tools = api.message_requests[0].body["tools"]
    assert not any(t.get("name") == "web_search" for t in tools) and any(t["name"] == "WebFetch" for t in tools)


def test_pause_turn_continues_at_most_ten_times(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tests.fakeapi.script import pause_turn
    from tui.agent.events import LoopStopped

    with FakeAPI([pause_turn() for _ in range(12)]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, transcript=False)
        session.run_turn("search forever")
        assert len(api.message_requests) == 11
    [stopped] = rec.of(LoopStopped)
    assert stopped.is_error and "paused the turn 11 times in a row" in stopped.detail


def test_without_a_person_to_ask_the_questions_are_an_error_the_model_can_act_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.ui.test_tool_belt import ONE_QUESTION

    script = [
        reply(
            tool_use("AskUserQuestion", {"questions": ONE_QUESTION}),
            tool_use("ExitPlanMode", {"plan": "x"}),
            stop_reason="tool_use",
        ),
        reply(text("I will assume a.")),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, tmp_path, transcript=False, permission_mode="plan")
        session.run_turn("ask me")
        ask, plan = api.message_requests[1].body["messages"][-1]["content"]
    assert ask["is_error"] and "non-interactive (-p), so no one can answer" in ask["content"]
    assert plan["is_error"] and "ExitPlanMode needs a person" in plan["content"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])  # SIGINT: Ctrl+C
def test_a_signal_ends_background_tasks(tmp_path: Path, env: dict[str, str], signum: int) -> None:
    mark = marker()
    script = [
        reply(
            tool_use("Bash", {"command": f"sleep {mark}", "run_in_background": True}),
            tool_use("Bash", {"command": f"echo started; sleep {mark}"}),
            stop_reason="tool_use",
        ),
        reply(text("never")),
    ]
    with FakeAPI(script) as api:
        proc = start(
            ["go", "--output-format", "stream-json", "--include-partial-messages"], tmp_path, env, api.base_url
        )
        err, left = signal_once_running(proc, mark, 2, signum)  # the background sleep and the foreground one
    assert proc.returncode == 128 + signum, err
    assert left == [] and temp_files(env) == []


def test_web_search_settings_reach_the_server_tool(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / ".agent-tui").mkdir()
    (tmp_path / ".agent-tui" / "settings.toml").write_text(
        'web_search_max_uses = 3\nweb_search_blocked_domains = ["pinterest.com"]\nweb_search_allowed_domains = 7\n'
    )
    with FakeAPI([reply(text("ok"))]) as api:
        proc = start(["hi"], tmp_path, env, api.base_url)
        _, err = proc.communicate(timeout=60)
        tools = api.message_requests[0].body["tools"]
    [search] = [t for t in tools if t.get("name") == "web_search"]
    assert search["max_uses"] == 3 and search["blocked_domains"] == ["pinterest.com"]
    assert "web_search_allowed_domains" in err and "expected a list of strings, got an integer" in err


def test_print_mode_reports_searches_as_claude_code_does(tmp_path: Path, env: dict[str, str]) -> None:
    from tests.fakeapi.web_search import search_script

    with FakeAPI(search_script()) as api:
        proc = start(["what is textual?", "--output-format", "json"], tmp_path, env, api.base_url)
        out, err = proc.communicate(timeout=60)
    result = json.loads(out)
    assert result["usage"]["server_tool_use"] == {"web_search_requests": 1}, err
    assert result["result"] == "Textual is a Python framework for terminal UIs."


def test_a_prompt_in_plan_mode_carries_the_reminder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with FakeAPI([reply(text("a")), reply(text("b"))]) as api:
        session, _ = make_session(
            monkeypatch, api.base_url, tmp_path, transcript=False, permission_mode="plan", interactive=True
        )  # the app: someone answers ExitPlanMode
        session.run_turn("plan it")
        session.policy.mode = "default"
        session.run_turn("do it")
        first, second = (r.body["messages"][-1]["content"] for r in api.message_requests)
    assert "Plan mode is on" in first[-1]["text"] and "ExitPlanMode" in first[-1]["text"]
    assert not any("Plan mode is on" in b.get("text", "") for b in second)


def test_notes_added_to_a_prompt_are_not_shown_as_the_users_words_on_resume(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tui.ui.screens.resume_screen import history_records

    with FakeAPI([reply(text("a"))]) as api:
        session, _ = make_session(monkeypatch, api.base_url, tmp_path, transcript=False, permission_mode="plan")
        task = session.state.tasks.start_worker("agent", "explore", lambda handle: None)
        session.state.tasks.wait(task.id, 10)
        session.run_turn("plan it")
    sent = session.messages[0]["content"]
    assert [b["text"].split("\n")[0] for b in sent] == ["plan it", "<task-notification>", "<system-reminder>"]
    [turn] = history_records(session.messages)
    assert [b.text for b in turn.blocks if b.kind == "user"] == ["plan it"]


def test_print_mode_caps_a_background_output_by_the_setting_and_tells_the_model(
    tmp_path: Path, env: dict[str, str]
) -> None:
    import re

    from tests.integration.test_providers import write_user_settings

    write_user_settings("background_output_limit_mb = 1\n")

    def tool_result(body: dict) -> dict:
        # the task may end before the next request: its <task-notification> then rides beside the result
        return next(b for b in body["messages"][-1]["content"] if b["type"] == "tool_result")

    def read_it(body: dict) -> object:
        result = tool_result(body)
        task_id = re.search(r"with ID: (\w+)", result["content"]).group(1)  # type: ignore[union-attr]
        return reply(
            tool_use("TaskOutput", {"task_id": task_id, "block": True, "timeout": 60000}), stop_reason="tool_use"
        )

    script = [
        reply(tool_use("Bash", {"command": "seq 1 2000000", "run_in_background": True}), stop_reason="tool_use"),
        read_it,
        reply(text("Read it."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        proc = start(["count"], tmp_path, env, api.base_url)
        _, err = proc.communicate(timeout=120)
        result = tool_result(api.message_requests[2].body)
    assert proc.returncode == 0, err
    assert "<status>completed</status>" in result["content"]
    assert "<output_note>The output passed its 1.0 MB cap (setting background_output_limit_mb)" in result["content"]
