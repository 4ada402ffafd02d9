"""Headless `-p` mode: run one turn and render the bus as text, json or stream-json.

A thin subscriber to the same events the app renders. Never imports Textual.
"""

from __future__ import annotations

import json
import re
import signal
import sys
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any, TextIO

from tui import __version__
from tui.agent.cost.report import cache_miss_line, cost_breakdown
from tui.agent.door import Session
from tui.agent.events import (
    BlockDelta,
    BlockFinished,
    BlockStarted,
    CacheMissed,
    CompactionFinished,
    Event,
    HookFinished,
    HookStarted,
    LinesChanged,
    LoopStopped,
    McpMessage,
    McpServerChanged,
    Notice,
    ResponseFinished,
    RetryScheduled,
    SubagentStarted,
    ToolOutput,
    ToolResultsSent,
    TurnFinished,
)
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.text.redact import redact
from tui.text.sanitize import visible

from .init_line import loaded_fields
from .verbose import VerboseLines

INTERRUPTED_BEFORE = "interrupted before the prompt was sent"
NORMAL_STOPS = {"end_turn", "stop_sequence", "max_tokens", "model_context_window_exceeded"}
_PARTIAL = (BlockStarted, BlockDelta, BlockFinished, ToolOutput)
#: MCP traffic and status are for the app (system/init lists the servers' status); line counts for telemetry
_QUIET = (McpMessage, McpServerChanged, LinesChanged)


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def exit_code(reason: str) -> int:
    if reason in NORMAL_STOPS:
        return 0
    if reason == "interrupted":
        return 130
    if reason == "credentials":  # a setting to fix, as a provider that cannot work at start
        return 2
    return 1


