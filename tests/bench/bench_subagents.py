"""Subagent benchmarks: start overhead, 8 in parallel, memory per finished subagent.

All run the real AgentSession (and its Agent tool) in this process against the loopback FakeAPI; the SDK
is imported and the client built before timing starts. Each figure has a baseline from the same run.
"""

from __future__ import annotations

import gc
import os
import re
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from tests.fakeapi import FakeAPI, reply, tool_use
from tui.agent.events import RequestSent, ToolFinished, ToolStarted, TurnStarted
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession

from .bench_engine import Events
from .common import Settings, disable_nagle_in_fake_api, median, row, scratch_project, written_frame

PARALLEL = 8


def _first_prompt(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    return (
        content if isinstance(content, str) else " ".join(b.get("text", "") for b in content if b.get("type") == "text")
    )


def _agents(count: int, start: int = 0) -> Any:
    return reply(
        *[tool_use("Agent", {"description": f"job {i}", "prompt": f"job {i}"}) for i in range(start, start + count)],
        stop_reason="tool_use",
    )


def _script(delay_per_job: float = 0.0, base_delay: float = 0.0, calls: Any = None) -> Any:
    """Main: the given Agent calls, then done. A subagent `job N` answers after base + N × delay seconds."""

    def script(body: dict[str, Any]) -> Any:
        prompt = _first_prompt(body)
        match = re.fullmatch(r"job (\d+)", prompt)
        if match:
            time.sleep(base_delay + int(match.group(1)) * delay_per_job)
            return reply(f"{prompt} done")
        if prompt.startswith("read"):
            if len(body["messages"]) == 1:
                return reply(
                    *[tool_use("Read", {"file_path": "a.py", "offset": i + 1}) for i in range(20)],
                    stop_reason="tool_use",
                )
            return reply("read done")
        if len(body["messages"]) == 1:
            return calls(prompt)
        return reply("Done.")

    return script


def _session(api: FakeAPI, project: Path, sessions: Path, record: bool = True) -> tuple[AgentSession, Events | None]:
    os.environ["ANTHROPIC_BASE_URL"] = api.base_url
    os.environ["ANTHROPIC_API_KEY"] = "sk-test"
    session = AgentSession(AgentOptions(project_dir=project, sessions_dir=sessions))
    events = Events() if record else None
    if events is not None:
        session.bus.subscribe(events, inline=True)
    session.prepare()
    return session, events


def start_overhead(settings: Settings, project: Path, sessions: Path) -> dict[str, Any]:
    """Agent tool started -> the subagent's first request is sent, against the main loop's own start."""
    sub_ms, main_ms = [], []
    for _ in range(settings.reps(10, 3)):
        with FakeAPI(_script(calls=lambda prompt: _agents(1))) as api:
            session, events = _session(api, project, sessions)
            session.run_turn("go")
            session.close()
        assert events is not None
        agent_start = next(e for e in events.of(ToolStarted) if e.name == "Agent").ts
        sub_sent = next(e for e in events.of(RequestSent) if e.loop_path != "main").ts
        sub_ms.append((sub_sent - agent_start) * 1000)
        turn = events.of(TurnStarted)[0].ts
        main_ms.append((events.of(RequestSent)[0].ts - turn) * 1000)
    value, base = median(sub_ms), median(main_ms)
    r = row(
        "subagent start: Agent tool started → its first request sent (median)",
        value,
        base,
        "≤ 20 ms",
        unit="ms",
        met=value <= 20,
        baseline_label="the main loop's turn start → first request, this run",
        note=f"{len(sub_ms)} runs; transcript written; definitions read from disk",
    )
    r["samples"] = [round(v, 2) for v in sub_ms]
    return r


def parallel_agents(settings: Settings, project: Path, sessions: Path) -> dict[str, Any]:
    """8 subagents at once whose requests take 0.2 … 0.55 s, against the slowest one alone."""

    def wall(calls: Any) -> float:
        with FakeAPI(_script(delay_per_job=0.05, base_delay=0.2, calls=calls)) as api:
            session, events = _session(api, project, sessions)
            session.run_turn("go")
            session.close()
        assert events is not None
        agents = [e for e in events.of(ToolStarted) if e.name == "Agent"]
        done = [e for e in events.of(ToolFinished) if e.name == "Agent"]
        assert len(done) == len(agents) and not any(e.is_error for e in done)
        return max(e.ts for e in done) - min(e.ts for e in agents)

    alone, together = [], []
    for _ in range(settings.reps(3, 1)):
        alone.append(wall(lambda prompt: _agents(1, start=PARALLEL - 1)))
        together.append(wall(lambda prompt: _agents(PARALLEL)))
    one, eight = median(alone), median(together)
    return row(
        f"{PARALLEL} parallel subagents: all finished",
        eight,
        one,
        "≤ 1.10× the slowest alone",
        unit="s",
        met=eight <= 1.10 * one,
        baseline_label="the slowest subagent alone, this run",
        note="subagent requests take 0.20…0.55 s on the fake server",
    )


def memory_per_agent(settings: Settings, project: Path, sessions: Path) -> dict[str, Any]:
    """Memory still held after 20 subagents finished, per subagent, against 20 finished Read calls."""
    count = 20

    def held(prompt: str, calls: Any) -> float:
        with FakeAPI(_script(calls=calls)) as api:
            session, _ = _session(api, project, sessions, record=False)
            session.run_turn("warm up")  # imports, the definitions, the first pool threads
            gc.collect()
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            session.run_turn(prompt)
            session.bus.flush(5)
            gc.collect()
            after = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            session.close()
        return (after - before) / count / 1024

    def agents(prompt: str) -> Any:
        return (
            _agents(count)
            if prompt == "agents"
            else reply("warm", tool_use("Agent", {"description": "w", "prompt": "job 0"}), stop_reason="tool_use")
        )

    def reads(prompt: str) -> Any:
        return (
            reply(
                *[tool_use("Read", {"file_path": "a.py", "offset": i + 1}) for i in range(count)],
                stop_reason="tool_use",
            )
            if prompt == "reads"
            else reply("warm", tool_use("Read", {"file_path": "a.py"}), stop_reason="tool_use")
        )

    per_agent = median([held("agents", agents) for _ in range(settings.reps(2, 1))])
    per_read = median([held("reads", reads) for _ in range(settings.reps(2, 1))])
    return row(
        "memory held per finished subagent (tracemalloc)",
        per_agent,
        per_read,
        "≤ 2 MiB",
        unit="KiB",
        met=per_agent <= 2048,
        baseline_label="per finished Read call, this run",
        note=f"{count} subagents in one turn, each with its own transcript; their results stay in the history",
    )


def _streaming_script(count: int) -> Any:
    """Main: `count` Agent calls. Each subagent reads a file, then streams a 400-word report."""
    words = " ".join(f"word{i}" for i in range(400))

    def script(body: dict[str, Any]) -> Any:
        prompt = _first_prompt(body)
        if prompt.startswith("job"):
            if len(body["messages"]) == 1:
                return reply(f"{prompt}: reading.", tool_use("Read", {"file_path": "a.py"}), stop_reason="tool_use")
            return reply(f"{prompt} report: {words}")
        if len(body["messages"]) == 1:
            return _agents(count)
        return reply("Done.")

    return script


async def _frame_work(api: FakeAPI, project: Path) -> list[float]:
    """Milliseconds of UI-thread CPU per frame (handling events, layout, render, the terminal bytes) over the turn.

    Only frames a real driver writes count (as `bench_app.FrameRecorder`: not an empty update, not one
    inside a batch, not another screen's). The turn is awaited by polling: `session.wait()` here would
    block the UI's own loop (pilot and app share it) and leave the events to be handled after the turn.
    """
    import asyncio

    from tui.ui.app import AgentApp

    os.environ["ANTHROPIC_BASE_URL"] = api.base_url
    os.environ["ANTHROPIC_API_KEY"] = "sk-test"
    options = AgentOptions(project_dir=project, interactive=True, transcript=False)
    session = AgentSession(options)
    session.prepare()
    app = AgentApp(options, session=session)
    frames: list[float] = []
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        inner = app._display

        last = [time.thread_time()]

        def display(screen: Any, renderable: Any) -> None:
            inner(screen, renderable)
            if not written_frame(app, screen, renderable):
                return
            now = time.thread_time()  # UI-thread CPU since the last frame: events, layout, render, output
            frames.append((now - last[0]) * 1000)
            last[0] = now

        app._display = display
        await app.submit_prompt("go")
        deadline = time.perf_counter() + 60
        while (app.controller.busy or session.running) and time.perf_counter() < deadline:
            await asyncio.sleep(0.01)
        await pilot.pause()
    return frames


def ui_frames(settings: Settings, project: Path) -> dict[str, Any]:
    """Frame work p95 while 8 subagents stream at once, against one subagent streaming."""
    import asyncio

    from .common import percentile

    frame_counts: dict[int, list[int]] = {1: [], PARALLEL: []}

    def p95(count: int) -> float:
        with FakeAPI(_streaming_script(count), token_delay=0.002) as api:
            frames = asyncio.run(_frame_work(api, project))
        frame_counts[count].append(len(frames))
        return percentile(frames, 95)

    p95(1)  # warm-up: the first app run imports Markdown, the Agent block's widgets, ...
    frame_counts[1].clear()
    ones, eights = [], []
    for _ in range(settings.reps(3, 2)):
        ones.append(p95(1))
        eights.append(p95(PARALLEL))
    one, eight = median(ones), median(eights)
    return row(
        f"{PARALLEL} subagents streaming: UI frame work p95",
        eight,
        one,
        "≤ 16 ms",
        unit="ms",
        met=eight <= 16,
        baseline_label="one subagent streaming, this run",
        note=f"pilot 140×45; UI-thread CPU between frames written (events, layout, render, terminal "
        f"bytes), median of {len(eights)} runs; {median(frame_counts[PARALLEL]):.0f} frames a run "
        f"({median(frame_counts[1]):.0f} with one); each subagent reads a file, then streams 400 words",
    )


def measure(settings: Settings) -> list[dict[str, Any]]:
    disable_nagle_in_fake_api()
    with scratch_project("bench-subagents-") as project, tempfile.TemporaryDirectory() as sessions:
        home = os.environ.get("HOME")
        os.environ["HOME"] = sessions  # no user agent files or settings of the machine
        try:
            return [
                start_overhead(settings, project, Path(sessions)),
                parallel_agents(settings, project, Path(sessions)),
                memory_per_agent(settings, project, Path(sessions)),
                ui_frames(settings, project),
            ]
        finally:
            if home is not None:
                os.environ["HOME"] = home


if __name__ == "__main__":
    import json

    t = time.perf_counter()
    print(json.dumps(measure(Settings(quick=True)), indent=1, default=str)[:3000])
    print(time.perf_counter() - t)
