"""An httpx transport (httpx2 under SDK 1.x/2.x) that answers Messages API requests with the offline model.

Plugged under the real SDK, so the app runs the exact code path it uses against the API:
`anthropic.Anthropic(api_key="offline", http_client=httpx.Client(transport=OfflineTransport(dir)))`.
Deliberately free of `anthropic` imports: this module is on the startup path.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tui.agent.api.httplib import httpx
from tui.agent.cost.pricing import OFFLINE_MODEL_NAME
from tui.agent.offline.brain import plan_reply
from tui.agent.offline.sse import encode_sse, message_json
from tui.agent.offline.usage import PromptCacheSimulator, count_input_tokens
from tui.agent.offline.validate import request_error

# the first event waits this many deltas' worth of delay, like a model's time to first token
_FIRST_TOKEN_DELAYS = 10


class PacedEventStream(httpx.SyncByteStream):
    """A response body that yields SSE frames with a pause between deltas, and stops on close.

    `close()` may come from another thread (an interrupt) while the consumer is inside a
    pause, so pauses wait on an Event rather than sleeping blindly.
    """

    def __init__(self, frames: Iterator[bytes], delay: float) -> None:
        self._frames = frames
        self._delay = delay
        self._closed = threading.Event()
        self.frames_sent = 0
        self.finished = False

    @property
    def closed(self) -> bool:
        """True once the consumer closed the response."""
        return self._closed.is_set()

    def _pause(self, seconds: float) -> None:
        if seconds > 0:
            self._closed.wait(seconds)

    def __iter__(self) -> Iterator[bytes]:
        self._pause(self._delay * _FIRST_TOKEN_DELAYS)
        for frame in self._frames:
            if self._closed.is_set():
                return
            yield frame
            self.frames_sent += 1
            if frame.startswith(b"event: content_block_delta"):
                self._pause(self._delay)
        self.finished = True

    def close(self) -> None:
        """Stops the stream: no further frame is produced after this."""
        self._closed.set()


def _error(status: int, kind: str, message: str, request_id: str) -> httpx.Response:
    """An API error response: `{"type":"error","error":{...},"request_id":...}`."""
    body = {"type": "error", "error": {"type": kind, "message": message}, "request_id": request_id}
    return httpx.Response(status, json=body, headers={"request-id": request_id})


class OfflineTransport(httpx.BaseTransport):
    """Answers `/v1/messages` (streamed or not) and `/v1/messages/count_tokens` offline."""

    def __init__(self, project_dir: Path, delay: float = 0.004) -> None:
        self.project_dir = Path(project_dir)
        self.delay = delay
        self.cache = PromptCacheSimulator()
        self.last_stream: PacedEventStream | None = None
        self._request_numbers = itertools.count(1)
        self._number_lock = threading.Lock()

    def _next_request_id(self) -> str:
        with self._number_lock:
            return f"req_offline_{next(self._request_numbers)}"

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Routes one request; unknown routes get a 404 in the API's error shape."""
        request_id = self._next_request_id()
        path = request.url.path.rstrip("/")
        if request.method != "POST" or not path.endswith(("/v1/messages", "/v1/messages/count_tokens")):
            return _error(
                404,
                "not_found_error",
                f"{request.method} {path} is not served by the offline model; it answers POST /v1/messages only.",
                request_id,
            )
        try:
            body = json.loads(request.read() or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _error(400, "invalid_request_error", "The request body is not valid JSON.", request_id)
        if not isinstance(body, dict):
            return _error(400, "invalid_request_error", "The request body must be a JSON object.", request_id)
        if path.endswith("/count_tokens"):
            tokens = {"input_tokens": count_input_tokens(body)}
            return httpx.Response(200, json=tokens, headers={"request-id": request_id})
        problem = request_error(body)
        if problem is not None:
            return _error(400, "invalid_request_error", problem, request_id)
        return self._answer(body, request_id)

    def _answer(self, body: dict[str, Any], request_id: str) -> httpx.Response:
        """Plans the reply and sends it as SSE or as one JSON message."""
        blocks, stop_reason = plan_reply(body, self.project_dir)
        usage = self.cache.usage_for(body)
        model = str(body.get("model") or OFFLINE_MODEL_NAME)
        seed = json.dumps(body.get("messages"), sort_keys=True, default=str).encode()
        message_id = "msg_offline_" + hashlib.sha256(seed).hexdigest()[:24]
        if not body.get("stream"):
            message = message_json(blocks, stop_reason, usage, model, message_id=message_id)
            return httpx.Response(200, json=message, headers={"request-id": request_id})
        frames = encode_sse(blocks, stop_reason, usage, model, message_id=message_id)
        stream = PacedEventStream(frames, self.delay)
        self.last_stream = stream
        headers = {
            "request-id": request_id,
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-cache",
        }
        return httpx.Response(200, headers=headers, stream=stream)
