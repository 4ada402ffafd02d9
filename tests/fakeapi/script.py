"""Script steps for the fake Messages API: what the server answers to each request, in order."""

from __future__ import annotations

import json
import secrets
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_ALPHABET = string.ascii_letters + string.digits


def new_id(prefix: str) -> str:
    """Return an id shaped like the API's (`toolu_01…`, `msg_01…`, `req_01…`)."""
    return prefix + "01" + "".join(secrets.choice(_ALPHABET) for _ in range(22))


# ---------------------------------------------------------------- content blocks


@dataclass
class Text:
    """A text block, streamed as several `text_delta` chunks."""

    text: str


@dataclass
class ToolUse:
    """A client `tool_use` block; `raw_json` overrides the serialised input (e.g. truncated JSON)."""

    name: str
    input: dict[str, Any]
    id: str | None = None
    raw_json: str | None = None

    def input_json(self) -> str:
        return self.raw_json if self.raw_json is not None else json.dumps(self.input)


@dataclass
class ServerToolUse:
    """A `server_tool_use` block (e.g. web_search), streamed like a client tool call."""

    name: str
    input: dict[str, Any]
    id: str | None = None

    def input_json(self) -> str:
        return json.dumps(self.input)


@dataclass
class Thinking:
    """A thinking block; empty `thinking` mimics `display: "omitted"` (signature only)."""

    thinking: str
    signature: str


@dataclass
class RedactedThinking:
    """A `redacted_thinking` block; it arrives whole in `content_block_start`."""

    data: str


@dataclass
class RawBlock:
    """Any block sent whole in `content_block_start` (e.g. `web_search_tool_result`)."""

    block: dict[str, Any]


Block = Text | ToolUse | ServerToolUse | Thinking | RedactedThinking | RawBlock


def text(value: str) -> Text:
    return Text(value)


def tool_use(name: str, input: dict[str, Any] | None = None, id: str | None = None) -> ToolUse:
    return ToolUse(name, dict(input or {}), id)


def thinking(value: str, signature: str = "sigFAKE") -> Thinking:
    return Thinking(value, signature)


def redacted_thinking(data: str) -> RedactedThinking:
    return RedactedThinking(data)


def server_tool_use(
    name: str = "web_search", input: dict[str, Any] | None = None, id: str | None = None
) -> ServerToolUse:
    return ServerToolUse(name, dict(input or {}), id)


def raw_block(block: dict[str, Any]) -> RawBlock:
    return RawBlock(dict(block))


# ---------------------------------------------------------------- steps


@dataclass
class Reply:
    """A normal 200 SSE answer. `usage` entries override the simulated numbers."""

    blocks: list[Block]
    stop_reason: str | None = "end_turn"
    usage: dict[str, Any] | None = None
    stop_details: dict[str, Any] | None = None
    stop_sequence: str | None = None
    send_message_delta: bool = True
    send_message_stop: bool = True


@dataclass
class HttpError:
    """A non-200 JSON error answer before any stream starts."""

    status: int
    error_type: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class SseError:
    """A 200 stream that emits `event: error` after `after_events` events of `reply`."""

    after_events: int
    error_type: str = "overloaded_error"
    message: str = "Overloaded"
    reply: Reply | None = None


@dataclass
class Drop:
    """A 200 stream whose socket is closed after `after_events` events (no terminating chunk)."""

    after_events: int
    reply: Reply | None = None


@dataclass
class Stall:
    """A 200 stream that stops after `after_events` events for `seconds`, then sends the rest."""

    after_events: int
    seconds: float
    reply: Reply | None = None


@dataclass
class Raw:
    """An answer sent byte for byte (malformed streams): `body` after the status line and headers."""

    body: bytes
    content_type: str = "text/event-stream; charset=utf-8"
    status: int = 200


Step = Reply | HttpError | SseError | Drop | Stall | Raw
DynamicStep = Callable[[dict[str, Any]], "Step | DynamicStep"]
ScriptItem = Step | DynamicStep

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
_ERROR_MESSAGES = {
    "invalid_request_error": "Invalid request.",
    "authentication_error": "invalid x-api-key",
    "billing_error": "Your credit balance is too low to access the Anthropic API.",
    "permission_error": "Your API key does not have permission to use the specified resource.",
    "not_found_error": "The requested resource could not be found.",
    "conflict_error": "Conflict.",
    "request_too_large": "Request exceeds the maximum allowed number of bytes.",
    "rate_limit_error": "Number of request tokens has exceeded your per-minute rate limit",
    "api_error": "Internal server error",
    "timeout_error": "Request timed out.",
    "overloaded_error": "Overloaded",
}


