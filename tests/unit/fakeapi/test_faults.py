"""Faults surface in the SDK exactly as the real API's do."""

from __future__ import annotations

import anthropic
import pytest

from tests.fakeapi import drop, http_error, model_not_found, no_message_stop, reply, sse_error, stall, text
from tests.unit.fakeapi.conftest import make_client, run_stream
from tui.agent.api.httplib import httpx


def test_529_is_retried_by_the_sdk_then_succeeds(fake_api):
    api = fake_api([http_error(529), reply(text("after retry"))])
    final = run_stream(make_client(api, max_retries=2))
    assert final.content[0].text == "after retry"
    assert [r.status for r in api.requests] == [529, 200]
    assert [r.headers["x-stainless-retry-count"] for r in api.requests] == ["0", "1"]


def test_429_retry_after_is_honoured(fake_api):
    api = fake_api([http_error(429, headers={"retry-after": "1"}), reply(text("ok"))])
    run_stream(make_client(api, max_retries=2))
    first, second = api.requests
    assert first.status == 429 and second.status == 200
    assert second.t_received - first.t_received >= 0.95


def test_500_with_should_retry_false_is_not_retried(fake_api):
    api = fake_api([http_error(500, headers={"x-should-retry": "false"}), reply(text("never"))])
    with pytest.raises(anthropic.InternalServerError):
        run_stream(make_client(api, max_retries=2))
    assert len(api.requests) == 1


def test_unknown_model_is_a_404_naming_it(fake_api):
    api = fake_api([model_not_found("claude-nope")])
    with pytest.raises(anthropic.NotFoundError) as info:
        run_stream(make_client(api))
    assert "claude-nope" in str(info.value)


def test_sse_error_after_200_raises_api_status_error(fake_api):
    api = fake_api([sse_error(after_events=3, error_type="overloaded_error")])
    with pytest.raises(anthropic.APIStatusError) as info:
        run_stream(make_client(api, max_retries=2))
    assert info.value.status_code == 200 and info.value.body["error"]["type"] == "overloaded_error"
    assert len(api.requests) == 1


def test_drop_mid_stream_raises_remote_protocol_error(fake_api):
    api = fake_api([drop(after_events=4)])
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        run_stream(make_client(api, max_retries=2))


def test_stall_longer_than_read_timeout_raises_read_timeout(fake_api):
    api = fake_api([stall(after_events=3, seconds=3.0)])
    client = make_client(api, timeout=httpx.Timeout(5.0, read=0.5))
    with pytest.raises(httpx.ReadTimeout):
        run_stream(client)


def test_no_message_stop_ends_cleanly_with_stop_reason_none(fake_api):
    api = fake_api([no_message_stop(reply(text("partial answer")))])
    final = run_stream(make_client(api))
    assert final.stop_reason is None and final.content[0].text == "partial answer"


def test_script_exhausted_is_a_final_500_and_recorded(fake_api):
    api = fake_api([])
    with pytest.raises(anthropic.InternalServerError):
        run_stream(make_client(api, max_retries=2))
    assert len(api.requests) == 1 and api.errors == ["script exhausted"]


def test_dynamic_step_sees_the_request_body(fake_api):
    api = fake_api(lambda body: reply(text(f"{len(body['messages'])} messages")))
    assert run_stream(make_client(api)).content[0].text == "1 messages"
