"""Loop events as Claude Code's metrics and events: the same names, attributes and units its documentation gives.

Metrics: claude_code.session.count, .token.usage (type input/output/cacheRead/cacheCreation), .cost.usage,
.lines_of_code.count, .commit.count, .pull_request.count, .code_edit_tool.decision, .active_time.total.
Events (log records whose body is the name): claude_code.user_prompt, .api_request, .api_error,
.tool_decision, .tool_result. Prompts and tool inputs stay out unless OTEL_LOG_USER_PROMPTS /
OTEL_LOG_TOOL_DETAILS say otherwise.
"""

from __future__ import annotations

import itertools
import json
import re
import uuid
from datetime import UTC, datetime
from typing import Any

from tui.agent import events as ev

from .attributes import REDACTED, StandardAttributes, language, tool_input_json, tool_parameters
from .config import TelemetryConfig

#: (name, unit, description) as Claude Code registers them
METRICS = (
    ("claude_code.session.count", "", "Count of CLI sessions started"),
    (
        "claude_code.lines_of_code.count",
        "",
        "Count of lines of code modified, with the 'type' attribute indicating "
        "whether lines were added or removed and the 'model' attribute indicating which model made the change",
    ),
    ("claude_code.pull_request.count", "", "Number of pull requests created"),
    ("claude_code.commit.count", "", "Number of git commits created"),
    ("claude_code.cost.usage", "USD", "Cost of the Claude Code session"),
    ("claude_code.token.usage", "tokens", "Number of tokens used"),
    (
        "claude_code.code_edit_tool.decision",
        "",
        "Count of code editing tool permission decisions (accept/reject) for Edit, Write, and NotebookEdit tools",
    ),
    ("claude_code.active_time.total", "s", "Total active time in seconds"),
)
EDIT_TOOLS = frozenset({"Edit", "Write", "NotebookEdit", "MultiEdit"})
TOKEN_TYPES = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cacheRead", "cache_read_input_tokens"),
    ("cacheCreation", "cache_creation_input_tokens"),
)
#: how agent-tui's permission scopes read as Claude Code's decision sources
SOURCES = {
    "once": "user_temporary",
    "session": "user_temporary",
    "always": "user_permanent",
    "rule": "config",
    "mode": "config",
    "hook": "hook",
    "interrupted": "user_abort",
}
COMMIT = re.compile(r"\bgit\s+commit\b")
PULL_REQUEST = re.compile(r"\bgh\s+pr\s+create\b|\bglab\s+mr\s+create\b")
MCP_PULL_REQUEST = re.compile(
    r"^create[_-]?(pull[_-]?request|merge[_-]?request)$|^(pull[_-]?request|merge[_-]?request)"
    r"[_-]?create$",
    re.IGNORECASE,
)
API_FAILURES = frozenset({"api_error", "stream_failed", "credentials"})


def decision_source(event: ev.PermissionResolved) -> str:
    """Claude Code's `source` for a permission decision: a user's no is `user_reject` whatever its scope."""
    if not event.allowed and event.scope in ("once", "session", "always"):
        return "user_reject"
    return SOURCES.get(event.scope, "config")


