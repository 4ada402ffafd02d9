"""`-p --input-format stream-json`: Claude Code's input lines on stdin, fed into the session's inbox.

One JSON object per line. A `user` line is a prompt: it starts a turn, or, while one runs, it is
steered into that turn's next request (or waits for the next turn with `"priority": "later"`).
Each line type has a handler in `StreamJsonInput.handlers`, and each control request subtype one in
`StreamJsonInput.controls`: the Agent SDK's control protocol (`control_request` / `control_response`,
tui/headless/sdk_control) plugs in there. A subtype without a handler is answered with an error
`control_response`, and a line of an unknown type gets one error line: the client never waits on
an answer that will not come. Never imports Textual.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TextIO, Union

from tui.agent.inbox import Inbox
from tui.config.bounded_read import MAX_DEPTH, MAX_LINE_BYTES, bounded_lines, describe_size, nesting_depth
from tui.text.sanitize import one_line

#: a line handler: the parsed object and its line number
LineHandler = Callable[[dict[str, Any], int], None]
#: a control request handler: the request's `request` object -> the success `response` payload (or a Future of it,
#: for an answer that takes a while: the reader goes on meanwhile); an exception is the error answer
ControlHandler = Callable[[dict[str, Any]], Union[dict[str, Any], "Future[dict[str, Any]]"]]


class InputLineError(ValueError):
    """A line that cannot be used; its message is the one sentence shown for it."""


class ControlRefused(Exception):
    """A control request agent-tui cannot do; its message is the one sentence the client gets as the error."""


class StreamJsonInput:
    """Reads stream-json input lines from `stream` on a thread of its own until it ends."""

    def __init__(self, inbox: Inbox, stream: TextIO, emit: Callable[[dict[str, Any]], None], err: TextIO) -> None:
        self.inbox = inbox
        self.stream = stream
        self.emit = emit  # writes one stdout line (the headless renderer's): control answers, at once
        #: writes the lines about the input itself (errors, refused prompts); the renderer keeps them after `system/init`
        self.report: Callable[[dict[str, Any]], None] = emit
        self.err = err
        self.handlers: dict[str, LineHandler] = {
            "user": self.on_user,
            "control_request": self.on_control_request,
            "keep_alive": lambda obj, line: None,  # liveness only: nothing to do
        }
        self.controls: dict[str, ControlHandler] = {}
        #: the longest line read; a longer one is one error and is skipped whole
        self.line_limit = MAX_LINE_BYTES
        #: user lines accepted so far
        self.accepted = 0
        #: called once when the input has ended (EOF or a read error), before the inbox closes
        self.on_end: list[Callable[[], None]] = []
        #: called with the sentence when a `user` line is refused (the Agent SDK answers it with a result line)
        self.on_refused_prompt: Callable[[str], None] | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Read on a daemon thread; the inbox is closed when the input ends."""
        self._thread = threading.Thread(target=self.run, name="stream-json-input", daemon=True)
        self._thread.start()

    def run(self) -> None:
        """Read every line, then close the inbox (the turns still queued run, then -p ends)."""
        try:
            for number, line in enumerate(bounded_lines(self.stream, self.line_limit), 1):
                if line is None:  # dropped whole: its tail is never read as a line of its own
                    self.problem(number, f"it is longer than {describe_size(self.line_limit)}")
                    continue
                self.feed(line, number)
        except (OSError, ValueError) as exc:  # stdin closed under us, undecodable bytes
            self.problem(0, f"reading stdin failed: {exc}")
        finally:
            for ended in self.on_end:
                ended()
            self.inbox.close()

    def feed(self, line: str, number: int) -> None:
        """Handle one input line (blank lines are skipped)."""
        if not line.strip():
            return
        if nesting_depth(line) > MAX_DEPTH:  # json.loads would raise RecursionError
            self.problem(number, f"it is nested more than {MAX_DEPTH} levels deep")
            return
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            self.problem(number, f"not JSON ({exc.msg} at column {exc.colno})")
            return
        if not isinstance(obj, dict):
            self.problem(number, 'expected a JSON object with a "type"')
            return
        kind = obj.get("type")
        handler = self.handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            known = ", ".join(sorted(self.handlers))
            self.problem(number, f"unknown message type {json.dumps(kind)} (expected one of: {known})")
            return
        try:
            handler(obj, number)
        except InputLineError as exc:
            self.problem(number, str(exc))
            if kind == "user" and self.on_refused_prompt is not None:
                self.on_refused_prompt(str(exc))

    def problem(self, number: int, sentence: str) -> None:
        """One error line on stderr and, for the client reading stdout, a `system` line; the line is skipped."""
        where = f"line {number}" if number else "input"
        text = one_line(f"stream-json input {where}: {sentence}; the line is skipped.")
        self.err.write(f"agent-tui: {text}\n")
        self.err.flush()
        self.report({"type": "system", "subtype": "input_error", "line": number, "error": text})

    # --- line types ----------------------------------------------------------------------

    def on_user(self, obj: dict[str, Any], number: int) -> None:
        """A prompt: queued in the inbox (a new turn, or steered into the running one)."""
        text = user_text(obj.get("message"))
        steer = obj.get("priority") != "later"
        self.inbox.put(text, steer=steer, source="stream-json")
        self.accepted += 1

    def on_control_request(self, obj: dict[str, Any], number: int) -> None:
        """A control request: its subtype's handler answers, or an error response says none exists yet."""
        request_id = obj.get("request_id")
        request = obj.get("request")
        if not isinstance(request_id, str) or not isinstance(request, dict):
            raise InputLineError('a control_request needs a string "request_id" and a "request" object')
        subtype = request.get("subtype")
        handler = self.controls.get(subtype) if isinstance(subtype, str) else None
        if handler is None:
            self.emit(
                control_error(
                    request_id, f"agent-tui does not handle control requests of subtype {json.dumps(subtype)}"
                )
            )
            return
        try:
            response = handler(request)
        except Exception as exc:  # the client gets the failure as its answer, never silence
            self.emit(control_error(request_id, error_text(exc)))
            return
        if isinstance(response, Future):
            response.add_done_callback(lambda done: self.answer(request_id, done))
            return
        self.emit(control_success(request_id, response))

    def answer(self, request_id: str, done: Future[dict[str, Any]]) -> None:
        """Answer a control request whose handler returned a Future, once it is done."""
        try:
            self.emit(control_success(request_id, done.result()))
        except BaseException as exc:  # noqa: BLE001 - cancelled or failed: the client still gets an answer
            self.emit(control_error(request_id, error_text(exc)))


