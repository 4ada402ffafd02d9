"""MCP inside an interactive session on the fake API: waiting, tools between turns, `@server:uri` attachments."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI, reply, text, tool_use
from tests.integration.helpers import make_session
from tests.integration.mcp_helpers import kitchen
from tui.agent.events import McpServerChanged, ToolQueued


def test_turns_wait_only_for_named_servers_and_tools_change_between_turns(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    script = [
        reply(text("Hello."), stop_reason="end_turn"),
        reply(tool_use("mcp__kitchen__grow", {}), stop_reason="tool_use"),
        reply(text("Grown."), stop_reason="end_turn"),
        reply(text("Read it."), stop_reason="end_turn"),
        reply(
            tool_use("mcp__kitchen__add", {"a": 1, "b": 2}),
            tool_use("mcp__kitchen__add", {"a": 3, "b": 4}),
            tool_use("mcp__kitchen__echo", {"text": "x"}),
            stop_reason="tool_use",
        ),
        reply(text("Added."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(
            monkeypatch,
            api.base_url,
            tmp_path,
            interactive=True,
            transcript=False,
            mcp_servers=[kitchen("kitchen", "--slow-start", "1")],
            allowed_tools=["mcp__kitchen"],
        )
        session.mcp.start()
        session.run_turn("hello")  # names no server: goes at once, without MCP tools
        first = [t["name"] for t in api.message_requests[0].body["tools"]]
        assert not any(name.startswith("mcp__") for name in first)
        session.run_turn("grow a tool with kitchen")  # names the server: waits for it
        second = [t["name"] for t in api.message_requests[1].body["tools"]]
        assert "mcp__kitchen__grow" in second and "mcp__kitchen__grown" not in second
        assert api.message_requests[2].body["tools"] == api.message_requests[1].body["tools"]  # fixed within a turn
        session.run_turn("what do @kitchen:notes://today say?")
        body = api.message_requests[3].body
        assert "mcp__kitchen__grown" in [t["name"] for t in body["tools"]]  # list_changed, taken between turns
        prompt = body["messages"][-1]["content"]
        assert prompt[0]["text"] == "what do @kitchen:notes://today say?"
        assert prompt[1]["text"] == "[Resource notes://today]\nbuy milk"
        session.run_turn("add with kitchen")  # readOnlyHint calls run together; echo (no hint) runs alone
        queued = [e for e in rec.of(ToolQueued) if e.name != "mcp__kitchen__grow"]
        assert [(e.name, e.parallel) for e in queued] == [
            ("mcp__kitchen__add", True),
            ("mcp__kitchen__add", True),
            ("mcp__kitchen__echo", False),
        ]
        results = api.message_requests[5].body["messages"][-1]["content"]
        assert [r["content"] for r in results] == ["3", "7", "echo: x"]
        session.close()
    statuses = [e.status for e in rec.of(McpServerChanged) if e.server == "kitchen"]
    assert statuses[0] == "pending" and "connected" in statuses
