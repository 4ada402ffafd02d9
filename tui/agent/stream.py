"""One streamed API call: SDK stream events in, bus events out, the assembled message back.

The SDK's `messages.stream()` helper parses SSE and assembles the message. It is consumed
on a reader thread that hands events to the loop thread through a queue, so an
interrupt takes effect at once even when the socket is silent (a blocked read cannot be
woken from another thread).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .events import BlockDelta, BlockFinished, BlockStarted, Event, ResponseStarted
from .retry import IncompleteStream

_DERIVED = {"text", "input_json", "thinking", "signature", "citation"}


class StreamInterrupted(Exception):
    """The user interrupted while the response streamed."""

    def __init__(self, partial: dict[str, Any] | None) -> None:
        super().__init__("interrupted")
        self.partial = partial


class StreamError(Exception):
    """The stream failed; `cause` is the original exception, `partial` what had arrived."""

    def __init__(self, cause: BaseException, partial: dict[str, Any] | None) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.partial = partial


@dataclass
class StreamResult:
    message: dict[str, Any]
    stop_reason: str | None
    usage: dict[str, Any]
    request_id: str | None
    ttfb_ms: int
    duration_ms: int
    raw_events: list[tuple[float, str, dict[str, Any]]] = field(default_factory=list)


def _delta_dict(delta: Any) -> tuple[str, str, dict[str, Any]]:
    """(delta type, its text, a JSON form) without the cost of model_dump per token."""
    kind = delta.type
    if kind == "text_delta":
        return kind, delta.text, {"type": kind, "text": delta.text}
    if kind == "input_json_delta":
        return kind, delta.partial_json, {"type": kind, "partial_json": delta.partial_json}
    if kind == "thinking_delta":
        return kind, delta.thinking, {"type": kind, "thinking": delta.thinking}
    if kind == "signature_delta":
        return kind, delta.signature, {"type": kind, "signature": delta.signature}
    data = delta.model_dump(exclude_none=True)
    return kind, "", data


def dump_block(block: Any) -> dict[str, Any]:
    """A content block as the API sent it (SDK-only helper fields dropped)."""
    data = block.model_dump(exclude_none=True, mode="json")
    data.pop("parsed_output", None)
    if data.get("type") == "text" and data.get("citations") == []:
        data.pop("citations")
    return data


def dump_message(message: Any) -> dict[str, Any]:
    """{"role": "assistant", "content": [...]} exactly as sent: ids, thinking signatures, order."""
    return {"role": "assistant", "content": [dump_block(b) for b in message.content]}


def _partial(stream: Any) -> dict[str, Any] | None:
    try:
        snap = stream.current_message_snapshot
    except Exception:
        return None
    return dump_message(snap) if snap is not None else None


def run_stream(
    client: Any,
    params: dict[str, Any],
    *,
    iteration: int,
    publish: Callable[[Event], None],
    cancel: threading.Event,
) -> StreamResult:
    """Stream one response, publishing Response/Block events; raise StreamError or StreamInterrupted."""
    items: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    abandon = threading.Event()
    holder: dict[str, Any] = {}
    sent_at = time.monotonic()

    def read() -> None:
        try:
            with client.messages.stream(**params) as stream:
                holder["stream"] = stream
                try:
                    for ev in stream:
                        if abandon.is_set():
                            return
                        if ev.type not in _DERIVED:
                            items.put(("event", ev))
                except ValueError:
                    # the helper cannot accumulate invalid tool JSON (jiter raises): read the rest raw
                    items.put(("invalid_json", None))
                    for ev in stream._raw_stream:
                        if abandon.is_set():
                            return
                        items.put(("event", ev))
                items.put(("end", stream))
        except BaseException as exc:  # handed to the loop thread, which classifies it
            items.put(("error", exc))

    threading.Thread(target=read, name=f"stream-{iteration}", daemon=True).start()

    raw: list[tuple[float, str, dict[str, Any]]] = []
    ttfb_ms = 0
    request_id: str | None = None
    saw_stop = False
    manual = False  # True once the SDK could not assemble the message (invalid tool JSON)
    while True:
        try:
            kind, payload = items.get(timeout=0.05)
        except queue.Empty:
            if cancel.is_set():
                abandon.set()
                stream = holder.get("stream")
                raise StreamInterrupted(_partial(stream) if stream is not None else None)
            continue
        if cancel.is_set():
            abandon.set()
            stream = holder.get("stream")
            raise StreamInterrupted(_partial(stream) if stream is not None else None)
        if kind == "error":
            stream = holder.get("stream")
            raise StreamError(payload, _partial(stream) if stream is not None else None)
        if kind == "end":
            stream = payload
            break
        if kind == "invalid_json":
            manual = True
            continue
        ev = payload
        now = time.monotonic() - sent_at
        etype = ev.type
        if etype == "content_block_delta":
            dtype, text, data = _delta_dict(ev.delta)
            raw.append((now, etype, {"type": etype, "index": ev.index, "delta": data}))
            publish(BlockDelta(iteration=iteration, index=ev.index, delta_type=dtype, text=text))
        elif etype == "content_block_start":
            block = ev.content_block
            raw.append((now, etype, {"type": etype, "index": ev.index, "content_block": dump_block(block)}))
            publish(
                BlockStarted(
                    iteration=iteration,
                    index=ev.index,
                    block_type=block.type,
                    tool_use_id=getattr(block, "id", None),
                    tool_name=getattr(block, "name", None),
                )
            )
        elif etype == "content_block_stop":
            raw.append((now, etype, {"type": etype, "index": ev.index}))
            block_dict = assemble(raw)["content"][ev.index] if manual else dump_block(ev.content_block)
            publish(BlockFinished(iteration=iteration, index=ev.index, block=block_dict))
        elif etype == "message_start":
            ttfb_ms = int(now * 1000)
            raw.append((now, etype, ev.model_dump(exclude_none=True, mode="json")))
            stream = holder.get("stream")
            request_id = getattr(stream, "request_id", None) if stream is not None else None
            publish(
                ResponseStarted(iteration=iteration, message_id=ev.message.id, request_id=request_id, ttfb_ms=ttfb_ms)
            )
        elif etype == "message_stop":
            saw_stop = True
            raw.append((now, etype, {"type": etype}))
        else:  # message_delta and any event type the API adds later
            try:
                raw.append((now, etype, ev.model_dump(exclude_none=True, mode="json")))
            except Exception:
                raw.append((now, etype, {"type": etype}))

    if manual:
        assembled = assemble(raw)
        message = {"role": "assistant", "content": assembled["content"]}
        stop_reason = assembled.get("stop_reason")
        usage = assembled.get("usage", {})
        details = assembled.get("stop_details")
    else:
        snapshot = stream.current_message_snapshot
        message = dump_message(snapshot)
        stop_reason = snapshot.stop_reason
        usage = snapshot.usage.model_dump(exclude_none=True, mode="json") if snapshot.usage else {}
        sd = getattr(snapshot, "stop_details", None)
        details = sd.model_dump(exclude_none=True, mode="json") if sd is not None else None
        if details is None:  # SDKs older than stop_details keep it only in the raw message_delta
            details = next((d.get("delta", {}).get("stop_details") for _, k, d in raw if k == "message_delta"
                            and d.get("delta", {}).get("stop_details")), None)
    if not saw_stop or stop_reason is None:
        raise StreamError(IncompleteStream("no message_stop"), message)
    if stop_reason == "refusal" and details:
        raw.append((time.monotonic() - sent_at, "stop_details", details))
    return StreamResult(
        message=message,
        stop_reason=stop_reason,
        usage=usage,
        request_id=request_id,
        ttfb_ms=ttfb_ms,
        duration_ms=int((time.monotonic() - sent_at) * 1000),
        raw_events=raw,
    )


INVALID_JSON_KEY = "INVALID_JSON"


def assemble(raw: list[tuple[float, str, dict[str, Any]]]) -> dict[str, Any]:
    """Build the message from raw events, for when the SDK helper cannot (invalid tool JSON).

    A tool_use whose input is not valid JSON keeps the raw text as {"INVALID_JSON": raw},
    so the call can be answered with an is_error result instead of failing the stream.
    """
    import json

    message: dict[str, Any] = {"content": [], "usage": {}}
    buffers: dict[int, str] = {}
    for _, etype, data in raw:
        if etype == "message_start":
            start = data.get("message", {})
            message["usage"] = dict(start.get("usage") or {})
        elif etype == "content_block_start":
            block = dict(data["content_block"])
            content = message["content"]
            while len(content) <= data["index"]:
                content.append({})
            content[data["index"]] = block
        elif etype == "content_block_delta":
            block = message["content"][data["index"]]
            delta = data["delta"]
            kind = delta.get("type")
            if kind == "text_delta":
                block["text"] = block.get("text", "") + delta["text"]
            elif kind == "thinking_delta":
                block["thinking"] = block.get("thinking", "") + delta["thinking"]
            elif kind == "signature_delta":
                block["signature"] = block.get("signature", "") + delta["signature"]
            elif kind == "input_json_delta":
                buffers[data["index"]] = buffers.get(data["index"], "") + delta["partial_json"]
            elif kind == "citations_delta":
                block.setdefault("citations", []).append(delta.get("citation"))
        elif etype == "content_block_stop":
            index = data["index"]
            block = message["content"][index]
            if block.get("type") in ("tool_use", "server_tool_use") and index in buffers:
                text = buffers[index]
                try:
                    block["input"] = json.loads(text) if text.strip() else {}
                except ValueError:
                    block["input"] = {INVALID_JSON_KEY: text}
        elif etype == "message_delta":
            delta = data.get("delta", {})
            message["stop_reason"] = delta.get("stop_reason")
            if delta.get("stop_details"):
                message["stop_details"] = delta["stop_details"]
            message["usage"].update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})
    return message
