"""Thinking, effort and the cost ceiling on the wire: the real SDK against the fake Messages API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import reply, tool_use
from tests.integration.helpers import make_session
from tests.integration.test_headless import run_cli
from tui.agent.events import LoopStopped


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_demo_project(tmp_path)
    return tmp_path


def sent(api: FakeAPI, key: str, index: int = 0):
    return api.message_requests[index].body.get(key)


def test_effort_and_thinking_off_reach_the_api_and_it_accepts_them(monkeypatch, project):
    with FakeAPI([reply("ok")]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, effort="high", thinking=False)
        session.run_turn("hello")
        assert api.errors == []
    assert sent(api, "output_config") == {"effort": "high"}
    assert sent(api, "thinking") == {"type": "between_tools"}  # claude-sonnet-5-5 refuses `disabled`


def test_ultrathink_on_a_budget_model_sends_a_budget_below_max_tokens(monkeypatch, project):
    with FakeAPI([reply("ok")]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, model="claude-haiku-4-5", effort="high")
        session.run_turn("ultrathink: why is b.py slow?")
        assert api.errors == []
    assert sent(api, "thinking") == {"type": "enabled", "budget_tokens": 31_999}
    assert sent(api, "max_tokens") == 64_000  # Haiku 4.5's output limit, the default
    assert sent(api, "output_config") is None  # Haiku 4.5 has no effort: nothing new is sent


def test_a_choice_made_during_a_turn_waits_for_the_next_turn(monkeypatch, project):
    session_box: list = []

    def script(body):
        if len(body["messages"]) == 1:
            session_box[0].options.thinking = False  # Tab pressed while the first request streams
            session_box[0].options.effort = "low"
            return reply(tool_use("Glob", {"pattern": "*.py"}), stop_reason="tool_use")
        return reply("done")

    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, model="claude-opus-4-8")
        session_box.append(session)
        session.run_turn("list the python files")
        session.run_turn("and now?")
        assert api.errors == []
    first, second, third = (r.body for r in api.message_requests)
    assert first["thinking"] == second["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert second["output_config"] == {"effort": "high"}  # Opus 4.8's default, unchanged within the turn
    assert "thinking" not in third and third["output_config"] == {"effort": "low"}


def test_max_budget_usd_stops_the_loop_and_names_the_boundary(monkeypatch, project):
    again = lambda body: reply(tool_use("Glob", {"pattern": f"*{len(body['messages'])}"}), stop_reason="tool_use")  # noqa: E731
    with FakeAPI(again) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, max_budget_usd=0.000001)
        session.run_turn("go")
        assert len(api.message_requests) == 1
    stop = rec.of(LoopStopped)[0]
    assert stop.reason == "max_budget_usd" and stop.is_error
    assert "--max-budget-usd" in stop.detail and "$0.000001" in stop.detail


def test_print_mode_takes_effort_and_the_cost_ceiling(project):
    again = lambda body: reply(tool_use("Glob", {"pattern": f"*{len(body['messages'])}"}), stop_reason="tool_use")  # noqa: E731
    with FakeAPI(again) as api:
        proc = run_cli(
            ["-p", "go", "--output-format", "stream-json", "--effort", "max", "--max-budget-usd", "0.01"],
            project,
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test"},
        )
        assert api.errors == []
        assert all(r.body["output_config"] == {"effort": "max"} for r in api.message_requests)
    result = json.loads(proc.stdout.splitlines()[-1])
    assert proc.returncode == 1
    assert result["subtype"] == "error_max_budget_usd" and result["stop_reason"] == "max_budget_usd"
    assert "--max-budget-usd" in result["detail"] and result["total_cost_usd"] >= 0.01
    assert "stopped (max_budget_usd)" in proc.stderr


def test_print_mode_says_when_the_model_has_no_effort(project):
    with FakeAPI([reply("ok")]) as api:
        proc = run_cli(
            ["-p", "hi", "--model", "claude-haiku-4-5", "--effort", "low"],
            project,
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test"},
        )
        assert "output_config" not in api.message_requests[0].body
    assert proc.returncode == 0
    assert "agent-tui: --effort: claude-haiku-4-5 has no effort setting; nothing is sent for it." in proc.stderr
    bad = run_cli(["-p", "hi", "--effort", "huge"], project)
    assert bad.returncode == 2 and "invalid choice: 'huge'" in bad.stderr


def test_a_projects_effort_level_reaches_the_api_and_effort_wins_over_it(project):
    """Claude Code 2.1.332 sends a project's `effortLevel`; agent-tui did not read it."""
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"effortLevel": "low"}))
    env = {"ANTHROPIC_BASE_URL": "", "ANTHROPIC_API_KEY": "sk-test"}
    with FakeAPI([reply("ok")]) as api:
        assert run_cli(["-p", "hi"], project, {**env, "ANTHROPIC_BASE_URL": api.base_url}).returncode == 0
        assert sent(api, "output_config") == {"effort": "low"}
    with FakeAPI([reply("ok")]) as api:
        run_cli(["-p", "hi", "--effort", "high"], project, {**env, "ANTHROPIC_BASE_URL": api.base_url})
        assert sent(api, "output_config") == {"effort": "high"}
