"""Encodes planned content blocks as Messages API server-sent events, in the real order.

Order (the API's SSE sequence): message_start, then per block content_block_start → deltas →
content_block_stop (a ping after the first block start), message_delta with the stop
reason and cumulative usage, message_stop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from tui.agent.context.image_tokens import IMAGE_TOKENS, image_chars

_WORD = re.compile(r"\s*\S+|\s+")
# fragment sizes for tool input JSON; cycled so the split looks irregular like the API's
_JSON_FRAGMENT_SIZES = (9, 14, 6, 17, 11, 8)


def estimate_tokens(value: Any) -> int:
    """A chars/4 token estimate of a string or of any JSON value's serialization (an image as the API counts it)."""
    if isinstance(value, str):
        return max(1, len(value) // 4) if value else 0
    text = json.dumps(value, ensure_ascii=False)
    chars, images = image_chars(text, value)
    return max(1, (len(text) - chars) // 4) + images * IMAGE_TOKENS


def sse_event(name: str, data: dict[str, Any]) -> bytes:
    """One SSE frame: `event:` and `data:` lines and a blank-line separator."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def split_text(text: str) -> list[str]:
    """Splits text into small word chunks (about 3-8 characters) as a model streams them."""
    chunks: list[str] = []
    for word in _WORD.findall(text):
        while len(word) > 8:
            chunks.append(word[:6])
            word = word[6:]
        if chunks and len(word) < 3 and len(chunks[-1]) + len(word) <= 8:
            chunks[-1] += word
        else:
            chunks.append(word)
    return chunks


def split_json(serialized: str) -> list[str]:
    """Splits serialized tool input into input_json_delta fragments; the first is `""`."""
    scale = max(1, len(serialized) // 400)
    fragments = [""]
    position = 0
    step = 0
    while position < len(serialized):
        size = _JSON_FRAGMENT_SIZES[step % len(_JSON_FRAGMENT_SIZES)] * scale
        fragments.append(serialized[position : position + size])
        position += size
        step += 1
    return fragments


def output_usage(blocks: list[dict[str, Any]]) -> int:
    """Output tokens of a reply: chars/4 of its blocks' text, thinking and tool input."""
    total = 0
    for block in blocks:
        if block["type"] == "text":
            total += estimate_tokens(block["text"])
        elif block["type"] == "thinking":
            total += estimate_tokens(block["thinking"])
        elif block["type"] == "tool_use":
            total += estimate_tokens(block["name"]) + estimate_tokens(block["input"])
    return max(1, total)


def _block_events(index: int, block: dict[str, Any]) -> Iterator[bytes]:
    """content_block_start, its deltas and content_block_stop for one block."""
    kind = block["type"]
    if kind == "text":
        start: dict[str, Any] = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": chunk} for chunk in split_text(block["text"])]
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [{"type": "thinking_delta", "thinking": chunk} for chunk in split_text(block["thinking"])]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind == "tool_use":
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        serialized = json.dumps(block["input"], ensure_ascii=False)
        deltas = [{"type": "input_json_delta", "partial_json": fragment} for fragment in split_json(serialized)]
    else:
        raise ValueError(f"the offline model cannot stream a {kind!r} block")
    yield sse_event(
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": start},
    )
    if index == 0:
        yield sse_event("ping", {"type": "ping"})
    for delta in deltas:
        yield sse_event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
    yield sse_event("content_block_stop", {"type": "content_block_stop", "index": index})


def encode_sse(
    message_blocks: list[dict[str, Any]],
    stop_reason: str,
    usage: dict[str, Any],
    model: str,
    *,
    message_id: str = "msg_offline_0",
) -> Iterator[bytes]:
    """Yields the SSE frames of one streamed reply; `usage` is the input side of usage."""
    start_usage = {**usage, "output_tokens": 1}
    yield sse_event(
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
    for index, block in enumerate(message_blocks):
        yield from _block_events(index, block)
    # message_delta usage is cumulative and flat, as the API sends it: no service_tier, no breakdown
    final_usage = {key: value for key, value in usage.items() if key not in ("service_tier", "cache_creation")}
    final_usage["output_tokens"] = output_usage(message_blocks)
    yield sse_event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": final_usage,
        },
    )
    yield sse_event("message_stop", {"type": "message_stop"})


def message_json(
    message_blocks: list[dict[str, Any]],
    stop_reason: str,
    usage: dict[str, Any],
    model: str,
    *,
    message_id: str = "msg_offline_0",
) -> dict[str, Any]:
    """The same reply as one non-streamed Message object."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": message_blocks,
        "model": model,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": output_usage(message_blocks)},
    }
