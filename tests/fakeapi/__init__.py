"""Loopback fake of the Anthropic Messages API for integration tests, fault tests and benchmarks."""

from .script import (
    drop,
    http_error,
    max_tokens_mid_tool_use,
    model_not_found,
    no_message_stop,
    pause_turn,
    raw_block,
    redacted_thinking,
    refusal,
    reply,
    server_tool_use,
    sse_error,
    stall,
    text,
    thinking,
    tool_use,
)
from .server import FakeAPI, Recorded

__all__ = [
    "FakeAPI",
    "Recorded",
    "drop",
    "http_error",
    "max_tokens_mid_tool_use",
    "model_not_found",
    "no_message_stop",
    "pause_turn",
    "raw_block",
    "redacted_thinking",
    "refusal",
    "reply",
    "server_tool_use",
    "sse_error",
    "stall",
    "text",
    "thinking",
    "tool_use",
]
