"""Synthetic engine events for one short session: the panel's demo and its tests feed on them."""

from __future__ import annotations

from typing import Any

from tui.agent.events import Event, RequestSent, ResponseFinished, ResponseStarted, StopReasonHandled

SYSTEM = [{"type": "text", "text": "You are agent-tui, a coding agent. " * 20, "cache_control": {"type": "ephemeral"}}]
TOOLS = [
    {
        "name": "Read",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
    {
        "name": "Grep",
        "description": "Search files.",
        "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}}},
    },
]


def body(messages: list[dict[str, Any]], model: str = "claude-sonnet-5-5") -> dict[str, Any]:
    return {
        "model": model,
        "max_tokens": 128_000,
        "system": SYSTEM,
        "tools": TOOLS,
        "messages": messages,
        "stream": True,
    }


def call_events(
    iteration: int, request: dict[str, Any], reply: dict[str, Any], *, ts: float = 1_700_000_000.0
) -> list[Event]:
    """The events of one API call: RequestSent, ResponseStarted, ResponseFinished, StopReasonHandled."""
    stop = reply["stop_reason"]
    usage = {"input_tokens": 40, "output_tokens": 25, "cache_read_input_tokens": 900, "cache_creation_input_tokens": 60}
    raw = (
        (0.301, "message_start", {"type": "message_start", "message": {"id": reply["id"], "usage": usage}}),
        (
            0.302,
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            0.350,
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me look."}},
        ),
        (0.351, "content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            0.420,
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 25}},
        ),
        (0.421, "message_stop", {"type": "message_stop"}),
    )
    action = "dispatching 2 tools, 2 in parallel" if stop == "tool_use" else "turn ends"
    return [
        RequestSent(ts=ts, iteration=iteration, attempt=1, model=request["model"], body=request),
        ResponseStarted(
            ts=ts + 0.3, iteration=iteration, message_id=reply["id"], request_id=f"req_{iteration}", ttfb_ms=301
        ),
        ResponseFinished(
            ts=ts + 0.42,
            iteration=iteration,
            message=reply,
            stop_reason=stop,
            usage=usage,
            request_id=f"req_{iteration}",
            ttfb_ms=301,
            duration_ms=421,
            cost_usd=0.0012,
            raw_events=raw,
        ),
        StopReasonHandled(ts=ts + 0.43, iteration=iteration, stop_reason=stop, action=action),
    ]


def two_call_session() -> list[Event]:
    """A tool_use call, then the follow-up call whose messages grew by 2 (assistant, user)."""
    user = {"role": "user", "content": "Find the TODOs in a.py and b.py"}
    reply1 = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "stop_reason": "tool_use",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "a.py"}},
            {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {"path": "b.py"}},
        ],
    }
    results = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "# TODO: fix\nprint('a')\n"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "print('b')\n"},
        ],
    }
    reply2 = {
        "id": "msg_2",
        "type": "message",
        "role": "assistant",
        "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "a.py has one TODO on line 1; b.py has none."}],
    }
    first = {k: v for k, v in reply1.items() if k in ("role", "content")}
    return call_events(1, body([user]), reply1) + call_events(
        2, body([user, first, results]), reply2, ts=1_700_000_002.0
    )


if __name__ == "__main__":  # python -m tui.ui.widgets.inspector.sample: the panel with two synthetic calls
    from textual.app import App, ComposeResult

    from tui.ui.widgets.inspector.panel import Inspector

    class InspectorDemo(App[None]):
        def compose(self) -> ComposeResult:
            yield Inspector()

        def on_mount(self) -> None:
            for event in two_call_session():
                self.query_one(Inspector).record(event)

    InspectorDemo().run()
