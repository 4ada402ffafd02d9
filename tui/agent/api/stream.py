"""One streamed API call: SDK stream events in, bus events out, the assembled message back.

The SDK's `messages.stream()` helper parses SSE and assembles the message. A reader
thread consumes it and publishes events as they arrive; the loop thread only waits, so an
interrupt takes effect at once even when the socket is silent (a blocked read cannot be
woken from another thread).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from tui.agent.events import BlockDelta, BlockFinished, BlockStarted, Event, ResponseStarted

from .retry import EmptyStream, IncompleteStream, MalformedStream
from .scrub import contains_surrogate, first_surrogate, has_surrogate, scrub

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
    data = delta.model_dump(exclude_none=True, warnings=False)
    return kind, "", data


def dump_block(block: Any) -> dict[str, Any]:
    """A content block as the API sent it (SDK-only helper fields dropped).

    The SDK builds response models without validation, so a value of an unexpected shape (a
    tool input that is a list) is kept as sent; `warnings=False` stops pydantic from printing a
    serializer UserWarning about it on stderr, and the dispatcher reports the bad input itself.
    """
    data: dict[str, Any] = block.model_dump(exclude_none=True, mode="json", warnings=False)
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


#: what the SDK's accumulator raises on events that break the protocol (jiter's ValueError included)
_SDK_REJECTS = (ValueError, LookupError, RuntimeError, TypeError, AttributeError)


class _Tee:
    """Wraps the SDK's raw event stream, remembering the last event it handed out (all else passes through)."""

    def __init__(self, events: Any) -> None:
        self._wrapped = events
        self._events = iter(events)
        self.last: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._wrapped, name)

    def __iter__(self) -> _Tee:
        return self

    def __next__(self) -> Any:
        self.last = None
        self.last = next(self._events)
        return self.last


def _is_input_json(ev: Any) -> bool:
    """True for an input_json_delta event: the one kind the raw fallback can assemble."""
    return (
        getattr(ev, "type", None) == "content_block_delta"
        and getattr(getattr(ev, "delta", None), "type", None) == "input_json_delta"
    )


def describe_malformed(ev: Any, exc: BaseException) -> str:
    """What was wrong with the event the SDK could not accumulate, as a clause."""
    kind = getattr(ev, "type", None)
    index = getattr(ev, "index", None)
    if ev is None:
        return f"an event could not be decoded ({type(exc).__name__}: {exc})"
    if isinstance(exc, LookupError) and index is not None:
        return f"a {kind} for content block {index}, which was never started"
    if isinstance(exc, RuntimeError) and "before" in str(exc):
        return f"a {kind} event came before message_start"
    return f"a {kind} event could not be read ({type(exc).__name__}: {exc})"


#: what a streaming answer may be: SSE, or Bedrock's AWS event stream (the Bedrock client decodes it)
STREAM_CONTENT_TYPES = ("text/event-stream", "application/vnd.amazon.eventstream")


def check_event_stream(response: Any) -> None:
    """Raise MalformedStream when a 200 answer is not an event stream (an HTML page, a JSON body)."""
    ctype = response.headers.get("content-type", "")
    if any(kind in ctype.lower() for kind in STREAM_CONTENT_TYPES):
        return
    try:
        head = response.read()[:80].decode("utf-8", "replace")
    except Exception:
        head = ""
    shown = " ".join(head.split())
    start = f" starting {shown!r}" if shown else " that was empty"
    raise MalformedStream(
        f"it answered 200 with {ctype or 'no content type'} instead of an event stream, a body"
        f"{start}; check ANTHROPIC_BASE_URL and any proxy in between"
    )