def error_text(exc: BaseException) -> str:
    """The error a client reads: a ControlRefused's sentence as it is, anything else with its type."""
    if isinstance(exc, ControlRefused):
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def control_success(request_id: str, response: dict[str, Any]) -> dict[str, Any]:
    """A success `control_response` (the Agent SDK's ControlResponse)."""
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response},
    }


def control_error(request_id: str, error: str) -> dict[str, Any]:
    """An error `control_response` (the Agent SDK's ControlErrorResponse)."""
    return {"type": "control_response", "response": {"subtype": "error", "request_id": request_id, "error": error}}


def user_text(message: Any) -> str:
    """The prompt text of a `user` line's `message` (a string, or text blocks); InputLineError otherwise."""
    if not isinstance(message, dict) or message.get("role", "user") != "user":
        raise InputLineError('a user line needs "message": {"role": "user", "content": ...}')
    content = message.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = [block_text(block, number) for number, block in enumerate(content, 1)]
        text = "\n\n".join(parts)
    else:
        raise InputLineError('"content" must be a string or a list of text blocks')
    if not text.strip():
        raise InputLineError("the user message has no text")
    return text


def block_text(block: Any, number: int) -> str:
    """The text of content block `number` of a user line; InputLineError saying what is wrong with it."""
    if not isinstance(block, dict):
        raise InputLineError(f'content block {number} is {_json_kind(block)}, not an object with a "type"')
    kind = block.get("type")
    if "type" not in block:
        raise InputLineError(
            f'content block {number} has no "type" (a text block is {{"type": "text", "text": "..."}})'
        )
    if not isinstance(kind, str):
        raise InputLineError(f'content block {number} has a "type" that is {_json_kind(kind)}, not a string')
    if kind != "text":
        raise InputLineError(
            f"content block {number} is of type {json.dumps(kind)}, which input does not take yet (only text blocks)"
        )
    if "text" not in block:
        raise InputLineError(f'content block {number} is a text block without a "text" string')
    if not isinstance(block["text"], str):
        raise InputLineError(
            f'content block {number} is a text block whose "text" is {_json_kind(block["text"])}, not a string'
        )
    return block["text"]


def _json_kind(value: Any) -> str:
    """What a JSON value is, in words: "a number (123)", "null", "a list"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({json.dumps(value)})"
    if isinstance(value, (int, float)):
        return f"a number ({json.dumps(value)})"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"
