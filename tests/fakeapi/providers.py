"""The cloud providers' wire formats for the fake API: Bedrock's AWS event stream and Vertex AI's routes.

Bedrock answers `POST /model/{id}/invoke-with-response-stream` with binary event-stream frames
(prelude, headers, payload `{"bytes": base64(event json)}`, CRC32s); Vertex answers
`POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:streamRawPredict` with the
same SSE as the Messages API. `POST /token` hands out a fake Google OAuth access token.
"""

from __future__ import annotations

import base64
import json
import re
import struct
import zlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

BEDROCK_STREAM = re.compile(r"^/model/(?P<model>[^/]+)/invoke-with-response-stream$")
VERTEX_STREAM = re.compile(
    r"^(?:/v1)?/projects/(?P<project>[^/]+)/locations/(?P<region>[^/]+)"
    r"/publishers/anthropic/models/(?P<model>[^/:]+):streamRawPredict$"
)
TOKEN_PATH = "/token"
MODELS_PATH = "/v1/models"
LISTED_MODELS = ("claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5")
FAKE_ACCESS_TOKEN = "ya29.fake-access-token"
_STRING = 7  # event-stream header value type: string


@dataclass(frozen=True)
class ProviderRoute:
    """A provider request: which provider, the model in its path, and (Vertex) project and region."""

    provider: str
    model: str
    project: str | None = None
    region: str | None = None


def provider_route(path: str) -> ProviderRoute | None:
    """The provider route `path` names, or None for the plain Messages API."""
    m = BEDROCK_STREAM.match(path)
    if m:
        return ProviderRoute("bedrock", unquote(m.group("model")))
    m = VERTEX_STREAM.match(path)
    if m:
        return ProviderRoute("vertex", unquote(m.group("model")), m.group("project"), m.group("region"))
    return None


def as_messages_body(body: dict[str, Any], route: ProviderRoute) -> dict[str, Any]:
    """The provider body as a Messages API body: the model from the path, no `anthropic_version`."""
    fixed = {k: v for k, v in body.items() if k not in ("anthropic_version", "anthropic_beta")}
    fixed["model"] = route.model
    fixed.setdefault("stream", True)
    return fixed


def _headers(headers: dict[str, str]) -> bytes:
    out = b""
    for name, value in headers.items():
        raw_name, raw_value = name.encode(), value.encode()
        out += struct.pack(">B", len(raw_name)) + raw_name + struct.pack(">BH", _STRING, len(raw_value)) + raw_value
    return out


def eventstream_frame(payload: bytes, headers: dict[str, str]) -> bytes:
    """One AWS event-stream message: lengths, prelude CRC32, headers, payload, message CRC32."""
    head = _headers(headers)
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude) & 0xFFFFFFFF)
    body = prelude + head + payload
    return body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


#: the Bedrock stream exception for an Anthropic stream error type
BEDROCK_EXCEPTIONS = {
    "overloaded_error": "serviceUnavailableException",
    "rate_limit_error": "throttlingException",
    "api_error": "internalServerException",
    "timeout_error": "modelTimeoutException",
}


def bedrock_event(name: str, data: dict[str, Any]) -> bytes:
    """A Messages stream event as Bedrock sends it: a `chunk` frame carrying the event's JSON in base64.

    An `error` event becomes what Bedrock sends instead: an exception frame.
    """
    if name == "error":
        error = data.get("error") or {}
        kind = BEDROCK_EXCEPTIONS.get(str(error.get("type")), "validationException")
        return eventstream_frame(
            json.dumps({"message": error.get("message", "")}).encode(),
            {":message-type": "exception", ":exception-type": kind, ":content-type": "application/json"},
        )
    event = dict(data)
    event.setdefault("type", name)
    payload = json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode()}).encode()
    return eventstream_frame(
        payload, {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}
    )


def token_response() -> dict[str, Any]:
    """What Google's OAuth token endpoint answers to a refresh."""
    return {"access_token": FAKE_ACCESS_TOKEN, "expires_in": 3600, "token_type": "Bearer"}


def models_page() -> dict[str, Any]:
    """`GET /v1/models`: one page listing the current models."""
    data = [{"id": m, "type": "model", "display_name": m, "created_at": "2026-09-01T00:00:00Z"} for m in LISTED_MODELS]
    return {"data": data, "has_more": False, "first_id": data[0]["id"], "last_id": data[-1]["id"]}