class Signals:
    """Counts and logs what the loop does; called on the telemetry thread, one event at a time, in order."""

    def __init__(
        self, config: TelemetryConfig, standard: StandardAttributes, meter: Any, logger: Any, session_id: Any
    ) -> None:
        self.config = config
        self.standard = standard
        self.logger = logger
        self.session_id = session_id  # a callable: /clear gives the session a new id
        self.counters = (
            {name: meter.create_counter(name, unit=unit, description=text) for name, unit, text in METRICS}
            if meter is not None
            else {}
        )
        self.sequence = itertools.count()
        self.prompt_id: str | None = None
        self.models: dict[str, str] = {}
        self.requests: dict[str, ev.RequestSent] = {}
        self.calls: dict[str, ev.ToolQueued] = {}
        self.decisions: dict[str, tuple[str, str]] = {}
        self.started: set[str] = set()
        self.asked: dict[str, float] = {}
        self.waited_s = 0.0  # this turn's time in permission dialogs: the user's, not the agent's

    # --- plumbing ------------------------------------------------------------------------

    def add(self, name: str, value: float, **attributes: Any) -> None:
        counter = self.counters.get(name)
        if counter is not None:
            counter.add(value, {**self.standard(self.session_id()), **attributes})

    def log(self, name: str, event: ev.Event, **attributes: Any) -> None:
        """One Claude Code event: body `claude_code.<name>`, its standard and correlation attributes first."""
        if self.logger is None:
            return
        stamp = datetime.fromtimestamp(event.ts, tz=UTC)
        values: dict[str, Any] = {
            **self.standard(self.session_id()),
            "event.name": name,
            "event.timestamp": stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "event.sequence": next(self.sequence),
        }
        if self.prompt_id:
            values["prompt.id"] = self.prompt_id
        values.update({k: v for k, v in attributes.items() if v is not None})
        self.logger.emit(
            timestamp=int(event.ts * 1e9),
            body=f"claude_code.{name}",
            attributes=values,
            event_name=f"claude_code.{name}",
        )

    def session_started(self) -> None:
        self.add("claude_code.session.count", 1)

    # --- events ----------------------------------------------------------------------------

    def handle(self, event: ev.Event) -> None:
        handler = getattr(self, "on_" + type(event).__name__, None)
        if handler is not None:
            handler(event)

    def on_TurnStarted(self, e: ev.TurnStarted) -> None:
        if e.loop_path != "main":
            return  # a subagent's prompt is the model's, not the user's
        self.prompt_id = str(uuid.uuid4())
        self.log(
            "user_prompt",
            e,
            prompt_length=str(len(e.prompt)),
            prompt=e.prompt if self.config.log_user_prompts else REDACTED,
        )

    def on_RequestSent(self, e: ev.RequestSent) -> None:
        self.models[e.loop_path] = e.model
        self.requests[e.loop_path] = e

    def on_ResponseFinished(self, e: ev.ResponseFinished) -> None:
        model = self.models.get(e.loop_path, "")
        sent = self.requests.pop(e.loop_path, None)
        usage = e.usage or {}
        self.add("claude_code.cost.usage", e.cost_usd, model=model)
        for kind, key in TOKEN_TYPES:
            self.add("claude_code.token.usage", int(usage.get(key) or 0), type=kind, model=model)
        self.log(
            "api_request",
            e,
            model=model,
            cost_usd=float(e.cost_usd),
            duration_ms=int(e.duration_ms),
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_read_tokens=int(usage.get("cache_read_input_tokens") or 0),
            cache_creation_tokens=int(usage.get("cache_creation_input_tokens") or 0),
            request_id=e.request_id,
            speed="normal",
            attempt=sent.attempt if sent else None,
        )

    def on_RetryScheduled(self, e: ev.RetryScheduled) -> None:
        sent = self.requests.pop(e.loop_path, None)
        self.api_error(e, e.reason, e.status, sent)

    def on_LoopStopped(self, e: ev.LoopStopped) -> None:
        sent = self.requests.pop(e.loop_path, None)
        if sent is not None and e.reason in API_FAILURES:
            self.api_error(e, e.detail, None, sent)

    def api_error(self, e: ev.Event, error: str, status: int | None, sent: ev.RequestSent | None) -> None:
        self.log(
            "api_error",
            e,
            model=self.models.get(e.loop_path, ""),
            error=error,
            status_code=str(status) if status else "undefined",
            duration_ms=int((e.ts - sent.ts) * 1000) if sent else 0,
            attempt=sent.attempt if sent else 1,
            speed="normal",
        )

    def on_ToolQueued(self, e: ev.ToolQueued) -> None:
        self.calls[e.tool_use_id] = e

    def on_PermissionRequested(self, e: ev.PermissionRequested) -> None:
        self.asked[e.tool_use_id] = e.ts

    def on_PermissionResolved(self, e: ev.PermissionResolved) -> None:
        asked = self.asked.pop(e.tool_use_id, None)
        if asked is not None:  # the user read and answered a dialog
            self.waited_s += max(0.0, e.ts - asked)
            self.add("claude_code.active_time.total", max(0.0, e.ts - asked), type="user")
        self.decide(e, e.tool_use_id, e.tool_name, "accept" if e.allowed else "reject", decision_source(e))

    def on_ToolStarted(self, e: ev.ToolStarted) -> None:
        self.started.add(e.tool_use_id)
        if e.tool_use_id not in self.decisions:  # allowed by a rule or the tool's kind without asking
            self.decide(e, e.tool_use_id, e.name, "accept", "config")

    def decide(self, e: ev.Event, tool_use_id: str, name: str, decision: str, source: str) -> None:
        self.decisions[tool_use_id] = (decision, source)
        call = self.calls.get(tool_use_id)
        tool_input = call.input if call else {}
        params = tool_parameters(name, tool_input) if self.config.log_tool_details else {}
        self.log(
            "tool_decision",
            e,
            decision=decision,
            source=source,
            tool_name=name,
            tool_use_id=tool_use_id,
            tool_parameters=json.dumps(params) if params else None,
        )
        if name in EDIT_TOOLS:
            path = str(tool_input.get("file_path") or tool_input.get("notebook_path") or "")
            self.add(
                "claude_code.code_edit_tool.decision",
                1,
                decision=decision,
                source=source,
                tool_name=name,
                language=language(path),
            )

    def on_LinesChanged(self, e: ev.LinesChanged) -> None:
        model = self.models.get(e.loop_path, "")
        self.add("claude_code.lines_of_code.count", e.added, type="added", model=model)
        self.add("claude_code.lines_of_code.count", e.removed, type="removed", model=model)

    def on_ToolFinished(self, e: ev.ToolFinished) -> None:
        call = self.calls.pop(e.tool_use_id, None)
        decision = self.decisions.pop(e.tool_use_id, None)
        self.asked.pop(e.tool_use_id, None)
        if e.tool_use_id not in self.started:
            if decision is None and e.status == "denied":  # a PreToolUse hook said no before any rule was asked
                self.decide(e, e.tool_use_id, e.name, "reject", "hook")
                self.decisions.pop(e.tool_use_id, None)
            return
        self.started.discard(e.tool_use_id)
        tool_input = call.input if call else {}
        ok = e.status == "done"
        if ok:
            self.count_git(e.name, tool_input)
        details = self.config.log_tool_details
        params = tool_parameters(e.name, tool_input, e.result_text) if details else {}
        self.log(
            "tool_result",
            e,
            tool_name=e.name,
            tool_use_id=e.tool_use_id,
            success="true" if ok else "false",
            duration_ms=str(e.duration_ms),
            error=e.result_text[:2000] if details and not ok else None,
            tool_parameters=json.dumps(params) if params else None,
            tool_input=tool_input_json(tool_input) if details else None,
            tool_input_size_bytes=str(len(json.dumps(tool_input, default=str).encode())),
            tool_result_size_bytes=str(len(e.result_text.encode("utf-8", "replace"))),
            decision_source=decision[1] if decision else None,
            decision_type=decision[0] if decision else None,
        )

    def count_git(self, name: str, tool_input: dict[str, Any]) -> None:
        """A commit or pull request the agent made (a command that succeeded, or an MCP create-PR tool)."""
        if name == "Bash":
            command = str(tool_input.get("command", ""))
            if COMMIT.search(command):
                self.add("claude_code.commit.count", 1)
            if PULL_REQUEST.search(command):
                self.add("claude_code.pull_request.count", 1)
        elif name.startswith("mcp__") and MCP_PULL_REQUEST.match(name.split("__")[-1]):
            self.add("claude_code.pull_request.count", 1)

    def on_TurnFinished(self, e: ev.TurnFinished) -> None:
        if e.loop_path == "main":  # the time the agent worked on the prompt
            self.add("claude_code.active_time.total", max(0.0, e.duration_ms / 1000 - self.waited_s), type="cli")
            self.waited_s = 0.0
