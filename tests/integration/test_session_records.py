"""Fatal tool failures, the transcript file, and permission questions in interactive mode."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tui.agent.events import LoopStopped, PermissionRequested, PermissionResolved, ToolFinished
from tui.agent.events.permission import PermissionReply
from tui.tools.base import FatalToolError, Tool, ToolContext, ToolResult


class DiskFull(Tool):
    name = "Store"
    description = "Stores (test tool)."
    input_schema = {"type": "object", "properties": {}}
    read_only = True

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise FatalToolError("No space left on device while writing the file.")


def test_a_fatal_tool_failure_stops_the_loop_with_a_valid_history(monkeypatch, tmp_path):
    with FakeAPI([reply(tool_use("Store", {}), stop_reason="tool_use"), reply("never asked")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, tools=[DiskFull()])
        session.run_turn("store it")
        assert len(api.message_requests) == 1
    stop = rec.of(LoopStopped)[0]
    assert stop.reason == "tool_fatal" and "No space left" in stop.detail
    assert session.messages[-1]["content"][0]["is_error"] is True


def test_the_transcript_holds_every_message_in_order(monkeypatch, tmp_path):
    script = [reply(text("look"), tool_use("Glob", {"pattern": "*"}), stop_reason="tool_use"), reply("done")]
    with FakeAPI(script) as api:
        session, _rec = make_session(monkeypatch, api.base_url, tmp_path, sessions_dir=tmp_path / "sessions")
        session.run_turn("list files")
        session.close()
    path = session.transcript_path
    assert path is not None and path.parent.parent.parent == tmp_path / "sessions"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records[0]["type"] == "session" and records[0]["session_id"] == session.session_id
    assert [r["message"] for r in records if r["type"] == "message"] == session.messages
    kinds = {r["event"]["type"] for r in records if r["type"] == "event"}
    assert {"TurnStarted", "ResponseFinished", "LoopStopped", "TurnFinished"} <= kinds
    assert any(r["type"] == "request" for r in records)


def test_an_unwritable_data_dir_is_a_warning_not_a_crash(monkeypatch, tmp_path):
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    with FakeAPI([reply("fine")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, sessions_dir=blocked)
        session.run_turn("hi")
    assert rec.of(LoopStopped)[0].reason == "end_turn"
    assert any("transcript could not be written" in e.text for e in rec.events if e.type == "Notice")


def _answer_questions(session, replies: list[PermissionReply]) -> list[PermissionRequested]:
    asked: list[PermissionRequested] = []

    def on_event(event):
        if isinstance(event, PermissionRequested):
            asked.append(event)
            answer = replies[min(len(asked), len(replies)) - 1]
            threading.Timer(0.01, lambda: event.reply.set_result(answer)).start()

    session.bus.subscribe(on_event, inline=True)
    return asked


def test_interactive_permission_allow_deny_and_session_scope(monkeypatch, tmp_path: Path):
    script = [
        reply(tool_use("Write", {"file_path": "one.txt", "content": "1"}), stop_reason="tool_use"),
        reply(tool_use("Write", {"file_path": "two.txt", "content": "2"}), stop_reason="tool_use"),
        reply(tool_use("Write", {"file_path": "three.txt", "content": "3"}), stop_reason="tool_use"),
        reply("done"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, interactive=True)
        asked = _answer_questions(
            session,
            [
                PermissionReply(True, "once"),
                PermissionReply(False, reason="not that file"),
                PermissionReply(True, "once"),
            ],
        )
        session.run_turn("write files")
        assert api.errors == []
        denied = api.message_requests[2].body["messages"][-1]["content"][0]
    assert (tmp_path / "one.txt").read_text() == "1"
    assert not (tmp_path / "two.txt").exists()
    assert denied["is_error"] and "not that file" in denied["content"]
    assert (tmp_path / "three.txt").exists()
    assert len(asked) == 3 and asked[0].preview["kind"] == "diff"
    assert [e.allowed for e in rec.of(PermissionResolved)] == [True, False, True]
    assert [e.status for e in rec.of(ToolFinished)] == ["done", "denied", "done"]


def test_allow_for_the_session_stops_asking(monkeypatch, tmp_path: Path):
    script = [
        reply(tool_use("Write", {"file_path": "a.txt", "content": "a"}), stop_reason="tool_use"),
        reply(tool_use("Write", {"file_path": "b.txt", "content": "b"}), stop_reason="tool_use"),
        reply("done"),
    ]
    with FakeAPI(script) as api:
        session, _rec = make_session(monkeypatch, api.base_url, tmp_path, interactive=True)
        asked = _answer_questions(session, [PermissionReply(True, "session")])
        session.run_turn("write files")
    assert len(asked) == 1
    assert (tmp_path / "a.txt").exists() and (tmp_path / "b.txt").exists()


def test_cancel_while_waiting_for_permission_denies_and_stops(monkeypatch, tmp_path: Path):
    script = [reply(tool_use("Write", {"file_path": "a.txt", "content": "a"}), stop_reason="tool_use"), reply("next")]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, interactive=True)
        session.bus.subscribe(lambda e: session.cancel() if isinstance(e, PermissionRequested) else None, inline=True)
        session.run_turn("write")
        session.run_turn("other")
        assert api.errors == []
    assert not (tmp_path / "a.txt").exists()
    assert rec.of(LoopStopped)[0].reason == "interrupted"