def default_reply() -> Reply:
    """The reply used by faults that need a stream but were given none."""
    return Reply([Text("Hello from the fake Messages API. This stream is scripted.")])


def reply(
    *blocks: Block | str,
    stop_reason: str | None = "end_turn",
    usage: dict[str, Any] | None = None,
    stop_details: dict[str, Any] | None = None,
    stop_sequence: str | None = None,
) -> Reply:
    """A streamed assistant message; bare strings become text blocks."""
    parts = [Text(b) if isinstance(b, str) else b for b in blocks]
    return Reply(parts, stop_reason, usage, stop_details, stop_sequence)


def http_error(
    status: int, error_type: str | None = None, message: str | None = None, headers: dict[str, str] | None = None
) -> HttpError:
    """An HTTP error; type and message default to what the API sends for that status."""
    kind = error_type or _ERROR_TYPES.get(status, "api_error")
    return HttpError(status, kind, message or _ERROR_MESSAGES.get(kind, "Error"), dict(headers or {}))


def model_not_found(model: str) -> HttpError:
    """The 404 the API gives for an unknown model id."""
    return HttpError(404, "not_found_error", f"model: {model}")


def sse_error(
    after_events: int = 3, error_type: str = "overloaded_error", message: str = "Overloaded", reply: Reply | None = None
) -> SseError:
    return SseError(after_events, error_type, message, reply)


def drop(after_events: int = 3, reply: Reply | None = None) -> Drop:
    return Drop(after_events, reply)


def stall(after_events: int = 3, seconds: float = 5.0, reply: Reply | None = None) -> Stall:
    return Stall(after_events, seconds, reply)


def no_message_stop(base: Reply | None = None, *, keep_message_delta: bool = False) -> Reply:
    """All content blocks of `base` but no `message_stop` (nor, by default, `message_delta`).

    The chunked body still ends properly, so the SDK raises nothing; without the message_delta
    its final message has `stop_reason None`, which is what a client must treat as a failure.
    """
    source = base or default_reply()
    return Reply(
        list(source.blocks),
        source.stop_reason,
        source.usage,
        source.stop_details,
        source.stop_sequence,
        send_message_delta=keep_message_delta,
        send_message_stop=False,
    )


def max_tokens_mid_tool_use(
    name: str = "Write",
    input: dict[str, Any] | None = None,
    *,
    lead_text: str = "I'll write the file now.",
    keep_fraction: float = 0.6,
) -> Reply:
    """A reply cut by `max_tokens` inside its last tool_use: the input JSON is truncated."""
    full = json.dumps(input if input is not None else {"file_path": "out.txt", "content": "x" * 200})
    cut = full[: max(2, int(len(full) * keep_fraction))]
    blocks: list[Block] = [Text(lead_text)] if lead_text else []
    blocks.append(ToolUse(name, {}, None, raw_json=cut))
    return Reply(blocks, "max_tokens")


def refusal(text_before: str = "", category: str | None = "cyber", explanation: str | None = None) -> Reply:
    """A `refusal` stop with `stop_details`, optionally after some partial text."""
    details = {
        "type": "refusal",
        "category": category,
        "explanation": explanation or "This request was declined by the safety classifier.",
    }
    return Reply([Text(text_before)] if text_before else [], "refusal", None, details)


def pause_turn(query: str = "agent-tui", text_before: str = "Let me search for that.") -> Reply:
    """A `pause_turn` stop after a server tool call that has no result yet."""
    return Reply([Text(text_before), ServerToolUse("web_search", {"query": query})], "pause_turn")


def raw(body: bytes | str, content_type: str = "text/event-stream; charset=utf-8", status: int = 200) -> Raw:
    """A body sent as is: an empty 200, an HTML page where SSE was expected, hand-written events."""
    return Raw(body.encode() if isinstance(body, str) else body, content_type, status)


def raw_sse(*events: tuple[str, dict[str, Any] | str]) -> Raw:
    """SSE frames from (name, data); a str data is sent verbatim (e.g. JSON with a lone `\\ud800`)."""
    frames = [
        f"event: {name}\ndata: {data if isinstance(data, str) else json.dumps(data)}\n\n" for name, data in events
    ]
    return raw("".join(frames))