def run_stream(
    client: Any,
    params: dict[str, Any],
    *,
    iteration: int,
    publish: Callable[[Event], None],
    cancel: threading.Event,
) -> StreamResult:
    """Stream one response, publishing Response/Block events; raise StreamError or StreamInterrupted.

    A reader thread consumes the stream and publishes as events arrive (no per-token hand-off
    between threads); this thread only waits, so an interrupt returns at once. After an
    interrupt the reader publishes nothing more (`gate` orders the two).
    """
    reader = _StreamReader(client, params, iteration, publish)
    thread = threading.Thread(target=reader.run, name=f"stream-{iteration}", daemon=True)
    thread.start()
    while not reader.done.wait(0.05):
        if cancel.is_set():
            with reader.gate:
                reader.abandoned = True
            raise StreamInterrupted(reader.partial())
    if cancel.is_set():
        raise StreamInterrupted(reader.partial())
    if reader.error is not None:
        raise StreamError(reader.error, reader.partial())
    return reader.result()


class _StreamReader:
    """Consumes one SDK stream on its own thread: raw events kept, bus events published."""

    def __init__(self, client: Any, params: dict[str, Any], iteration: int, publish: Callable[[Event], None]) -> None:
        self.client = client
        self.params = params
        self.iteration = iteration
        self._publish = publish
        self.gate = threading.Lock()
        self.abandoned = False
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.stream: Any = None
        self.sent_at = time.monotonic()
        self.raw: list[tuple[float, str, dict[str, Any]]] = []
        self.ttfb_ms = 0
        self.request_id: str | None = None
        self.saw_stop = False
        self.manual = False  # True once the SDK could not assemble the message (invalid tool JSON)
        self.saw_start = False
        self.started: set[int] = set()  # content block indexes started so far

    def publish(self, event: Event) -> bool:
        with self.gate:
            if self.abandoned:
                return False
            self._publish(event)
            return True

    def run(self) -> None:
        try:
            with self.client.messages.stream(**self.params) as stream:
                self.stream = stream
                check_event_stream(stream.response)
                tee = _Tee(stream._raw_stream)
                stream._raw_stream = tee  # the SDK reads it lazily: each event is seen before it is accumulated
                try:
                    for ev in stream:
                        if ev.type not in _DERIVED and not self.handle(ev):
                            return
                except MalformedStream:
                    raise
                except _SDK_REJECTS as exc:
                    if not (isinstance(exc, ValueError) and _is_input_json(tee.last)):
                        raise MalformedStream(describe_malformed(tee.last, exc)) from None
                    # the helper cannot accumulate invalid tool JSON (jiter raises): read the rest raw,
                    # starting with the delta it choked on
                    self.manual = True
                    if not self.handle(tee.last):
                        return
                    for ev in tee:
                        if not self.handle(ev):
                            return
        except BaseException as exc:  # handed to the loop thread, which classifies it
            self.error = exc
        finally:
            self.done.set()

    def handle(self, ev: Any) -> bool:
        """Record one raw event and publish what it means; False once abandoned."""
        now = time.monotonic() - self.sent_at
        etype = ev.type
        raw = self.raw
        it = self.iteration
        if etype == "content_block_delta":
            if ev.index not in self.started:
                raise MalformedStream(f"a content_block_delta for block {ev.index}, which was never started")
            dtype, text, data = _delta_dict(ev.delta)
            if has_surrogate(text):
                article = "an" if dtype[:1] in "aeiou" else "a"
                raise MalformedStream(
                    f"{article} {dtype} held an unpaired surrogate ({first_surrogate(text)}), "
                    "which is not valid Unicode"
                )
            raw.append((now, etype, {"type": etype, "index": ev.index, "delta": data}))
            return self.publish(BlockDelta(iteration=it, index=ev.index, delta_type=dtype, text=text))
        if etype == "content_block_start":
            if ev.index != len(self.started):
                raise MalformedStream(f"content block {ev.index} started where block {len(self.started)} was due")
            self.started.add(ev.index)
            block = ev.content_block
            raw.append((now, etype, {"type": etype, "index": ev.index, "content_block": dump_block(block)}))
            return self.publish(
                BlockStarted(
                    iteration=it,
                    index=ev.index,
                    block_type=block.type,
                    tool_use_id=getattr(block, "id", None),
                    tool_name=getattr(block, "name", None),
                )
            )
        if etype == "content_block_stop":
            if ev.index not in self.started:
                raise MalformedStream(f"a content_block_stop for block {ev.index}, which was never started")
            raw.append((now, etype, {"type": etype, "index": ev.index}))
            block_dict = assemble(raw)["content"][ev.index] if self.manual else dump_block(ev.content_block)
            return self.publish(BlockFinished(iteration=it, index=ev.index, block=block_dict))
        if etype == "message_start":
            self.saw_start = True
            self.ttfb_ms = int(now * 1000)
            raw.append((now, etype, ev.model_dump(exclude_none=True, mode="json", warnings=False)))
            self.request_id = getattr(self.stream, "request_id", None)
            return self.publish(
                ResponseStarted(
                    iteration=it, message_id=ev.message.id, request_id=self.request_id, ttfb_ms=self.ttfb_ms
                )
            )
        if etype == "message_stop":
            self.saw_stop = True
            raw.append((now, etype, {"type": etype}))
        else:  # message_delta and any event type the API adds later
            try:
                raw.append((now, etype, ev.model_dump(exclude_none=True, mode="json", warnings=False)))
            except Exception:
                raw.append((now, etype, {"type": etype}))
        return not self.abandoned

    def partial(self) -> dict[str, Any] | None:
        """What had arrived, as an assistant message (for an interrupt or a failure), surrogates replaced."""
        if self.manual:
            try:
                return cast(dict[str, Any], scrub({"role": "assistant", "content": assemble(self.raw)["content"]}))
            except (LookupError, TypeError):
                return None
        return scrub(_partial(self.stream)) if self.stream is not None else None

    def result(self) -> StreamResult:
        raw = self.raw
        if not self.saw_start:
            raise StreamError(EmptyStream("no events"), None)
        if self.manual:
            assembled = assemble(raw)
            message = {"role": "assistant", "content": assembled["content"]}
            stop_reason = assembled.get("stop_reason")
            usage = assembled.get("usage", {})
            details = assembled.get("stop_details")
        else:
            snapshot = self.stream.current_message_snapshot
            message = dump_message(snapshot)
            stop_reason = snapshot.stop_reason
            usage = snapshot.usage.model_dump(exclude_none=True, mode="json", warnings=False) if snapshot.usage else {}
            sd = getattr(snapshot, "stop_details", None)
            details = sd.model_dump(exclude_none=True, mode="json", warnings=False) if sd is not None else None
            if details is None:  # SDKs older than stop_details keep it only in the raw message_delta
                details = next(
                    (
                        d.get("delta", {}).get("stop_details")
                        for _, k, d in raw
                        if k == "message_delta" and d.get("delta", {}).get("stop_details")
                    ),
                    None,
                )
        if not self.saw_stop or stop_reason is None:
            raise StreamError(IncompleteStream("no message_stop"), message)
        if stop_reason == "refusal" and details:
            raw.append((time.monotonic() - self.sent_at, "stop_details", details))
        return StreamResult(
            message=message,
            stop_reason=stop_reason,
            usage=usage,
            request_id=self.request_id,
            ttfb_ms=self.ttfb_ms,
            duration_ms=int((time.monotonic() - self.sent_at) * 1000),
            raw_events=raw,
        )


INVALID_JSON_KEY = "INVALID_JSON"
#: tool input nested deeper than this is refused as invalid: no tool takes it, and json.dumps of
#: a request holding ~1000 levels raises RecursionError, which would break every later request
MAX_INPUT_NESTING = 64


def nesting(value: Any) -> int:
    """How deeply lists and dicts nest in `value` (0 for a scalar), without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


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
                except (ValueError, RecursionError):  # RecursionError: nested too deep to parse
                    block["input"] = {INVALID_JSON_KEY: text}
                else:  # valid JSON, but it could never be sent back (or would overflow the encoder)
                    if contains_surrogate(block["input"]) or nesting(block["input"]) > MAX_INPUT_NESTING:
                        block["input"] = {INVALID_JSON_KEY: text}
        elif etype == "message_delta":
            delta = data.get("delta", {})
            message["stop_reason"] = delta.get("stop_reason")
            if delta.get("stop_details"):
                message["stop_details"] = delta["stop_details"]
            message["usage"].update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})
    return message
