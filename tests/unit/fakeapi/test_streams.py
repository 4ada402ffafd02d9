"""Scripted replies stream the real SSE sequence and parse with the real SDK."""

from __future__ import annotations

import json

from tests.fakeapi import (
    max_tokens_mid_tool_use,
    pause_turn,
    redacted_thinking,
    refusal,
    reply,
    text,
    thinking,
    tool_use,
)
from tests.unit.fakeapi.conftest import USER_HI, make_client, run_stream


def test_text_reply_parses_with_request_id_and_usage(fake_api):
    api = fake_api([reply(text("Hello there, this is a streamed answer in several chunks."))])
    client = make_client(api)
    with client.messages.stream(
        model="claude-opus-5", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
    ) as s:
        chunks = list(s.text_stream)
        final = s.get_final_message()
        request_id = s.request_id
    assert len(chunks) > 3 and "".join(chunks) == "Hello there, this is a streamed answer in several chunks."
    assert final.stop_reason == "end_turn"
    assert request_id and request_id.startswith("req_")
    assert final.usage.output_tokens > 1 and final.usage.input_tokens > 0
    recorded = api.requests[0]
    assert recorded.status == 200 and "sk-test" in (
        recorded.headers.get("authorization", "") + recorded.headers.get("x-api-key", "")
    )
    assert recorded.body["stream"] is True and api.errors == []


def test_tool_use_input_arrives_fragmented_and_parses(fake_api):
    args = {"file_path": "/tmp/project/a.py", "offset": 10, "limit": 50}
    api = fake_api([reply(text("Reading."), tool_use("Read", args, id="toolu_01abc"), stop_reason="tool_use")])
    client = make_client(api)
    fragments = []
    with client.messages.stream(model="m", max_tokens=100, messages=[{"role": "user", "content": "go"}]) as s:
        for event in s:
            if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                fragments.append(event.delta.partial_json)
        final = s.get_final_message()
    assert fragments[0] == "" and len(fragments) >= 4
    assert json.loads("".join(fragments)) == args
    block = final.content[1]
    assert (block.type, block.id, block.name, block.input) == ("tool_use", "toolu_01abc", "Read", args)
    assert final.stop_reason == "tool_use"


def test_thinking_blocks_stream_with_signature(fake_api):
    api = fake_api(
        [reply(thinking("Let me think about it.", signature="sigA"), redacted_thinking("opaque"), text("Answer."))]
    )
    final = run_stream(make_client(api))
    assert [b.type for b in final.content] == ["thinking", "redacted_thinking", "text"]
    assert final.content[0].thinking == "Let me think about it." and final.content[0].signature == "sigA"
    assert final.content[1].data == "opaque"


def test_refusal_carries_stop_details(fake_api):
    api = fake_api([refusal("I started to", category="cyber", explanation="nope")])
    client = make_client(api)
    with client.messages.stream(model="claude-opus-5", max_tokens=1024, messages=USER_HI) as stream:
        deltas = [e for e in stream if e.type == "message_delta"]
        final = stream.get_final_message()
    assert final.stop_reason == "refusal"
    # a typed field in newer SDKs, an extra field of the raw event in older ones
    details = deltas[-1].delta.stop_details
    details = details if isinstance(details, dict) else details.model_dump()
    assert details["category"] == "cyber" and details["explanation"] == "nope"


def test_pause_turn_and_truncated_tool_use(fake_api):
    api = fake_api(
        [pause_turn("weather"), max_tokens_mid_tool_use("Write", {"file_path": "x.txt", "content": "y" * 80})]
    )
    client = make_client(api)
    paused = run_stream(client)
    assert paused.stop_reason == "pause_turn" and paused.content[1].type == "server_tool_use"
    cut = run_stream(client)
    assert cut.stop_reason == "max_tokens" and cut.content[-1].type == "tool_use"
    assert len(cut.content[-1].input.get("content", "")) < 80  # the input JSON was cut short
