"""Loop guards, the event bus, retry classification and the schema checker."""

from __future__ import annotations

import threading

import anthropic

from tui.agent.api.httplib import httpx
from tui.agent.api.retry import IncompleteStream, backoff_delay, classify
from tui.agent.events import Notice
from tui.agent.events.bus import EventBus
from tui.agent.loop.guards import ProgressGuard
from tui.agent.loop.schema import validate


def test_same_call_warns_then_stops():
    guard = ProgressGuard(warn_at=2, stop_at=3)
    assert guard.record_iteration([("Read", {"file_path": "a"})]) == ({}, None)
    warnings, stop = guard.record_iteration([("Read", {"file_path": "a"})])
    assert 0 in warnings and stop is None
    _, stop = guard.record_iteration([("Read", {"file_path": "a"})])
    assert stop and "3 times" in stop


def test_input_key_order_does_not_hide_a_repeat():
    guard = ProgressGuard(warn_at=2, stop_at=9)
    guard.record_iteration([("Grep", {"a": 1, "b": 2})])
    warnings, _ = guard.record_iteration([("Grep", {"b": 2, "a": 1})])
    assert warnings


def test_abab_cycle_stops():
    guard = ProgressGuard(warn_at=99, stop_at=4)
    stops = [guard.record_iteration([(name, {})])[1] for name in "ABABAB"]
    assert stops[-1] and "cycle" in stops[-1]
    assert not any(stops[:4])


def test_different_calls_make_progress():
    guard = ProgressGuard(warn_at=2, stop_at=3)
    assert all(guard.record_iteration([("Read", {"file_path": str(i)})]) == ({}, None) for i in range(10))


def test_bus_keeps_order_and_a_slow_subscriber_does_not_stall_the_publisher():
    """The publishers finish while a queued subscriber is still held on its first event (no clock involved: a
    subscriber that blocked the publisher would hold every publish until the gate opens, and the joins time out)."""
    bus = EventBus()
    seen_fast: list[str] = []
    seen_slow: list[str] = []
    gate = threading.Event()
    bus.subscribe(lambda e: seen_fast.append(e.text), inline=True)
    bus.subscribe(lambda e: (gate.wait(30), seen_slow.append(e.text)))
    threads = [
        threading.Thread(target=lambda i=i: [bus.publish(Notice(level="info", text=f"{i}-{j}")) for j in range(5)])
        for i in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not any(t.is_alive() for t in threads)  # every publish returned with the slow subscriber held
    assert len(seen_fast) == 20 and seen_slow == []
    gate.set()
    assert bus.flush(10)
    assert seen_slow == seen_fast


def test_a_failing_subscriber_does_not_break_the_others():
    bus = EventBus()
    got = []
    bus.subscribe(lambda e: 1 / 0, inline=True)
    bus.subscribe(got.append, inline=True)
    bus.publish(Notice(level="info", text="x"))
    assert len(got) == 1


def _status_error(status: int, headers: dict[str, str] | None = None, etype: str = "overloaded_error"):
    request = httpx.Request("POST", "http://x/v1/messages")
    response = httpx.Response(status, headers=headers or {}, request=request)
    body = {"type": "error", "error": {"type": etype, "message": "boom"}}
    return anthropic.APIStatusError("boom", response=response, body=body)


def test_retry_classification():
    assert classify(_status_error(529), "m").retryable
    f = classify(_status_error(429, {"retry-after": "3"}, "rate_limit_error"), "m")
    assert f.retryable and f.retry_after == 3.0 and f.reason == "rate limited"
    assert not classify(_status_error(500, {"x-should-retry": "false"}, "api_error"), "m").retryable
    assert not classify(_status_error(401, etype="authentication_error"), "m").retryable
    assert "claude-x" in classify(_status_error(404, etype="not_found_error"), "claude-x").message
    assert classify(_status_error(200, etype="overloaded_error"), "m").retryable
    assert not classify(_status_error(200, etype="invalid_request_error"), "m").retryable
    assert classify(httpx.RemoteProtocolError("peer closed"), "m").retryable
    assert classify(httpx.ReadTimeout("slow"), "m").reason == "stream stalled"
    assert classify(IncompleteStream(), "m").retryable


def test_backoff_grows_and_honours_retry_after():
    assert backoff_delay(1, 0.5, 32, 7.0) == 7.0
    assert 0.37 <= backoff_delay(1, 0.5, 32, None) <= 0.5
    assert backoff_delay(10, 0.5, 32, None) <= 32


def test_schema_checker_sentences():
    schema = {
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
        "required": ["file_path"],
        "additionalProperties": False,
    }
    assert validate({"file_path": "a"}, schema) is None
    assert "required parameter `file_path`" in validate({}, schema)
    assert "unexpected parameter `path`" in validate({"file_path": "a", "path": "b"}, schema)
    assert "integer" in validate({"file_path": "a", "limit": "3"}, schema)
    assert ">= 1" in validate({"file_path": "a", "limit": 0}, schema)
    assert "boolean" not in (validate({"file_path": "a", "limit": True}, schema) or "boolean")


def test_a_queued_subscriber_can_skip_event_types():
    from tui.agent.events import BlockDelta

    bus = EventBus()
    got: list[str] = []
    bus.subscribe(lambda e: got.append(e.type), skip=(BlockDelta,))
    bus.publish(BlockDelta(iteration=1, index=0, delta_type="text_delta", text="x"))
    bus.publish(Notice(level="info", text="kept"))
    assert bus.flush(5)
    assert got == ["Notice"]
