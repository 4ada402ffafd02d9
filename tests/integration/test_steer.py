"""Queue and steer on the wire: messages typed while a turn runs, through the real SDK and the fake API.

Each message is queued at a chosen moment of the turn (while a Gate tool call holds its batch, or
while a request is on its way), as the app's prompt would queue it, so nothing here depends on timing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import Gate, make_session, with_gate
from tui.agent.events import LoopStopped, MessageQueued, MessagesSteered, TurnStarted
from tui.agent.history.resume import load_session
from tui.agent.inbox import Inbox
from tui.agent.loop.steer import may_add_text


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    root = tmp_path / "proj"
    root.mkdir()
    make_demo_project(root)
    return root


def texts(message: dict[str, Any]) -> list[str]:
    return [b["text"] for b in message["content"] if b.get("type") == "text"]


def gate_and_read_then_done(project: Path) -> list:
    return [
        reply(
            text("Reading."),
            tool_use("Gate", {}),
            tool_use("Read", {"file_path": str(project / "a.py")}),
            stop_reason="tool_use",
        ),
        reply(text("Done, and c.py too."), stop_reason="end_turn"),
    ]


def run_with_typing(session: Any, gate: Gate, prompt: str, *typed: str, interrupt: bool = False) -> None:
    """Start a turn, type `typed` into the inbox while the Gate call runs, let it finish."""
    session.submit(prompt)
    assert gate.started.wait(30)
    for message in typed:
        session.inbox.put(message)
    if interrupt:
        session.cancel()
    gate.opened.set()
    assert session.wait(30)


def test_queued_messages_join_the_tool_results_message_after_the_results(monkeypatch, project):
    with FakeAPI(gate_and_read_then_done(project)) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        gate = with_gate(session)
        run_with_typing(session, gate, "read a.py", "also look at c.py", "and keep it short")
        assert api.errors == []  # the fake API checks the protocol: results first, one user message
        bodies = [r.body for r in api.message_requests]
    assert len(bodies) == 2
    last = bodies[1]["messages"][-1]
    assert last["role"] == "user"
    assert [b["type"] for b in last["content"]] == ["tool_result", "tool_result", "text", "text"]
    assert texts(last) == ["also look at c.py", "and keep it short"]
    assert bodies[1]["messages"][-2]["role"] == "assistant"  # no message sits between the calls and the results
    steered = rec.of(MessagesSteered)
    assert [(e.iteration, e.texts) for e in steered] == [(2, ("also look at c.py", "and keep it short"))]
    assert [e.count for e in rec.of(MessageQueued)] == [1, 2]
    assert len(session.inbox) == 0 and len(rec.of(TurnStarted)) == 1


def test_a_queue_left_at_end_turn_starts_the_next_turn_at_once(monkeypatch, project):
    holder: dict[str, Any] = {}

    def script(body: dict[str, Any]) -> Any:
        if len(body["messages"]) == 1:  # request 1 is on its way: the user types before its reply streams
            holder["session"].inbox.put("and a follow-up")
            return reply(text("First answer."), stop_reason="end_turn")
        return reply(text("Second answer."), stop_reason="end_turn")

    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        holder["session"] = session
        session.submit("first question")
        assert session.wait(30)
        assert api.errors == []
        bodies = [r.body for r in api.message_requests]
    assert [e.prompt for e in rec.of(TurnStarted)] == ["first question", "and a follow-up"]
    assert rec.of(MessagesSteered) == []  # the turn had no boundary left: nothing went with request 1
    assert [m["role"] for m in bodies[1]["messages"]] == ["user", "assistant", "user"]
    assert texts(bodies[1]["messages"][-1]) == ["and a follow-up"]
    assert not session.inbox.active and len(session.inbox) == 0


def test_an_interrupt_keeps_the_protocol_and_sends_the_queue_next(monkeypatch, project):
    script = [
        reply(text("Waiting."), tool_use("Gate", {}), stop_reason="tool_use"),
        reply(text("Answering the queued message."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        gate = with_gate(session)
        run_with_typing(session, gate, "wait", "never mind, explain b.py", interrupt=True)
        assert api.errors == []
        bodies = [r.body for r in api.message_requests]
    assert [e.reason for e in rec.of(LoopStopped)] == ["interrupted", "end_turn"]
    last = bodies[1]["messages"][-1]
    assert last["content"][0]["type"] == "tool_result"  # the interrupted call still has its result, first
    assert texts(last)[-1] == "never mind, explain b.py"


def test_a_subagent_never_receives_the_main_conversations_queue(monkeypatch, project):
    def script(body: dict[str, Any]) -> Any:
        first = body["messages"][0]["content"]
        first = (
            first if isinstance(first, str) else " ".join(b.get("text", "") for b in first if b.get("type") == "text")
        )
        if first.startswith("count the files"):  # the subagent: its Gate call runs while the user types
            if len(body["messages"]) == 1:
                return reply(text("Looking."), tool_use("Gate", {}), stop_reason="tool_use")
            return reply(text("3 files."), stop_reason="end_turn")
        if len(body["messages"]) == 1:
            return reply(
                tool_use("Agent", {"description": "count", "prompt": "count the files"}), stop_reason="tool_use"
            )
        return reply(text("The agent counted 3."), stop_reason="end_turn")

    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        gate = with_gate(session)
        run_with_typing(session, gate, "use an agent", "QUEUED-FOR-MAIN")
        assert api.errors == []
        bodies = [r.body for r in api.message_requests]
    sub = [b for b in bodies if "count the files" in str(b["messages"][0])]
    main = [b for b in bodies if b not in sub]
    assert len(sub) == 2 and len(main) == 2
    assert all("QUEUED-FOR-MAIN" not in str(b["messages"]) for b in sub)  # its request after the typing too
    assert texts(main[1]["messages"][-1]) == ["QUEUED-FOR-MAIN"]
    assert [e.loop_path for e in rec.of(MessagesSteered)] == ["main"]


def test_the_transcript_keeps_steered_text_for_resume(monkeypatch, project, tmp_path):
    with FakeAPI(gate_and_read_then_done(project)) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, sessions_dir=tmp_path / "sessions")
        gate = with_gate(session)
        run_with_typing(session, gate, "read a.py", "also look at c.py")
        path = session.transcript_path
        session.close()
    loaded = load_session(path)
    steered = loaded.messages[2]
    assert [b["type"] for b in steered["content"]] == ["tool_result", "tool_result", "text"]
    assert texts(steered) == ["also look at c.py"]
    from tui.ui.screens.resume_screen import history_records

    turns = history_records(loaded.messages)
    assert len(turns) == 1  # the steered text is part of the turn it joined, not a turn of its own
    assert [b.text for b in turns[0].blocks if b.kind == "user"] == ["read a.py", "also look at c.py"]


def test_later_messages_wait_for_the_next_turn_and_keep_their_order():
    inbox = Inbox()
    inbox.put("a")
    inbox.put("b", steer=False)
    inbox.put("c")
    assert [m.text for m in inbox.take_steerable()] == ["a"]
    assert [m.text for m in inbox.take_steerable()] == []
    assert [m.text for m in inbox.next_batch()] == ["b", "c"]  # "b" starts a turn; "c" may join it
    inbox.put("d")
    inbox.put("e", steer=False)
    assert [m.text for m in inbox.next_batch()] == ["d"] and [m.text for m in inbox.next_batch()] == ["e"]


def test_no_text_goes_where_only_tool_results_may():
    pending = {
        "role": "assistant",
        "content": [
            {"type": "server_tool_use", "id": "srv1", "name": "web_search"},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {}},
        ],
    }
    results = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}
    assert not may_add_text([{"role": "user", "content": "q"}, pending, results])
    answered = {
        "role": "assistant",
        "content": [*pending["content"], {"type": "web_search_tool_result", "tool_use_id": "srv1", "content": []}],
    }
    assert may_add_text([{"role": "user", "content": "q"}, answered, results])
    assert not may_add_text([{"role": "user", "content": "q"}, answered])  # pause_turn: no user message to add to
