"""Raw steps (malformed streams sent byte for byte) and the 400s for lone surrogates and empty content."""

from __future__ import annotations

import httpx
import pytest

from tests.fakeapi.script import Raw, raw, raw_sse
from tests.fakeapi.scriptfile import parse_step


def post(api, body: bytes) -> httpx.Response:
    return httpx.post(
        f"{api.base_url}/v1/messages",
        content=body,
        timeout=10,
        headers={"x-api-key": "sk-test", "anthropic-version": "2023-06-01", "content-type": "application/json"},
    )


GOOD = b'{"model": "m", "max_tokens": 10, "stream": true, "messages": [{"role": "user", "content": "hi"}]}'


def test_a_raw_step_is_sent_byte_for_byte(fake_api):
    api = fake_api([raw("<html>bad gateway</html>", "text/html"), raw_sse(("ping", {"type": "ping"}), ("odd", "{x"))])
    first = post(api, GOOD)
    assert (first.status_code, first.headers["content-type"], first.text) == (
        200,
        "text/html",
        "<html>bad gateway</html>",
    )
    assert post(api, GOOD).text == 'event: ping\ndata: {"type": "ping"}\n\nevent: odd\ndata: {x\n\n'


def test_script_files_take_raw_steps():
    assert parse_step({"raw": "event: ping\n\n"}) == Raw(b"event: ping\n\n")
    assert parse_step({"raw": {"body": "{}", "content_type": "application/json"}}) == Raw(b"{}", "application/json")


@pytest.mark.parametrize("text", ["\\ud800", "a\\udfffb"])
def test_a_lone_surrogate_in_the_request_is_a_400(fake_api, text):
    api = fake_api([raw("")])
    body = GOOD.replace(b'"hi"', b'"' + text.encode() + b'"')
    answer = post(api, body)
    assert answer.status_code == 400 and api.errors and "surrogate" in api.errors[0]
    assert post(api, GOOD.replace(b'"hi"', b'"\\ud83d\\ude00"')).status_code == 200  # a pair is fine


def test_empty_content_before_the_last_message_is_a_400(fake_api):
    api = fake_api([raw("")])
    body = (
        b'{"model": "m", "max_tokens": 10, "stream": true, "messages": [{"role": "user", "content": "hi"}, '
        b'{"role": "assistant", "content": "ok"}, {"role": "user", "content": []}, '
        b'{"role": "assistant", "content": "x"}, {"role": "user", "content": "go"}]}'
    )
    answer = post(api, body)
    assert answer.status_code == 400 and "non-empty content" in answer.json()["error"]["message"]