class HeadlessRenderer:
    """Turns loop events into output lines; keeps what the final result needs."""

    def __init__(
        self,
        session: Session,
        fmt: str,
        out: TextIO,
        err: TextIO,
        *,
        partial: bool = False,
        verbose: bool = False,
        hook_events: bool = False,
    ) -> None:
        self.session = session
        self.hook_events = hook_events
        self.fmt = fmt
        self.out = out
        self.err = err
        self.partial = partial
        self.started = time.monotonic()
        self.api_ms = 0
        self.stopped: LoopStopped | None = None
        self.finished: TurnFinished | None = None
        self.stream_lines: list[dict[str, Any]] = []
        self.verbose = VerboseLines(err) if verbose and fmt == "text" else None
        self.collect = verbose and fmt == "json"  # Claude Code's json --verbose: every message, one array
        #: loop path of each subagent -> the Agent tool_use id that started it (stream-json's parent_tool_use_id)
        self.parents: dict[str, str] = {}
        #: lines come from the bus's thread and, with stream-json input, from the input reader's
        self._write_lock = threading.Lock()
        self._denials_from = 0
        #: what came before the `system/init` line (events, input errors), done right after it (stdin is read from
        #: before it: an Agent SDK's MCP servers answer through it)
        self._held: list[Callable[[], None]] | None = []
        self._hold_lock = threading.Lock()

    def emit(self, obj: dict[str, Any]) -> None:
        if self.fmt == "stream-json":
            line = redact(json.dumps(obj, ensure_ascii=False, default=str)) + "\n"
            with self._write_lock:
                self.out.write(line)
                self.out.flush()
        elif self.collect:
            self.stream_lines.append(obj)

    def new_turn(self) -> None:
        """Start counting the next turn's result (several turns in one run: stream-json input)."""
        self.started = time.monotonic()
        self.api_ms = 0
        self.stopped = self.finished = None
        self._denials_from = len(self.session.denials)

    def init_line(self) -> None:
        """The first line of the run (after it, the events held meanwhile)."""
        with self._hold_lock:
            self._init_line()
            held, self._held = self._held or [], None
            for later in held:
                later()

    def init_again(self) -> None:
        """The `system`/`init` line again, before a later turn of a stream-json input run."""
        self._init_line()

    def after_init(self, obj: dict[str, Any]) -> None:
        """Emit `obj` now, or right after the `system/init` line when that is still to come."""
        with self._hold_lock:
            if self._held is not None:
                self._held.append(lambda: self.emit(obj))
                return
        self.emit(obj)

    def _init_line(self) -> None:
        s = self.session
        self.emit(
            {
                "type": "system",
                "subtype": "init",
                "session_id": s.session_id,
                "cwd": str(s.options.project_dir),
                "model": s.options.model,
                "offline": s.offline,
                "permission_mode": getattr(s.policy, "mode", s.options.permission_mode),
                "tools": [t.name for t in s.tools],
                "mcp_servers": s.mcp.statuses() if s.mcp is not None else [],
                "transcript": str(s.transcript_path) if s.transcript_path else None,
                # Claude Code's names for what an Agent SDK program reads here (no claude_code_version: not Claude Code)
                "permissionMode": getattr(s.policy, "mode", s.options.permission_mode),
                "slash_commands": sorted(s.catalog.commands) if getattr(s, "catalog", None) is not None else [],
                "output_style": "default",
                **loaded_fields(s),
                "agent_tui_version": __version__,
            }
        )

    def __call__(self, event: Event) -> None:
        with self._hold_lock:
            if self._held is not None:
                self._held.append(lambda: self.handle(event))
                return
        self.handle(event)

    def handle(self, event: Event) -> None:
        """Render one event."""
        if event.loop_path != "main":
            self.subagent_event(event)
            return
        if isinstance(event, SubagentStarted):
            self.parents[event.agent_path] = event.tool_use_id
        if isinstance(event, Notice):
            self.err.write(f"agent-tui: {visible(event.text)}\n")
        elif isinstance(event, RetryScheduled):
            status = f" ({event.status})" if event.status else ""
            self.err.write(
                visible(
                    f"agent-tui: {event.reason}{status}, retrying in {event.delay_s:.1f} s, "
                    f"attempt {event.attempt}/{event.max_attempts}\n"
                )
            )
        elif isinstance(event, ResponseFinished):
            self.api_ms += event.duration_ms
        elif isinstance(event, CompactionFinished) and not event.interrupted:  # the stop line says it
            self.err.write(f"agent-tui: context compaction: {visible(event.detail)}\n")
        elif isinstance(event, CacheMissed):
            self.err.write(f"agent-tui: {visible(cache_miss_line(event))}\n")
        elif isinstance(event, LoopStopped):
            self.stopped = event
        elif isinstance(event, TurnFinished):
            self.finished = event
        if self.verbose is not None:
            self.verbose(event)
        if self.fmt != "stream-json" and not self.collect:
            return
        if isinstance(event, _PARTIAL) and not self.partial:
            return
        if isinstance(event, (HookStarted, HookFinished)):  # only with --include-hook-events, as Claude Code
            if self.hook_events:
                from tui.hooks.stream import hook_line

                self.emit(hook_line(event, self.session.session_id))
            return
        if self.partial and self.fmt == "stream-json" and getattr(event, "iteration", 1) != 0:  # not a compaction's
            from .stream_events import stream_event_lines  # Claude Code's, for the Agent SDK's StreamEvent

            for line in stream_event_lines(event, self.session.options.model, self.session.session_id, None):
                self.emit(line)
        data = event.to_dict()
        data["type"] = snake(event.type)
        if data.get("images"):  # a prompt's pictures: what they are, not megabytes of base64 on every line
            data["images"] = [{k: v for k, v in image.items() if k != "block"} for image in data["images"]]
        self.emit(data)
        if isinstance(event, ResponseFinished) and event.iteration:  # iteration 0: a compaction's summary, no reply
            self.emit(
                {
                    "type": "assistant",
                    "message": self.wire_message(event),
                    "stop_reason": event.stop_reason,
                    "parent_tool_use_id": None,
                    "session_id": self.session.session_id,
                }
            )
        elif isinstance(event, ToolResultsSent):
            self.emit(
                {
                    "type": "user",
                    "message": event.message,
                    "parent_tool_use_id": None,
                    "session_id": self.session.session_id,
                }
            )

    def subagent_event(self, event: Event) -> None:
        """A subagent's event: its messages (and notices) only, each line naming the Agent call it serves."""
        if isinstance(event, SubagentStarted):
            self.parents[event.agent_path] = event.tool_use_id
        if isinstance(event, Notice):
            self.err.write(f"agent-tui: {visible(event.text)}\n")
        if self.fmt != "stream-json" and not self.collect:
            return
        parent = self.parents.get(event.loop_path)
        if isinstance(event, ResponseFinished) and event.iteration:
            self.emit(
                {
                    "type": "assistant",
                    "message": self.wire_message(event),
                    "stop_reason": event.stop_reason,
                    "parent_tool_use_id": parent,
                    "session_id": self.session.session_id,
                }
            )
        elif isinstance(event, ToolResultsSent):
            self.emit(
                {
                    "type": "user",
                    "message": event.message,
                    "parent_tool_use_id": parent,
                    "session_id": self.session.session_id,
                }
            )

    def wire_message(self, event: ResponseFinished) -> dict[str, Any]:
        """The assistant message as Claude Code prints it: with its id, model, stop reason and usage."""
        start = next((data.get("message") for _, kind, data in event.raw_events if kind == "message_start"), None)
        start = start if isinstance(start, dict) else {}
        return {
            "id": start.get("id"),
            "type": "message",
            **event.message,
            "model": start.get("model") or self.session.options.model,
            "stop_reason": event.stop_reason,
            "usage": event.usage,
        }

    def result(self) -> dict[str, Any]:
        stop = self.stopped
        fin = self.finished
        reason = stop.reason if stop else "error"
        is_error = exit_code(reason) != 0
        usage: dict[str, Any] = dict(fin.usage) if fin else {}
        turn = fin.turn_id if fin else self.session.turn_count
        breakdown = cost_breakdown([e for e in self.session.costs.snapshot() if e.turn == turn])
        if searches := usage.pop("web_search_requests", 0):  # where Claude Code reports them
            usage["server_tool_use"] = {"web_search_requests": searches}
        return {
            "type": "result",
            "subtype": "success" if not is_error else f"error_{reason}",
            "is_error": is_error,
            "stop_reason": reason,
            "api_stop_reason": stop.stop_reason if stop else None,
            "detail": stop.detail if stop else "",
            "num_turns": fin.num_iterations if fin else 0,
            "duration_ms": int((time.monotonic() - self.started) * 1000),
            "duration_api_ms": self.api_ms,
            "usage": usage,
            "total_cost_usd": breakdown["total_cost_usd"] if fin else 0.0,
            "cost_breakdown": breakdown,
            "result": self.session.turn_text(),  # this turn's answer only, never an earlier one
            "session_id": self.session.session_id,
            "permission_denials": self.session.denials[self._denials_from :],
            "offline": self.session.offline,
            **({"errors": [stop.detail]} if is_error and stop is not None and stop.detail else {}),  # Claude Code's
        }


