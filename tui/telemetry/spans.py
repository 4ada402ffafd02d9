"""Loop events as a trace: a span per turn, per model request and per tool call, subagents inside their Agent call.

Span names and attributes are Claude Code's (its beta tracing): `claude_code.interaction` for a prompt,
`claude_code.llm_request` for each request attempt, `claude_code.tool` for a tool call with
`claude_code.tool.blocked_on_user` (the permission dialog) and `claude_code.tool.execution` inside it.
A subagent's requests and tool calls are children of the `claude_code.tool` span of the Agent call that
started it. Times come from the events, so a span is as long as what it stands for, whenever it is handled.
"""

from __future__ import annotations

import json
import time
from typing import Any

from tui.agent import events as ev

from .attributes import REDACTED, StandardAttributes, truncated
from .config import TelemetryConfig
from .signals import API_FAILURES, decision_source


def ns(seconds: float) -> int:
    return int(seconds * 1e9)


class Spans:
    """Opens and closes spans as events arrive; called on the telemetry thread, in order."""

    def __init__(self, config: TelemetryConfig, standard: StandardAttributes, tracer: Any, session_id: Any) -> None:
        from opentelemetry import trace
        from opentelemetry.context import Context

        self.trace = trace
        self.root = Context()
        self.config = config
        self.standard = standard
        self.tracer = tracer
        self.session_id = session_id
        self.turn: Any = None
        self.turn_started = 0.0
        self.turn_count = 0
        self.parents: dict[str, Any] = {}  # loop path -> the span its requests and tools go under
        self.agent_ids: dict[str, str] = {}
        self.requests: dict[str, tuple[Any, float]] = {}
        self.tools: dict[str, tuple[Any, float]] = {}
        self.blocked: dict[str, Any] = {}
        self.running: dict[str, Any] = {}
        self.inputs: dict[str, dict[str, Any]] = {}

    def start(self, name: str, parent: Any, at: float, kind: str, **attributes: Any) -> Any:
        context = self.trace.set_span_in_context(parent, self.root) if parent is not None else self.root
        values = {
            **self.standard(self.session_id()),
            "span.type": kind,
            **{k: v for k, v in attributes.items() if v is not None},
        }
        return self.tracer.start_span(name, context=context, start_time=ns(at), attributes=values)

    def fail(self, span: Any, description: str) -> None:
        span.set_status(self.trace.Status(self.trace.StatusCode.ERROR, description))

    def agent(self, loop_path: str) -> dict[str, Any]:
        """`agent_id` / `parent_agent_id` of a subagent's spans (none on the main loop's)."""
        if loop_path == "main":
            return {}
        parent = loop_path.rsplit("/", 1)[0]
        return {"agent_id": self.agent_ids.get(loop_path), "parent_agent_id": self.agent_ids.get(parent)}

    def handle(self, event: ev.Event) -> None:
        handler = getattr(self, "on_" + type(event).__name__, None)
        if handler is not None:
            handler(event)

    # --- the turn ------------------------------------------------------------------------

    def on_TurnStarted(self, e: ev.TurnStarted) -> None:
        if e.loop_path != "main":
            return
        self.turn_count += 1
        prompt = e.prompt if self.config.log_user_prompts else REDACTED
        self.turn = self.start(
            "claude_code.interaction",
            None,
            e.ts,
            "interaction",
            user_prompt=prompt,
            user_prompt_length=len(e.prompt),
            **{"interaction.sequence": self.turn_count},
        )
        self.turn_started = e.ts
        self.parents["main"] = self.turn

    def on_TurnFinished(self, e: ev.TurnFinished) -> None:
        if e.loop_path != "main" or self.turn is None:
            return
        self.turn.set_attribute("interaction.duration_ms", int((e.ts - self.turn_started) * 1000))
        if e.is_error and e.stop_reason != "interrupted":
            self.fail(self.turn, e.stop_reason)
        self.turn.end(end_time=ns(e.ts))
        self.turn = None

    # --- requests ------------------------------------------------------------------------

    def on_RequestSent(self, e: ev.RequestSent) -> None:
        span = self.start(
            "claude_code.llm_request",
            self.parents.get(e.loop_path),
            e.ts,
            "llm_request",
            model=e.model,
            **{"gen_ai.system": "anthropic", "gen_ai.request.model": e.model, "gen_ai.request.attempt": e.attempt},
            attempt=e.attempt,
            query_source="main" if e.loop_path == "main" else "agent",
            **self.agent(e.loop_path),
        )
        self.requests[e.loop_path] = (span, e.ts)

    def on_ResponseStarted(self, e: ev.ResponseStarted) -> None:
        if (open_request := self.requests.get(e.loop_path)) is not None:
            open_request[0].set_attribute("ttft_ms", e.ttfb_ms)

    def on_ResponseFinished(self, e: ev.ResponseFinished) -> None:
        if (open_request := self.requests.pop(e.loop_path, None)) is None:
            return
        span, _ = open_request
        usage = e.usage or {}
        content = e.message.get("content") or ()
        span.set_attributes(
            {
                "input_tokens": int(usage.get("input_tokens") or 0),
                "output_tokens": int(usage.get("output_tokens") or 0),
                "cache_read_tokens": int(usage.get("cache_read_input_tokens") or 0),
                "cache_creation_tokens": int(usage.get("cache_creation_input_tokens") or 0),
                "duration_ms": int(e.duration_ms),
                "success": True,
                "stop_reason": e.stop_reason or "",
                "gen_ai.response.id": str(e.message.get("id") or ""),
                "gen_ai.response.finish_reasons": [e.stop_reason or ""],
                "response.has_tool_call": any(b.get("type") == "tool_use" for b in content),
                "request_id": e.request_id or "",
                "cost_usd": float(e.cost_usd),
            }
        )
        span.end(end_time=ns(e.ts))

    def on_RetryScheduled(self, e: ev.RetryScheduled) -> None:
        self.end_request(e.loop_path, e.ts, f"{e.reason} ({e.status})" if e.status else e.reason)

    def on_LoopStopped(self, e: ev.LoopStopped) -> None:
        failed = e.reason in API_FAILURES or e.reason == "interrupted"
        self.end_request(e.loop_path, e.ts, e.detail if failed else None)

    def end_request(self, loop_path: str, at: float, error: str | None) -> None:
        if (open_request := self.requests.pop(loop_path, None)) is None:
            return
        span, started = open_request
        span.set_attributes({"success": False, "duration_ms": int((at - started) * 1000)})
        if error:
            span.set_attribute("error", error)
            self.fail(span, error)
        span.end(end_time=ns(at))

    # --- tools ---------------------------------------------------------------------------

    def on_ToolQueued(self, e: ev.ToolQueued) -> None:
        span = self.start(
            "claude_code.tool",
            self.parents.get(e.loop_path),
            e.ts,
            "tool",
            tool_name=e.name,
            tool_use_id=e.tool_use_id,
            **{"gen_ai.tool.call.id": e.tool_use_id},
            **self.agent(e.loop_path),
        )
        if self.config.log_tool_content:
            span.set_attribute("tool_input", truncated(json.dumps(e.input, ensure_ascii=False, default=str)))
        self.tools[e.tool_use_id] = (span, e.ts)

    def on_PermissionRequested(self, e: ev.PermissionRequested) -> None:
        if (tool := self.tools.get(e.tool_use_id)) is not None:
            self.blocked[e.tool_use_id] = self.start(
                "claude_code.tool.blocked_on_user", tool[0], e.ts, "tool.blocked_on_user", tool_name=e.tool_name
            )

    def on_PermissionResolved(self, e: ev.PermissionResolved) -> None:
        decision = {"decision": "accept" if e.allowed else "reject", "source": decision_source(e)}
        if (span := self.blocked.pop(e.tool_use_id, None)) is not None:
            span.set_attributes(decision)
            span.end(end_time=ns(e.ts))
        if (tool := self.tools.get(e.tool_use_id)) is not None:
            tool[0].set_attributes(decision)

    def on_ToolStarted(self, e: ev.ToolStarted) -> None:
        if (tool := self.tools.get(e.tool_use_id)) is not None:
            self.running[e.tool_use_id] = self.start(
                "claude_code.tool.execution", tool[0], e.ts, "tool.execution", tool_name=e.name
            )

    def on_SubagentStarted(self, e: ev.SubagentStarted) -> None:
        if (tool := self.tools.get(e.tool_use_id)) is not None:
            self.parents[e.agent_path] = tool[0]
        self.agent_ids[e.agent_path] = e.agent_id

    def on_SubagentFinished(self, e: ev.SubagentFinished) -> None:
        self.parents.pop(e.agent_path, None)

    def on_ToolFinished(self, e: ev.ToolFinished) -> None:
        ok = e.status == "done"
        if (span := self.running.pop(e.tool_use_id, None)) is not None:
            span.set_attribute("success", ok)
            if self.config.log_tool_content:
                span.add_event("tool.output", {"output": truncated(e.result_text)}, timestamp=ns(e.ts))
            if not ok:
                self.fail(span, e.status)
            span.end(end_time=ns(e.ts))
        if (blocked := self.blocked.pop(e.tool_use_id, None)) is not None:
            blocked.end(end_time=ns(e.ts))
        if (tool := self.tools.pop(e.tool_use_id, None)) is not None:
            span, started = tool
            span.set_attributes({"duration_ms": int((e.ts - started) * 1000), "success": ok, "status": e.status})
            if not ok:
                self.fail(span, e.status)
            span.end(end_time=ns(e.ts))

    def close(self) -> None:
        """End whatever is still open (the app quit mid-turn): inner spans first, all as interrupted."""
        now = time.time()
        for span in [
            *self.running.values(),
            *self.blocked.values(),
            *(s for s, _ in self.tools.values()),
            *(s for s, _ in self.requests.values()),
        ]:
            self.fail(span, "interrupted")
            span.end(end_time=ns(now))
        for table in (self.running, self.blocked, self.tools, self.requests):
            table.clear()
        if self.turn is not None:
            self.turn.end(end_time=ns(now))
            self.turn = None
