"""A scripted web search: a `pause_turn` mid-search, then the result as raw SSE bytes, as the API streams it."""

from __future__ import annotations

import json
from typing import Any

from .script import Raw, Reply, ServerToolUse, Text

SEARCH_ID = "srvtoolu_01SearchTextualAAAAAAAA"
RESULTS = [
    ("Textual — Rapid TUI development", "https://textual.textualize.io/"),
    ("Textualize/textual on GitHub", "https://github.com/Textualize/textual"),
]


def _event(kind: str, data: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


def search_result_sse(model: str = "claude-sonnet-5-5") -> bytes:
    """The continuation after pause_turn: a whole `web_search_tool_result` block, then text, one search in usage."""
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": SEARCH_ID,
        "content": [
            {
                "type": "web_search_result",
                "url": url,
                "title": title,
                "encrypted_content": "EqgfCioIARgB",
                "page_age": None,
            }
            for title, url in RESULTS
        ],
    }
    answer = "Textual is a Python framework for terminal UIs."
    return b"".join(
        [
            _event(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_01SearchContinuationAAAAA",
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 50, "output_tokens": 1},
                    },
                },
            ),
            _event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": result}),
            _event("content_block_stop", {"type": "content_block_stop", "index": 0}),
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
            ),
            _event(
                "content_block_delta",
                {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": answer}},
            ),
            _event("content_block_stop", {"type": "content_block_stop", "index": 1}),
            _event(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 20, "server_tool_use": {"web_search_requests": 1}},
                },
            ),
            _event("message_stop", {"type": "message_stop"}),
        ]
    )


def search_script() -> list[Any]:
    """Two responses: text and a `server_tool_use` stopped by `pause_turn`, then the raw continuation."""
    return [
        Reply([Text("Let me search."), ServerToolUse("web_search", {"query": "textual tui"}, SEARCH_ID)], "pause_turn"),
        Raw(search_result_sse()),
    ]