def run_headless(
    options: AgentOptions,
    prompt: str,
    fmt: str = "text",
    *,
    partial: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
    session: Session | None = None,
    verbose: bool = False,
    hook_events: bool = False,
    input_stream: TextIO | None = None,
    permission_prompt: bool = False,
) -> int:
    """Run one turn without a UI (or, reading `input_stream` as stream-json, one per prompt); the exit code.

    With `input_stream` the Agent SDK's control protocol is served too (tui/headless/sdk_control), and
    `permission_prompt` (`--permission-prompt-tool stdio`) sends permission questions to its can_use_tool.
    """
    out = out or sys.stdout  # resolved per call: sys.stdout may have been replaced since import
    err = err or sys.stderr
    options.interactive = False
    options.front_end = "sdk" if input_stream is not None else "print"  # what the model is told and offered
    session = session or AgentSession(options)
    if session.offline and not options.offline:
        err.write("agent-tui: no ANTHROPIC_API_KEY set; using the offline demo model (--offline to silence).\n")
    renderer = HeadlessRenderer(session, fmt, out, err, partial=partial, verbose=verbose, hook_events=hook_events)
    session.bus.subscribe(renderer, name="headless", skip=_QUIET if partial else (*_PARTIAL, *_QUIET))
    control = None
    if input_stream is not None:  # read stdin from now on: an SDK's MCP servers answer through it
        control = start_input(session, renderer, input_stream, err, permission_prompt)
    if session.mcp is not None:  # -p waits for its servers before the first request (tui/mcp/runtime.py)
        session.mcp.start_for_print(err if fmt == "text" else None)
        session.sync_mcp("")
    renderer.init_line()

    interrupts = 0

    def on_sigint(signum: int, frame: Any) -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts > 1:
            raise KeyboardInterrupt
        session.cancel()  # the turn ends as "interrupted": its stop line is the one sentence printed

    from tui.agent.prompt.pipeline import PRINT  # `/command args`, `@file`: the one prompt pipeline

    for problem in session.catalog.problems:
        err.write(visible(f"agent-tui: {problem}\n"))
    if control is not None:
        return run_input_turns(session, renderer, control, err)
    previous = signal.signal(signal.SIGINT, on_sigint) if _main_thread() else None
    try:
        outcome = session.run_prompt(prompt, source=PRINT)  # an `@` mention -p may not attach: a Notice
        if outcome.refusal or outcome.cancelled:  # nothing was sent
            err.write(visible(f"agent-tui: {outcome.refusal or INTERRUPTED_BEFORE}\n"))
            return 1 if outcome.refusal else 130
        while session.hooks is not None and (woken := session.hooks.next_rewake()) is not None:
            session.run_turn(woken)  # an asyncRewake hook exited 2: the model goes on with its message
    except KeyboardInterrupt:
        err.write("agent-tui: quit\n")
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        session.bus.flush(5)
        session.close()
    result = renderer.result()
    if fmt == "stream-json":
        renderer.emit(result)
    elif fmt == "json":
        result["context"] = session.context_map()  # what /context shows
        whole = [*renderer.stream_lines, result] if renderer.collect else result
        out.write(redact(json.dumps(whole, ensure_ascii=False, default=str)) + "\n")
    else:
        text = result["result"]
        if text:
            out.write(visible(text.rstrip()) + "\n")  # text mode goes to a terminal: no raw escapes
    out.flush()
    return stop_line(result, err)


