"""Runs the tool_use blocks of one response and packs their results.

Consecutive concurrency-safe calls (read-only tools) form a batch that runs on a thread
pool; every other call runs alone, in order. Each call passes the permission gate first
(`dispatch_permission.py`). Events fire in completion order; the
results come back in tool_use order, one tool_result per tool_use, for the single
role:user message that answers the response.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, cast

from tui.agent.events import Event, ToolFinished, ToolOutput, ToolQueued, ToolStarted, ToolStatus
from tui.tools.base import FatalToolError, Tool, ToolContext, ToolError, ToolInterrupted, ToolResult

from .dispatch_permission import INTERRUPTED_TEXT, permit
from .permission_gate import PendingAsks
from .result_meta import publish_result_meta
from .schema import input_problem
from .tool_belt import append_text

MAX_WORKERS = 8


@dataclass
class Call:
    """One tool_use block on its way to a tool_result."""

    block: dict[str, Any]
    batch: int = 0
    parallel: bool = False
    label: str = ""
    warning: str | None = None
    result: ToolResult | None = None
    status: str = "queued"
    ran: bool = False
    hook_outcome: Any = None  # what PreToolUse hooks said (tui.hooks.outcome.HookOutcome)
    hook_blocks: list[dict[str, Any]] = field(default_factory=list)  # hook context, after the tool_results

    @property
    def id(self) -> str:
        return cast(str, self.block["id"])

    @property
    def name(self) -> str:
        return cast(str, self.block.get("name", ""))

    @property
    def input(self) -> Any:
        return self.block.get("input")


@dataclass
class DispatchOutcome:
    results: list[dict[str, Any]]
    interrupted: bool = False
    fatal: str | None = None
    denials: list[dict[str, Any]] = field(default_factory=list)


class Dispatcher:
    """Runs tool calls with permissions, batching and events; one per session."""

    def __init__(
        self,
        tools: dict[str, Tool],
        policy: Any,
        make_context: Callable[[str], ToolContext],
        publish: Callable[[Event], None],
        *,
        interactive: bool,
        parallel: bool,
    ) -> None:
        self.tools = tools
        self.policy = policy
        self.make_context = make_context
        self.publish = publish
        self.interactive = interactive
        self.parallel = parallel
        self.batch_counter = 0
        #: threads for a parallel batch (the Agent tool raises it to its parallel cap)
        self.max_workers = MAX_WORKERS
        self._pool: ThreadPoolExecutor | None = None
        self.hooks: Any = None  # the session's SessionHooks when its settings hold hooks
        #: the permission questions waiting for the user (an answer's new rule settles the others)
        self.pending = PendingAsks()
        #: called before a tool runs; what it returns is called after (checkpoints scan around Bash)
        self.watch_tool: Callable[[Tool], Callable[[], None] | None] | None = None
        #: sees each edit tool's call before and after it runs (language servers' diagnostics: lsp_link.py)
        self.edit_observer: Any = None
        #: (tool name, input, resolve) -> the `.claude/rules` reminders a file it read or edited brings in
        self.file_rules: Callable[[str, Any, Callable[[str], Any]], list[dict[str, Any]]] | None = None

    # --- batching --------------------------------------------------------------------

    def _safe(self, call: Call) -> bool:
        tool = self.tools.get(call.name)
        if tool is None or not isinstance(call.input, dict):
            return True  # answered at once with an error; harmless to group
        try:
            return bool(tool.is_concurrency_safe(call.input))
        except Exception:
            return False

    def group(self, blocks: list[dict[str, Any]]) -> list[list[Call]]:
        """Group calls: runs of concurrency-safe calls together, the rest alone."""
        batches: list[list[Call]] = []
        current: list[Call] = []
        for block in blocks:
            call = Call(block)
            if self.parallel and self._safe(call):
                current.append(call)
                continue
            if current:
                batches.append(current)
                current = []
            batches.append([call])
        if current:
            batches.append(current)
        return batches

    def parallel_count(self, blocks: list[dict[str, Any]]) -> int:
        """How many of these calls would run in parallel with another."""
        return sum(len(g) for g in self.group(blocks) if len(g) > 1)

    def plan(self, blocks: list[dict[str, Any]]) -> list[list[Call]]:
        """Group the calls and number the batches (numbers grow across the session)."""
        batches = self.group(blocks)
        for group in batches:
            self.batch_counter += 1
            for call in group:
                call.batch = self.batch_counter
                call.parallel = len(group) > 1
        return batches

    # --- running ---------------------------------------------------------------------

    def run(self, blocks: list[dict[str, Any]], cancel: threading.Event, warnings: dict[int, str]) -> DispatchOutcome:
        batches = self.plan(blocks)
        calls = [c for group in batches for c in group]
        for i, call in enumerate(calls):
            call.warning = warnings.get(i)
            call.label = self._label(call)
            self.publish(
                ToolQueued(
                    tool_use_id=call.id,
                    name=call.name,
                    input=call.input if isinstance(call.input, dict) else {"_raw": call.input},
                    label=call.label,
                    batch=call.batch,
                    parallel=call.parallel,
                )
            )
        outcome = DispatchOutcome(results=[])
        for group in batches:
            if cancel.is_set():
                break
            if len(group) == 1:
                self._run_one(group[0], cancel, outcome)
            else:
                pool = self._get_pool()
                futures = [pool.submit(self._run_one, call, cancel, outcome) for call in group]
                wait(futures)
            if outcome.fatal:
                break
        for call in calls:
            if call.result is None:
                call.result = ToolResult(
                    INTERRUPTED_TEXT if cancel.is_set() else "Not executed: an earlier tool call failed fatally.",
                    is_error=True,
                )
                call.status = "interrupted" if cancel.is_set() else "error"
                self._finish(call, 0.0)
        outcome.interrupted = cancel.is_set()
        outcome.results = [self._pack(call) for call in calls]
        outcome.results += [block for call in calls for block in call.hook_blocks]  # as Claude Code: after them all
        return outcome

    def _get_pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.max_workers, thread_name_prefix="tool")
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def _label(self, call: Call) -> str:
        tool = self.tools.get(call.name)
        if tool is None or not isinstance(call.input, dict):
            return call.name or "?"
        try:
            return tool.label(call.input, self.make_context(call.id))
        except Exception:
            return call.name

    def _run_one(self, call: Call, cancel: threading.Event, outcome: DispatchOutcome) -> None:
        started = time.monotonic()
        try:
            call.result, call.status = self._execute(call, cancel, outcome)
        except Exception as exc:  # a bug in a tool must not kill the loop
            call.result = ToolResult(f"{call.name} failed: {type(exc).__name__}: {exc}", is_error=True)
            call.status = "error"
        if self.hooks is not None and call.ran:  # PostToolUse / PostToolUseFailure
            self.hooks.after_tool(call, call.result, time.monotonic() - started)
        if call.result.fatal and not outcome.fatal:
            outcome.fatal = f"{call.name} failed and cannot be retried: {call.result.text()}"
        self._finish(call, time.monotonic() - started)

    def _execute(self, call: Call, cancel: threading.Event, outcome: DispatchOutcome) -> tuple[ToolResult, str]:
        tool = self.tools.get(call.name)
        if tool is None:
            names = ", ".join(self.tools)
            return ToolResult(
                f"Error: No such tool available: {call.name}. Available tools: {names}.", is_error=True
            ), "error"
        problem = input_problem(call.name, call.input, tool.call_schema())
        if problem:
            return ToolResult(problem, is_error=True), "error"
        ctx = self.make_context(call.id)
        ctx.cancel = cancel

        def emit_output(chunk: str, stream: str = "stdout") -> None:
            self.publish(ToolOutput(tool_use_id=call.id, chunk=chunk, stream=stream))

        ctx.emit_output = emit_output
        try:  # a call that cannot succeed fails now, before a hook or a permission question
            tool.check_input(call.input, ctx)
        except ToolError as exc:
            return ToolResult(str(exc), is_error=True), "error"
        if self.hooks is not None and (refusal := self.hooks.before_tool(call, tool.call_schema())) is not None:
            return ToolResult(refusal, is_error=True), "denied"  # PreToolUse denied it (exit 2 or JSON)
        allowed, message = permit(self, tool, call, ctx, cancel, outcome)
        if not allowed:
            status = "interrupted" if cancel.is_set() else "denied"
            return ToolResult(message, is_error=True), status
        if cancel.is_set():
            return ToolResult(INTERRUPTED_TEXT, is_error=True), "interrupted"
        self.publish(ToolStarted(tool_use_id=call.id, name=call.name, batch=call.batch, parallel=call.parallel))
        call.ran = True
        finished = self.watch_tool(tool) if self.watch_tool is not None else None
        observer = self.edit_observer if tool.kind == "edit" else None
        seen = observer.before(tool, call.input, ctx) if observer is not None else None
        try:
            result = tool.run(call.input, ctx)
        except ToolInterrupted:
            return ToolResult(INTERRUPTED_TEXT, is_error=True), "interrupted"
        except FatalToolError as exc:
            return ToolResult(str(exc), is_error=True, fatal=True), "error"
        except ToolError as exc:
            return ToolResult(str(exc), is_error=True), "error"
        finally:
            if finished is not None:
                finished()
        if observer is not None:
            result = observer.after(seen, result, call.id, ctx)
        publish_result_meta(self.publish, call.id, call.input, result)  # tools report through their result
        if call.warning:
            result = ToolResult(append_text(result.content, call.warning), result.is_error, result.fatal, result.meta)
        if self.file_rules is not None and not result.is_error:
            call.hook_blocks[:0] = self.file_rules(call.name, call.input, ctx.resolve)  # before its hooks' context
        return result, ("error" if result.is_error else "done")

    def _finish(self, call: Call, seconds: float) -> None:
        assert call.result is not None
        self.publish(
            ToolFinished(
                tool_use_id=call.id,
                name=call.name,
                status=cast(ToolStatus, call.status),
                is_error=call.result.is_error,
                result_text=call.result.text(),
                duration_ms=int(seconds * 1000),
                batch=call.batch,
                parallel=call.parallel,
            )
        )

    @staticmethod
    def _pack(call: Call) -> dict[str, Any]:
        assert call.result is not None
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id, "content": call.result.content}
        if call.result.is_error:
            block["is_error"] = True
        return block
