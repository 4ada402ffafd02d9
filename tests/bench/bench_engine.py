"""Engine benchmarks: client overhead per loop iteration (3), parallel tools (6), prompt-cache reads (9).

All run the real AgentSession in this process against the loopback FakeAPI with zero latency; the SDK is
imported and the client built before timing starts.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from tests.fakeapi import FakeAPI, reply, tool_use
from tui.agent.events import Event, RequestSent, ResponseFinished, ToolFinished, ToolResultsSent, ToolStarted
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.tools.base import Tool, ToolContext, ToolResult

from .common import Settings, median, row, scratch_project


class SleepTool(Tool):
    """A read-only, concurrency-safe tool that takes `seconds` (the benchmark's stand-in for a slow read)."""

    name = "Sleep"
    description = "Waits, then reports (benchmark tool)."
    input_schema = {"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]}
    read_only = True

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.cancel.wait(float(tool_input["seconds"]))
        return ToolResult(f"slept {tool_input['seconds']} s")


class Events:
    def __init__(self) -> None:
        self.items: list[Event] = []
        self.lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        with self.lock:
            self.items.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.items if isinstance(e, kind)]


def _session(api: FakeAPI, project: Path, tools: list[Tool] | None = None) -> tuple[AgentSession, Events]:
    os.environ["ANTHROPIC_BASE_URL"] = api.base_url
    os.environ["ANTHROPIC_API_KEY"] = "sk-test"
    options = AgentOptions(project_dir=project, permission_mode="acceptEdits", transcript=False)
    session = AgentSession(options, tools=tools)
    events = Events()
    session.bus.subscribe(events, inline=True)
    session.prepare()
    return session, events


def _run(session: AgentSession) -> None:
    session.run_turn("go")
    session.bus.flush(5)


def overhead(settings: Settings, project: Path) -> dict[str, Any]:
    """Time per iteration spent neither in the server nor in tools, over a 12-iteration turn."""
    iterations = 12
    per_iteration: list[float] = []
    for _ in range(settings.reps(3, 1)):
        # a different offset each time, so the no-progress guard sees distinct calls
        script = [
            reply(
                "Reading.",
                tool_use("Read", {"file_path": str(project / "b.py"), "offset": i % 5 + 1}),
                stop_reason="tool_use",
            )
            for i in range(iterations - 1)
        ] + [reply("Done.")]
        with FakeAPI(script) as api:
            session, events = _session(api, project)
            _run(session)
            session.close()
            sent = list(events.of(RequestSent))
            finished = events.of(ResponseFinished)
            tools = events.of(ToolFinished)
            records = api.message_requests
            for i in range(len(sent) - 1):
                server_s = (records[i].t_finished or records[i].t_received) - records[i].t_received
                tool_s = tools[i].duration_ms / 1000 if i < len(tools) else 0.0
                gap = sent[i + 1].ts - sent[i].ts
                per_iteration.append(max(gap - server_s - tool_s, 0.0) * 1000)
            # the last iteration: request to its response end, minus the server
            last = len(sent) - 1
            server_s = (records[last].t_finished or records[last].t_received) - records[last].t_received
            per_iteration.append(max(finished[last].ts - sent[last].ts - server_s, 0.0) * 1000)
    value = median(per_iteration)
    r = row(
        "client overhead per loop iteration (median)",
        value,
        None,
        "median ≤ 10 ms",
        unit="ms",
        met=value <= 10,
        note=f"{len(per_iteration)} iterations; Read tool; zero-latency server",
    )
    r["samples"] = [round(v, 2) for v in per_iteration]
    return r


def parallel_tools(settings: Settings, project: Path) -> dict[str, Any]:
    """Three concurrency-safe 1 s tools in one batch against one such tool."""

    def batch_seconds(count: int) -> float:
        script = [
            reply(*[tool_use("Sleep", {"seconds": 1.0}) for _ in range(count)], stop_reason="tool_use"),
            reply("Done."),
        ]
        with FakeAPI(script) as api:
            session, events = _session(api, project, tools=[SleepTool()])
            _run(session)
            session.close()
        started = events.of(ToolStarted)
        sent = events.of(ToolResultsSent)
        return sent[0].ts - min(e.ts for e in started)

    ones, threes = [], []
    for _ in range(settings.reps(3, 1)):
        ones.append(batch_seconds(1))
        threes.append(batch_seconds(3))
    one, three = median(ones), median(threes)
    return row(
        "three 1 s concurrency-safe tools (batch)",
        three,
        one,
        "≤ 1.15× one tool",
        unit="s",
        met=three <= 1.15 * one,
        baseline_label="one such tool, this run",
    )


def cache_reads(settings: Settings, project: Path) -> dict[str, Any]:
    """Share of input tokens read from cache on requests 2…10 of a 10-request session."""
    script = [
        reply(
            f"Step {i}.",
            tool_use("Read", {"file_path": str(project / "b.py"), "offset": i % 5 + 1}),
            stop_reason="tool_use",
        )
        for i in range(9)
    ] + [reply("Done.")]
    with FakeAPI(script, simulate_cache=True) as api:
        session, events = _session(api, project)
        _run(session)
        session.close()
    usages = [e.usage for e in events.of(ResponseFinished)][1:10]
    read = sum(u.get("cache_read_input_tokens", 0) or 0 for u in usages)
    total = sum(
        (u.get("input_tokens", 0) or 0)
        + (u.get("cache_read_input_tokens", 0) or 0)
        + (u.get("cache_creation_input_tokens", 0) or 0)
        for u in usages
    )
    share = 100.0 * read / total if total else 0.0
    r = row(
        "prompt-cache reads, requests 2…10",
        share,
        None,
        "≥ 90 %",
        unit="%",
        met=share >= 90,
        note=f"{read:,} of {total:,} input tokens read from cache; simulated cache rules",
    )
    r["samples"] = usages
    return r


def measure(settings: Settings) -> list[dict[str, Any]]:
    with scratch_project("bench-engine-") as project:
        return [overhead(settings, project), parallel_tools(settings, project), cache_reads(settings, project)]


if __name__ == "__main__":
    import json

    t = time.perf_counter()
    print(json.dumps(measure(Settings(quick=True)), indent=1, default=str)[:3000])
    print(time.perf_counter() - t)
