"""Helpers for engine tests: a session pointed at a FakeAPI, with every event recorded."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tui.agent.events import Event
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.tools.base import Tool, ToolContext, ToolInterrupted, ToolResult


class Recorder:
    """Collects every event published on a bus, in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        with self.lock:
            self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def types(self) -> list[str]:
        return [e.type for e in self.events]


def make_session(
    monkeypatch: pytest.MonkeyPatch, base_url: str, project: Path, *, tools: list[Tool] | None = None, **opts: Any
) -> tuple[AgentSession, Recorder]:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    opts.setdefault("model", "claude-sonnet-5-5")
    opts.setdefault("retry_base_delay", 0.01)
    opts.setdefault("retry_max_delay", 0.05)
    options = AgentOptions(project_dir=project, **opts)
    session = AgentSession(options, tools=tools)
    recorder = Recorder()
    session.bus.subscribe(recorder, inline=True)
    return session, recorder


class SlowRead(Tool):
    """A read-only tool that takes `seconds`, to observe parallel overlap."""

    name = "SlowRead"
    description = "Reads slowly (test tool)."
    input_schema = {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}
    read_only = True

    def __init__(self, seconds: float = 0.3) -> None:
        self.seconds = seconds
        self.spans: list[tuple[float, float]] = []
        self.lock = threading.Lock()

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        start = time.monotonic()
        if ctx.cancel.wait(self.seconds):
            from tui.tools.base import ToolInterrupted

            raise ToolInterrupted()
        with self.lock:
            self.spans.append((start, time.monotonic()))
        return ToolResult(f"contents of {tool_input['file_path']}")


class Gate(Tool):
    """A read-only test tool that holds its batch until the test opens it: the user types meanwhile."""

    name = "Gate"
    description = "Waits (test tool)."
    input_schema = {"type": "object", "properties": {}}
    read_only = True

    def __init__(self) -> None:
        self.started = threading.Event()
        self.opened = threading.Event()

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.started.set()
        while not self.opened.wait(0.01):
            if ctx.cancel.is_set():
                raise ToolInterrupted()
        return ToolResult("the gate opened")


def with_gate(session: Any) -> Gate:
    """Give `session` (its default tools kept) the Gate tool."""
    gate = Gate()
    session.tools.append(gate)
    session.base_tools.append(gate)
    session.dispatcher.tools[gate.name] = gate
    return gate
