"""The loop end to end through the real SDK against the loopback fake Messages API."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import (
    drop,
    http_error,
    max_tokens_mid_tool_use,
    no_message_stop,
    pause_turn,
    refusal,
    reply,
    sse_error,
    stall,
    text,
    tool_use,
)
from tests.integration.helpers import SlowRead, make_session
from tui.agent.api.request import count_breakpoints
from tui.agent.events import (
    LoopStopped,
    RequestSent,
    RetryScheduled,
    StopReasonHandled,
    ToolFinished,
    ToolStarted,
    TurnFinished,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_demo_project(tmp_path)
    return tmp_path


def three_step_script(project: Path) -> list:
    return [
        reply(
            text("Let me look at the files."),
            tool_use("Read", {"file_path": str(project / "a.py")}),
            tool_use("Read", {"file_path": "b.py"}),
            tool_use("Grep", {"pattern": "TODO", "output_mode": "content", "-n": True}),
            stop_reason="tool_use",
        ),
        reply(
            text("Fixing the TODO in a.py."),
            tool_use(
                "Edit",
                {
                    "file_path": "a.py",
                    "old_string": "    # TODO: validate inputs",
                    "new_string": "    # inputs are validated by the caller",
                },
            ),
            stop_reason="tool_use",
        ),
        reply(text("Done: a.py no longer has a TODO."), stop_reason="end_turn"),
    ]


def test_three_step_session_obeys_the_request_rules(monkeypatch, project):
    with FakeAPI(three_step_script(project)) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, permission_mode="acceptEdits")
        session.run_turn("Look at a.py and b.py, find the TODOs, and fix the one in a.py.")
        assert api.errors == []
        bodies = [r.body for r in api.message_requests]
    assert len(bodies) == 3
    assert "inputs are validated by the caller" in (project / "a.py").read_text()
    for body in bodies:
        assert body["stream"] is True
        assert not {"temperature", "top_p", "top_k"} & body.keys()
        assert isinstance(body["system"], list) and body["system"][0]["cache_control"] == {"type": "ephemeral"}
        assert any("Working directory" in b["text"] and "git" in b["text"] for b in body["system"][1:])
        assert all("input_schema" in t for t in body["tools"] if "type" not in t)  # server tools (WebSearch) have none
        assert "cache_control" in body["tools"][-1]
        assert count_breakpoints(body) <= 4
        last = body["messages"][-1]["content"][-1]
        assert last["cache_control"] == {"type": "ephemeral"}
    # request 2: the three results in one user message, in tool_use order, nothing else
    second = bodies[1]["messages"]
    assistant, results = second[-2], second[-1]
    ids = [b["id"] for b in assistant["content"] if b["type"] == "tool_use"]
    assert results["role"] == "user"
    assert [b["type"] for b in results["content"]] == ["tool_result"] * 3
    assert [b["tool_use_id"] for b in results["content"]] == ids
    assert "1\tdef add(a, b):" in str(results["content"][0]["content"])

    # the history only grows: request 3 starts with request 2's messages (markers aside)
    def strip(ms: list[dict]) -> list[dict]:
        return [
            {**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]} for m in ms
        ]

    assert strip(bodies[2]["messages"][: len(second)]) == strip(second)
    actions = [e.action for e in rec.of(StopReasonHandled)]
    assert actions[0] == "dispatching 3 tools, 3 in parallel"
    assert actions[-1] == "turn ends"
    assert rec.types()[-2:] == ["LoopStopped", "TurnFinished"]
    finished = rec.of(TurnFinished)[0]
    assert finished.num_iterations == 3 and finished.usage["output_tokens"] > 0


def test_three_parallel_reads_overlap_in_time(monkeypatch, project):
    slow = SlowRead(0.3)
    script = [
        reply(
            tool_use("SlowRead", {"file_path": "a"}),
            tool_use("SlowRead", {"file_path": "b"}),
            tool_use("SlowRead", {"file_path": "c"}),
            stop_reason="tool_use",
        ),
        reply("ok"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, tools=[slow])
        session.run_turn("read three")
        assert api.errors == []
    starts = [s for s, _ in slow.spans]
    ends = [e for _, e in slow.spans]
    assert len(slow.spans) == 3
    assert max(starts) < min(ends), "the three calls did not overlap"
    assert {e.parallel for e in rec.of(ToolStarted)} == {True}
    assert len({e.batch for e in rec.of(ToolStarted)}) == 1


def test_parallelism_can_be_turned_off(monkeypatch, project):
    slow = SlowRead(0.05)
    script = [
        reply(
            tool_use("SlowRead", {"file_path": "a"}), tool_use("SlowRead", {"file_path": "b"}), stop_reason="tool_use"
        ),
        reply("ok"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, tools=[slow], parallel_tools=False)
        session.run_turn("read two")
    (_s1, e1), (s2, _e2) = sorted(slow.spans)
    assert e1 <= s2
    assert {e.parallel for e in rec.of(ToolStarted)} == {False}


def test_overloaded_then_success_is_retried_visibly(monkeypatch, project):
    with FakeAPI([http_error(529), http_error(529), reply("hello")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("hi")
        assert len(api.message_requests) == 3
    retries = rec.of(RetryScheduled)
    assert [r.attempt for r in retries] == [2, 3]
    assert retries[0].reason == "overloaded" and retries[0].status == 529
    assert rec.of(LoopStopped)[0].reason == "end_turn"
    assert [m["role"] for m in session.messages] == ["user", "assistant"]


def test_retry_after_is_honoured(monkeypatch, project):
    with FakeAPI([http_error(429, headers={"retry-after": "0.2"}), reply("hi")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("hi")
        t = [r.t_received for r in api.message_requests]
    assert rec.of(RetryScheduled)[0].delay_s == pytest.approx(0.2, abs=0.01)
    assert t[1] - t[0] >= 0.19


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(lambda: drop(after_events=5), id="dropped-connection"),
        pytest.param(lambda: sse_error(after_events=5), id="sse-error-mid-stream"),
        pytest.param(lambda: sse_error(after_events=1), id="sse-error-at-start"),
        pytest.param(lambda: no_message_stop(reply("partial answer that never ends")), id="no-message-stop"),
    ],
)
def test_stream_failures_are_retried_without_duplicating_content(monkeypatch, project, fault):
    with FakeAPI([fault(), reply("the real answer")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("hi")
        assert api.errors == []
        assert len(api.message_requests) == 2
        assert api.message_requests[0].body["messages"] == api.message_requests[1].body["messages"]
    assert len(rec.of(RetryScheduled)) == 1
    assert [m["role"] for m in session.messages] == ["user", "assistant"]
    assert session.messages[-1]["content"] == [{"type": "text", "text": "the real answer"}]


def test_stalled_stream_is_retried(monkeypatch, project):
    with FakeAPI([stall(after_events=3, seconds=3), reply("after the stall")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, stream_idle_timeout=0.4)
        session.run_turn("hi")
    assert rec.of(RetryScheduled)[0].reason == "stream stalled"
    assert session.last_assistant_text() == "after the stall"


def test_500_with_should_retry_false_stops_at_once(monkeypatch, project):
    with FakeAPI([http_error(500, headers={"x-should-retry": "false"}), reply("never")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("hi")
        assert len(api.message_requests) == 1
    stop = rec.of(LoopStopped)[0]
    assert stop.reason == "api_error" and stop.is_error


@pytest.mark.parametrize(
    ("status", "needle"),
    [(401, "API key was rejected"), (403, "not allowed"), (404, "claude-sonnet-5-5"), (400, "rejected the request")],
)
def test_fatal_api_errors_stop_with_one_sentence(monkeypatch, project, status, needle):
    with FakeAPI([http_error(status)]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("hi")
        assert len(api.message_requests) == 1
    stop = rec.of(LoopStopped)[0]
    assert stop.reason == "api_error" and needle in stop.detail
    assert "\n" not in stop.detail


def test_max_tokens_never_runs_a_cut_tool_use(monkeypatch, project):
    script = [max_tokens_mid_tool_use("Write", {"file_path": "x.txt", "content": "long"}), reply("next turn")]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, permission_mode="bypassPermissions")
        session.run_turn("write")
        assert not (project / "x.txt").exists()
        assert rec.of(LoopStopped)[0].reason == "max_tokens"
        session.run_turn("go on")  # the next request must be valid
        assert api.errors == []


def test_refusal_stops_and_says_why(monkeypatch, project):
    with FakeAPI([refusal("I", category="cyber", explanation="Not allowed")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("hi")
    stop = rec.of(LoopStopped)[0]
    assert stop.reason == "refusal" and "cyber" in stop.detail


def test_pause_turn_sends_the_content_back(monkeypatch, project):
    with FakeAPI([pause_turn(), reply("search done")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("search")
        second = api.message_requests[1].body["messages"]
    assert second[-1]["role"] == "assistant"
    assert rec.of(LoopStopped)[0].reason == "end_turn"


def test_unknown_stop_reason_stops_cleanly(monkeypatch, project):
    with FakeAPI([reply("odd", stop_reason="brand_new_reason")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("hi")
    assert rec.of(LoopStopped)[0].reason == "unknown_stop_reason"


def test_interrupt_during_a_tool_leaves_a_valid_history(monkeypatch, project):
    slow = SlowRead(30)
    script = [
        reply(
            text("reading"),
            tool_use("SlowRead", {"file_path": "a"}),
            tool_use("SlowRead", {"file_path": "b"}),
            stop_reason="tool_use",
        ),
        reply("fresh turn"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, tools=[slow])
        started = threading.Event()
        session.bus.subscribe(lambda e: started.set() if isinstance(e, ToolStarted) else None, inline=True)
        session.submit("read")
        assert started.wait(10)
        session.cancel()
        assert session.wait(10)
        assert rec.of(LoopStopped)[0].reason == "interrupted"
        statuses = {e.status for e in rec.of(ToolFinished)}
        assert statuses == {"interrupted"}
        session.run_turn("something else")
        assert api.errors == []
        last_request = api.message_requests[-1].body["messages"]
    results = last_request[2]["content"]
    assert [b["type"] for b in results[:2]] == ["tool_result", "tool_result"]
    assert all(b["is_error"] for b in results[:2])


def test_no_progress_warns_then_stops(monkeypatch, project):
    same = lambda body: reply(tool_use("Glob", {"pattern": "*.py"}), stop_reason="tool_use")  # noqa: E731
    with FakeAPI(same) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, no_progress_warn=2, no_progress_stop=4)
        session.run_turn("loop")
        assert api.errors == []
        warned = api.message_requests[2].body["messages"][-1]["content"][0]["content"]
    assert "Warning" in str(warned)
    stop = rec.of(LoopStopped)[0]
    assert stop.reason == "no_progress"
    assert len(list(rec.of(RequestSent))) == 4


def test_ab_cycle_is_detected(monkeypatch, project):
    counter = {"n": 0}

    def alternate(body):
        counter["n"] += 1
        pattern = "*.py" if counter["n"] % 2 else "*.md"
        return reply(tool_use("Glob", {"pattern": pattern}), stop_reason="tool_use")

    with FakeAPI(alternate) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, no_progress_warn=10, no_progress_stop=4)
        session.run_turn("loop")
    assert rec.of(LoopStopped)[0].reason == "no_progress"
    assert "cycle" in rec.of(LoopStopped)[0].detail


def test_max_turns_and_budget(monkeypatch, project):
    again = lambda body: reply(tool_use("Glob", {"pattern": f"*{len(body['messages'])}"}), stop_reason="tool_use")  # noqa: E731
    with FakeAPI(again) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, max_turns=2)
        session.run_turn("go")
        assert len(api.message_requests) == 2
    assert rec.of(LoopStopped)[0].reason == "max_turns"
    with FakeAPI(again) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, max_budget_tokens=1)
        session.run_turn("go")
        assert len(api.message_requests) == 1
    assert rec.of(LoopStopped)[0].reason == "budget"


def test_bad_tool_calls_become_error_results(monkeypatch, project):
    script = [
        reply(
            tool_use("NoSuchTool", {"x": 1}),
            tool_use("Read", {"path": "a.py"}),
            tool_use("Write", {"file_path": "new.txt", "content": "x"}),
            stop_reason="tool_use",
        ),
        reply("ok"),
    ]
    with FakeAPI(script) as api:
        session, _rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("go")
        results = api.message_requests[1].body["messages"][-1]["content"]
    assert [r["is_error"] for r in results] == [True, True, True]
    assert "No such tool" in results[0]["content"]
    assert "file_path" in results[1]["content"]
    assert "not granted" in results[2]["content"]
    assert not (project / "new.txt").exists()


def test_invalid_tool_json_becomes_an_error_result(monkeypatch, project):
    from tests.fakeapi.script import ToolUse

    script = [
        reply(
            text("reading"),
            ToolUse("Read", {}, None, raw_json='{"file_path": a.py}'),
            tool_use("Glob", {"pattern": "*.md"}),
            stop_reason="tool_use",
        ),
        reply("ok"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("go")
        assert api.errors == []
        results = api.message_requests[1].body["messages"][-1]["content"]
    assert results[0]["is_error"] and "not valid JSON" in results[0]["content"]
    assert "is_error" not in results[1]
    assert rec.of(LoopStopped)[0].reason == "end_turn"


def test_thinking_blocks_go_back_unchanged_with_their_signatures(monkeypatch, project):
    from tests.fakeapi.script import thinking

    script = [
        reply(
            thinking("I should list the files first.", signature="sig-abc"),
            text("Listing."),
            tool_use("Glob", {"pattern": "*.py"}),
            stop_reason="tool_use",
        ),
        reply("two files"),
    ]
    with FakeAPI(script) as api:
        session, _rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("list")
        assert api.errors == []
        echoed = api.message_requests[1].body["messages"][1]["content"]
    assert echoed[0] == {"type": "thinking", "thinking": "I should list the files first.", "signature": "sig-abc"}
    assert [b["type"] for b in echoed] == ["thinking", "text", "tool_use"]


def test_tool_use_with_end_turn_is_not_run_but_answered(monkeypatch, project):
    script = [
        reply(text("I would run this"), tool_use("Bash", {"command": "touch ran.txt"}), stop_reason="end_turn"),
        reply("ok"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, permission_mode="bypassPermissions")
        session.run_turn("go")
        session.run_turn("next")
        assert api.errors == []
    assert not (project / "ran.txt").exists()
    assert rec.of(LoopStopped)[0].reason == "end_turn"


def test_todowrite_reaches_the_bus_through_the_engine(monkeypatch, project):
    """Tools report through their result; the engine (not the tool) publishes TodosUpdated."""
    from tui.agent.events import TodosUpdated

    items = [{"content": "Run tests", "status": "in_progress", "activeForm": "Running tests"}]
    script = [reply(tool_use("TodoWrite", {"todos": items}), stop_reason="tool_use"), reply(text("ok"))]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("plan it")
        assert api.errors == []
    assert [e.todos for e in rec.of(TodosUpdated)] == [tuple(items)]
