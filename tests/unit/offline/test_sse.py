"""The SSE encoder alone: event order, JSON shapes, chunking."""

from __future__ import annotations

import json

from tui.agent.offline import encode_sse
from tui.agent.offline.sse import split_json, split_text

BLOCKS = [
    {"type": "thinking", "thinking": "Plan the step.", "signature": "offline-sig"},
    {"type": "text", "text": "I'll look at the project: reading everything."},
    {"type": "tool_use", "id": "toolu_offline_1", "name": "Read", "input": {"file_path": "/p/a.py"}},
]
USAGE = {"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def _events(frames: list[bytes]) -> list[tuple[str, dict]]:
    parsed = []
    for frame in frames:
        text = frame.decode()
        assert text.endswith("\n\n")
        name_line, data_line = text.strip("\n").split("\n")
        name, data = name_line.removeprefix("event: "), json.loads(data_line.removeprefix("data: "))
        assert data["type"] == name
        parsed.append((name, data))
    return parsed


def test_events_come_in_the_real_order() -> None:
    events = _events(list(encode_sse(BLOCKS, "tool_use", USAGE, "m", message_id="msg_offline_x")))
    names = [name for name, _ in events]
    assert names[0] == "message_start" and names[1] == "content_block_start" and names[2] == "ping"
    assert names[-2:] == ["message_delta", "message_stop"]
    assert names.count("ping") == 1
    start = events[0][1]["message"]
    assert start["id"] == "msg_offline_x" and start["content"] == [] and start["stop_reason"] is None
    assert start["usage"]["input_tokens"] == 10
    per_index: dict[int, list[str]] = {}
    for name, data in events:
        if name.startswith("content_block"):
            per_index.setdefault(data["index"], []).append(name)
    for index, sequence in per_index.items():
        assert sequence[0] == "content_block_start" and sequence[-1] == "content_block_stop"
        assert set(sequence[1:-1]) == {"content_block_delta"}, index
    delta = events[-2][1]
    assert delta["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert delta["usage"]["output_tokens"] > 1 and delta["usage"]["input_tokens"] == 10


def test_blocks_reassemble_from_their_deltas() -> None:
    events = _events(list(encode_sse(BLOCKS, "tool_use", USAGE, "m")))
    deltas = [data["delta"] for name, data in events if name == "content_block_delta"]
    thinking = "".join(d["thinking"] for d in deltas if d["type"] == "thinking_delta")
    signature = [d["signature"] for d in deltas if d["type"] == "signature_delta"]
    text = "".join(d["text"] for d in deltas if d["type"] == "text_delta")
    fragments = [d["partial_json"] for d in deltas if d["type"] == "input_json_delta"]
    assert thinking == "Plan the step." and signature == ["offline-sig"]
    assert text == BLOCKS[1]["text"]
    assert fragments[0] == "" and len(fragments) > 2
    assert json.loads("".join(fragments)) == {"file_path": "/p/a.py"}
    starts = [data["content_block"] for name, data in events if name == "content_block_start"]
    assert starts[2] == {"type": "tool_use", "id": "toolu_offline_1", "name": "Read", "input": {}}


def test_text_chunks_are_small_words() -> None:
    text = "Looking at internationalization in src/app.py now, ok?"
    chunks = split_text(text)
    assert "".join(chunks) == text
    assert all(1 <= len(chunk) <= 8 for chunk in chunks)
    assert len(chunks) >= 8


def test_long_json_is_split_in_many_fragments() -> None:
    serialized = json.dumps({"content": "x" * 3000})
    fragments = split_json(serialized)
    assert "".join(fragments) == serialized and fragments[0] == ""
    assert 10 < len(fragments) < 200
