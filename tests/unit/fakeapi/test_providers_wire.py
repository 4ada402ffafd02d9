"""The fake's Bedrock event-stream encoder, read back by botocore's own decoder (CRCs checked)."""

from __future__ import annotations

import base64
import json

import pytest

from tests.fakeapi.providers import bedrock_event, provider_route

botocore_eventstream = pytest.importorskip("botocore.eventstream")


def test_bedrock_frames_decode_with_botocore():
    buffer = botocore_eventstream.EventStreamBuffer()
    buffer.add_data(bedrock_event("message_stop", {}) + bedrock_event("ping", {"type": "ping"}))
    messages = list(buffer)
    assert [m.headers[":event-type"] for m in messages] == ["chunk", "chunk"]
    first = json.loads(base64.b64decode(json.loads(messages[0].payload)["bytes"]))
    assert first == {"type": "message_stop"}


def test_provider_routes():
    bedrock = provider_route("/model/us.anthropic.claude-sonnet-5-5-v1%3A0/invoke-with-response-stream")
    assert bedrock is not None and bedrock.model == "us.anthropic.claude-sonnet-5-5-v1:0"
    vertex = provider_route(
        "/v1/projects/p/locations/global/publishers/anthropic/models/claude-opus-5-5:streamRawPredict"
    )
    assert vertex is not None and (vertex.project, vertex.region, vertex.model) == ("p", "global", "claude-opus-5-5")
    assert provider_route("/v1/messages") is None