def stop_line(result: dict[str, Any], err: TextIO) -> int:
    """Say on stderr why a turn stopped when that was not a plain end; its exit code."""
    code = exit_code(result["stop_reason"])
    if code != 0:
        err.write(visible(f"agent-tui: stopped ({result['stop_reason']}): {result['detail']}\n"))
    elif result["stop_reason"] != "end_turn" and result["detail"]:
        err.write(visible(f"agent-tui: note: {result['detail']}\n"))
    return code


def start_input(
    session: Session, renderer: HeadlessRenderer, stream: TextIO, err: TextIO, permission_prompt: bool
) -> Any:
    """Start reading stream-json lines from `stream`, with the Agent SDK's control requests served; their handlers."""
    from tui.headless.sdk_control import attach

    from .stream_input import StreamJsonInput

    reader = StreamJsonInput(session.inbox, stream, renderer.emit, err)
    reader.report = renderer.after_init
    control = attach(session, reader, renderer.out, err, permission_prompt=permission_prompt)
    reader.start()
    return control


def run_input_turns(session: Session, renderer: HeadlessRenderer, control: Any, err: TextIO) -> int:
    """stream-json input: one turn per user line, each ending with its result line, until stdin ends.

    As Claude Code 2.1.332: lines written at once are turns of their own, each after a `system`/`init` line;
    a line that arrives while a turn runs is steered into its next request (tui/agent/loop/steer.py). The
    exit code is the last turn's.
    """
    from tui.agent.inbox import joined
    from tui.agent.prompt.pipeline import STREAM_JSON

    code: int | None = None
    in_turn = False
    control.turn_running = lambda: in_turn
    session.wake_with(lambda text: session.inbox.put(text, source="hook"))  # an asyncRewake message: the next turn

    def on_sigint(signum: int, frame: Any) -> None:
        if not in_turn:
            raise KeyboardInterrupt  # waiting for input: Ctrl+C quits
        session.cancel()  # the turn ends as "interrupted"; the next line still runs

    def turn_begins(turns: int) -> None:
        if turns:
            renderer.init_again()  # Claude Code starts each turn of a stream-json run with one
        renderer.new_turn()

    previous = signal.signal(signal.SIGINT, on_sigint) if _main_thread() else None
    try:
        turns = 0
        while (batch := session.inbox.wait_prompt(timeout=0.5)) is not None:
            if not batch:
                continue
            in_turn = True
            outcome = session.run_prompt(joined(batch), source=STREAM_JSON, before_turn=partial(turn_begins, turns))
            in_turn = False
            if outcome.refusal or outcome.cancelled:  # said, and no turn ran: no result line
                err.write(visible(f"agent-tui: {outcome.refusal or INTERRUPTED_BEFORE}\n"))
                code = 1 if outcome.refusal else 130
                continue
            turns += 1
            session.bus.flush(5)
            result = renderer.result()
            renderer.emit(result)
            code = stop_line(result, err)
    except KeyboardInterrupt:
        err.write("agent-tui: quit\n")
        return 130
    finally:
        control.finished.set()
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        session.bus.flush(5)
        session.close()
    if code is None and control.refused_prompts:
        return 1  # each refused message had its sentence and its error result
    if code is None:
        err.write(
            "agent-tui: stdin ended without a user message (--input-format stream-json reads one JSON "
            'object per line, e.g. {"type":"user","message":{"role":"user","content":"hi"}}).\n'
        )
        return 2
    return code


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()
