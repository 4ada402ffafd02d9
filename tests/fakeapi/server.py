"""A loopback fake of the Anthropic Messages API that plays a script of replies and faults over real sockets."""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from .caching import CacheSimulator, count_tokens, uncached_usage
from .providers import (
    MODELS_PATH,
    TOKEN_PATH,
    as_messages_body,
    bedrock_event,
    models_page,
    provider_route,
    token_response,
)
from .script import Drop, HttpError, Raw, Reply, ScriptItem, SseError, Stall, Step, default_reply, new_id
from .sse import format_event, render_reply
from .validate import validate_request

MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
#: a surrogate escape (`\ud800`-`\udfff`): the real API refuses a body whose strings hold an unpaired one
LONE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
LONE_SURROGATE_ERROR = "The request body is not valid JSON: no low surrogate in string"


def _has_lone_surrogate(value: Any) -> bool:
    """True when a string anywhere in `value` holds an unpaired surrogate (json.loads keeps them)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= ch <= "\udfff" for ch in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


@dataclass
class Recorded:
    """One POST the server received and how it was answered."""

    headers: dict[str, str]
    body: dict[str, Any]
    path: str
    t_received: float
    t_finished: float | None = None
    status: int | None = None

    @property
    def api_key(self) -> str | None:
        """The key the client sent: `x-api-key` (SDK 0.x) or `Authorization: Bearer` (SDK 2.x sends it so)."""
        if "x-api-key" in self.headers:
            return self.headers["x-api-key"]
        scheme, _, token = self.headers.get("authorization", "").partition(" ")
        return token if scheme.lower() == "bearer" else None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    fake: FakeAPI

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (an abandoned stream, a retry) is normal here, not worth a traceback."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class FakeAPI:
    """Serves `POST /v1/messages` from a script; use as a context manager or call `stop()`.

    `script` is a list of steps (each a Step or a callable(body) -> Step) consumed one per valid
    Messages request, or a single callable(body) -> Step used for every request.
    """

    def __init__(
        self,
        script: Iterable[ScriptItem] | Callable[[dict[str, Any]], Any],
        *,
        validate: bool = True,
        simulate_cache: bool = True,
        token_delay: float = 0.0,
        min_cache_tokens: int = 1024,
        host: str = "127.0.0.1",
        port: int = 0,
        log: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        keep_requests: int | None = None,
    ) -> None:
        """`keep_requests`: only the newest this many requests stay in `requests` (None: all of them). A soak runs
        the app in this process: thousands of parsed bodies, each the whole history, would count as the app's RSS.
        """
        self._script_fn = script if callable(script) else None
        self._script: list[ScriptItem] = [] if callable(script) else list(script)
        self._next = 0
        self.validate = validate
        self.simulate_cache = simulate_cache
        self.token_delay = token_delay
        self.cache = CacheSimulator(min_cache_tokens, clock)
        self.requests: list[Recorded] | deque[Recorded] = [] if keep_requests is None else deque(maxlen=keep_requests)
        self.errors: list[str] = []
        self.log = log
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._thinking_by_tool_id: dict[str, list[dict[str, Any]]] = {}
        self._thinking_by_signature: dict[str, list[dict[str, Any]]] = {}
        self._server = _Server((host, port), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="fakeapi", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def message_requests(self) -> list[Recorded]:
        """Only the Messages requests, the providers' included (not count_tokens)."""
        return [r for r in self.requests if r.path == MESSAGES_PATH or provider_route(r.path)]

    def __enter__(self) -> FakeAPI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop serving, end stalls and close any open client connections."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    # ------------------------------------------------------------ used by the handler

    def next_step(self, body: dict[str, Any]) -> Step | None:
        """The step answering this request (callables resolved), or None when the script is exhausted."""
        with self._lock:
            if self._script_fn is not None:
                item: Any = self._script_fn
            elif self._next < len(self._script):
                item = self._script[self._next]
                self._next += 1
            else:
                return None
        while callable(item) and not isinstance(item, (Reply, HttpError, SseError, Drop, Stall, Raw)):
            item = item(body)
        return item

    def input_usage(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.cache.usage_for(body) if self.simulate_cache else uncached_usage(body)

    def remember_thinking(self, content: list[dict[str, Any]]) -> None:
        """Keep the thinking blocks of a reply so their echo can be checked later."""
        sent = [b for b in content if b.get("type") in ("thinking", "redacted_thinking")]
        if not sent:
            return
        with self._lock:
            for block in content:
                if block.get("type") == "tool_use":
                    self._thinking_by_tool_id[block["id"]] = sent
                if block.get("type") == "thinking":
                    self._thinking_by_signature[block["signature"]] = sent

    def check(self, body: dict[str, Any], headers: dict[str, str]) -> str | None:
        """Run validation; record failures; return the 400 message when the request must be refused."""
        with self._lock:
            by_tool, by_sig = dict(self._thinking_by_tool_id), dict(self._thinking_by_signature)
        verdict = validate_request(body, headers, by_tool, by_sig)
        for warning in verdict.warnings:
            self.record_error(warning)
        if verdict.reject:
            self.record_error(verdict.reject)
        return verdict.reject

    def record_error(self, message: str) -> None:
        with self._lock:
            self.errors.append(message)

    def pause(self, seconds: float) -> bool:
        """Sleep unless the server stops first; True when the server is stopping."""
        return self._stopping.wait(seconds) if seconds > 0 else self._stopping.is_set()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # answer at once: without TCP_NODELAY each reply on a kept-alive connection waits ~40 ms for a delayed ACK
    disable_nagle_algorithm = True
    server: _Server

    # -------------------------------------------------------------- plumbing

    def setup(self) -> None:
        super().setup()
        with self.server.fake._lock:
            self.server.fake._connections.add(self.connection)

    def finish(self) -> None:
        with self.server.fake._lock:
            self.server.fake._connections.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # one line per request is logged by _finish_record instead

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", self._request_id)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _send_error(self, status: int, error_type: str, message: str, headers: dict[str, str] | None = None) -> None:
        body = {"type": "error", "error": {"type": error_type, "message": message}, "request_id": self._request_id}
        self._send_json(status, body, headers)
        if self._record:
            self._record.status = status

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    # -------------------------------------------------------------- routes

    def do_HEAD(self) -> None:
        self._request_id, self._record = new_id("req_"), None
        if urlsplit(self.path).path == "/":
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()
        else:
            self._send_error(404, "not_found_error", "Not found")

    def do_GET(self) -> None:
        self._request_id, self._record = new_id("req_"), None
        if urlsplit(self.path).path == MODELS_PATH:
            self._send_json(200, models_page())
            return
        self._send_error(404, "not_found_error", f"{urlsplit(self.path).path}: not found")

    def do_POST(self) -> None:
        fake = self.server.fake
        self._request_id = new_id("req_")
        path = urlsplit(self.path).path
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        if body is not None and LONE_SURROGATE.search(raw) and _has_lone_surrogate(body):
            body = None  # answered as the API does: 400, not valid JSON
            fake.record_error(LONE_SURROGATE_ERROR)
        self._record = Recorded(headers, body if isinstance(body, dict) else {}, path, time.monotonic())
        with fake._lock:
            fake.requests.append(self._record)
        kind = "-"
        try:
            kind = self._answer(path, headers, body)
        except OSError:
            kind = "client gone"
            self.close_connection = True
        finally:
            self._record.t_finished = time.monotonic()
            if fake.log:
                took = self._record.t_finished - self._record.t_received
                fake.log(f"POST {path} -> {self._record.status} {kind} ({took * 1000:.0f} ms)")

    def _answer(self, path: str, headers: dict[str, str], body: Any) -> str:
        fake = self.server.fake
        route = provider_route(path)
        self._encode = bedrock_event if route and route.provider == "bedrock" else format_event
        if path == TOKEN_PATH:
            self._send_json(200, token_response())
            self._record.status = 200
            return "token"
        if route and isinstance(body, dict):  # the cloud providers sign their own way: the test checks the headers
            body = self._record.body = as_messages_body(body, route)
            path, headers = MESSAGES_PATH, {**headers, "x-api-key": "provider", "anthropic-version": "2023-06-01"}
        if path not in (MESSAGES_PATH, COUNT_TOKENS_PATH):
            self._send_error(404, "not_found_error", f"{path}: not found")
            return "unknown route"
        api_key = headers.get("x-api-key") or ""
        bearer = headers.get("authorization", "")
        if not api_key and not (bearer.lower().startswith("bearer ") and bearer[7:].strip()):
            self._send_error(401, "authentication_error", "invalid x-api-key")
            return "no credentials"
        if not headers.get("anthropic-version"):
            self._send_error(400, "invalid_request_error", "anthropic-version: header is required")
            return "no anthropic-version"
        if not isinstance(body, dict):
            self._send_error(400, "invalid_request_error", "There was an error parsing the body of your request.")
            return "bad json"
        if path == COUNT_TOKENS_PATH:
            self._send_json(200, {"input_tokens": count_tokens(body)})
            self._record.status = 200
            return "count_tokens"
        if fake.validate:
            problem = fake.check(body, headers)
            if problem:
                self._send_error(400, "invalid_request_error", problem)
                return "invalid"
        step = fake.next_step(body)
        if step is None:
            fake.record_error("script exhausted")
            self._send_error(500, "api_error", "script exhausted", {"x-should-retry": "false"})
            return "script exhausted"
        if isinstance(step, HttpError):
            self._send_error(step.status, step.error_type, step.message, step.headers)
            return step.error_type
        if isinstance(step, Raw):
            return self._raw(step)
        return self._stream(step, body)

    def _raw(self, step: Raw) -> str:
        self.send_response(step.status)
        self.send_header("content-type", step.content_type)
        self.send_header("content-length", str(len(step.body)))
        self.send_header("request-id", self._request_id)
        self.end_headers()
        self.wfile.write(step.body)
        self._record.status = step.status
        return f"raw {len(step.body)} bytes"

    def _stream(self, step: Step, body: dict[str, Any]) -> str:
        fake = self.server.fake
        base = step if isinstance(step, Reply) else (step.reply or default_reply())  # type: ignore[union-attr]
        rendered = render_reply(base, model=str(body.get("model", "claude-fake")), input_usage=fake.input_usage(body))
        fake.remember_thinking(rendered.content)
        events = rendered.events
        cut = getattr(step, "after_events", None)
        self.send_response(200)
        bedrock = self._encode is bedrock_event
        self.send_header(
            "content-type", "application/vnd.amazon.eventstream" if bedrock else "text/event-stream; charset=utf-8"
        )
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", self._request_id)
        self.send_header("anthropic-organization-id", "00000000-0000-0000-0000-000000000000")
        self.end_headers()
        self._record.status = 200
        for n, (name, data) in enumerate(events):
            if cut is not None and n == cut:
                if isinstance(step, SseError):
                    self._chunk(
                        self._encode(
                            "error", {"type": "error", "error": {"type": step.error_type, "message": step.message}}
                        )
                    )
                    break
                if isinstance(step, Drop):
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return "dropped"
                if isinstance(step, Stall) and fake.pause(step.seconds):
                    self.close_connection = True
                    return "stalled until stop"
            if n and fake.pause(fake.token_delay):
                self.close_connection = True
                return "stopped"
            self._chunk(self._encode(name, data))
        self.wfile.write(b"0\r\n\r\n")
        return type(step).__name__.lower() if not isinstance(step, Reply) else f"reply {base.stop_reason}"
