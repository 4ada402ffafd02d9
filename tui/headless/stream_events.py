"""Claude Code's `stream_event` lines for `--include-partial-messages`: the API's stream, rebuilt from loop events.

The Agent SDK turns each into a `StreamEvent` (its `include_partial_messages`); agent-tui's own
`block_delta` lines stay as they are beside them. Only built when partial messages are asked for.
"""

from __future__ import annotations

from typing import Any

from tui.agent.events import BlockDelta, BlockFinished, BlockStarted, Event, ResponseFinished, ResponseStarted

#: the field of each delta type that holds its piece
DELTA_FIELDS = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "input_json_delta": "partial_json",
    "signature_delta": "signature",
}
#: what a block holds before its first delta, by type
EMPTY_BLOCKS: dict[str, dict[str, Any]] = {
    "text": {"text": ""},
    "thinking": {"thinking": "", "signature": ""},
    "tool_use": {"input": {}},
    "server_tool_use": {"input": {}},
}


def api_events(event: Event, model: str) -> list[dict[str, Any]]:
    """The Messages API stream events that `event` stands for (none for other events)."""
    if isinstance(event, ResponseStarted):
        return [
            {
                "type": "message_start",
                "message": {
                    "id": event.message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {},
                },
            }
        ]
    if isinstance(event, BlockStarted):
        block: dict[str, Any] = {"type": event.block_type, **EMPTY_BLOCKS.get(event.block_type, {})}
        if event.tool_use_id:
            block.update(id=event.tool_use_id, name=event.tool_name)
        return [{"type": "content_block_start", "index": event.index, "content_block": block}]
    if isinstance(event, BlockDelta):
        field = DELTA_FIELDS.get(event.delta_type)
        if field is None:  # citations: their pieces are not kept as they arrived
            return []
        return [
            {
                "type": "content_block_delta",
                "index": event.index,
                "delta": {"type": event.delta_type, field: event.text},
            }
        ]
    if isinstance(event, BlockFinished):
        return [{"type": "content_block_stop", "index": event.index}]
    if isinstance(event, ResponseFinished):
        return [
            {
                "type": "message_delta",
                "delta": {"stop_reason": event.stop_reason, "stop_sequence": None},
                "usage": event.usage,
            },
            {"type": "message_stop"},
        ]
    return []


def stream_event_lines(event: Event, model: str, session_id: str, parent: str | None) -> list[dict[str, Any]]:
    """Claude Code's `{"type": "stream_event", "event": …}` lines for `event`."""
    found = api_events(event, model)
    if not found:
        return []
    import uuid

    return [
        {
            "type": "stream_event",
            "uuid": str(uuid.uuid4()),
            "session_id": session_id,
            "event": api_event,
            "parent_tool_use_id": parent,
        }
        for api_event in found
    ]
