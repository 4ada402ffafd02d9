"""Turns a scripted `Reply` into the real Messages API SSE event sequence."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from .script import Block, RawBlock, RedactedThinking, Reply, ServerToolUse, Text, Thinking, ToolUse, new_id

Event = tuple[str, dict[str, Any]]


@dataclass
class RenderedReply:
    """The events to send plus the assistant content as the client will assemble it."""

    events: list[Event]
    content: list[dict[str, Any]]
    output_tokens: int


def format_event(name: str, data: dict[str, Any]) -> bytes:
    """One SSE frame: `event:` and `data:` lines and a blank separator line."""
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def split_text(value: str, words_per_chunk: int = 2) -> list[str]:
    """Split text into small word-aligned chunks, like `text_delta`s of the real API."""
    words = re.findall(r"\S+\s*|\s+", value)
    return ["".join(words[i : i + words_per_chunk]) for i in range(0, len(words), words_per_chunk)]


def split_json(value: str, size: int = 12) -> list[str]:
    """Fragment tool input JSON the way `input_json_delta`s arrive: first `""`, then arbitrary pieces."""
    return [""] + [value[i : i + size] for i in range(0, len(value), size)]


def _block_events(index: int, block: Block) -> tuple[list[Event], dict[str, Any], int]:
    """Events for one content block, its final form, and the characters it produced."""
    events: list[Event] = []

    def delta(payload: dict[str, Any]) -> None:
        events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": payload}))

    def start(payload: dict[str, Any]) -> None:
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": payload})
        )

    if isinstance(block, Text):
        start({"type": "text", "text": ""})
        for chunk in split_text(block.text) if block.text else []:
            delta({"type": "text_delta", "text": chunk})
        final: dict[str, Any] = {"type": "text", "text": block.text}
        chars = len(block.text)
    elif isinstance(block, (ToolUse, ServerToolUse)):
        kind = "tool_use" if isinstance(block, ToolUse) else "server_tool_use"
        block_id = block.id or new_id("toolu_" if kind == "tool_use" else "srvtoolu_")
        start({"type": kind, "id": block_id, "name": block.name, "input": {}})
        raw = block.input_json()
        for chunk in split_json(raw):
            delta({"type": "input_json_delta", "partial_json": chunk})
        final = {"type": kind, "id": block_id, "name": block.name, "input": block.input}
        chars = len(raw)
    elif isinstance(block, Thinking):
        start({"type": "thinking", "thinking": "", "signature": ""})
        for chunk in split_text(block.thinking, 6) if block.thinking else []:
            delta({"type": "thinking_delta", "thinking": chunk})
        delta({"type": "signature_delta", "signature": block.signature})
        final = {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
        chars = len(block.thinking) + len(block.signature)
    elif isinstance(block, RedactedThinking):
        final = {"type": "redacted_thinking", "data": block.data}
        start(final)
        chars = len(block.data)
    elif isinstance(block, RawBlock):
        final = dict(block.block)
        start(final)
        chars = len(json.dumps(final))
    else:  # pragma: no cover - guarded by the Block union
        raise TypeError(f"unknown block {block!r}")
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events, final, chars


def render_reply(
    reply: Reply, *, model: str, input_usage: dict[str, Any], message_id: str | None = None
) -> RenderedReply:
    """Build message_start, per-block events (with one `ping`), message_delta and message_stop."""
    message_id = message_id or new_id("msg_")
    start_usage = {**input_usage, "output_tokens": 1, "service_tier": "standard"}
    events: list[Event] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": model,
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
        )
    ]
    content: list[dict[str, Any]] = []
    chars = 0
    for index, block in enumerate(reply.blocks):
        block_events, final, block_chars = _block_events(index, block)
        events.extend(block_events[:1])
        if index == 0:
            events.append(("ping", {"type": "ping"}))
        events.extend(block_events[1:])
        content.append(final)
        chars += block_chars
    if not reply.blocks:
        events.append(("ping", {"type": "ping"}))
    output_tokens = max(1, math.ceil(chars / 4))
    final_usage = {**input_usage, "output_tokens": output_tokens}
    if reply.usage:
        final_usage.update(reply.usage)
        start_usage.update({k: v for k, v in reply.usage.items() if k != "output_tokens"})
    delta: dict[str, Any] = {"stop_reason": reply.stop_reason, "stop_sequence": reply.stop_sequence}
    if reply.stop_details is not None:
        delta["stop_details"] = reply.stop_details
    if reply.send_message_delta:
        events.append(("message_delta", {"type": "message_delta", "delta": delta, "usage": final_usage}))
    if reply.send_message_stop:
        events.append(("message_stop", {"type": "message_stop"}))
    return RenderedReply(events, content, int(final_usage.get("output_tokens", output_tokens)))
