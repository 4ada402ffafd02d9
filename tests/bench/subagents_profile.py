"""Where the frames go while 8 subagents stream: the `ui_frames` scenario, its frames' UI-thread CPU split by part.

    python -m tests.bench.subagents_profile               # 8 subagents, 3 runs
    python -m tests.bench.subagents_profile --agents 1 --runs 2 --cprofile

The scenario is bench_subagents' row "8 subagents streaming: UI frame work p95": one turn in a 140×45 pilot,
the main agent calls 8 Agent tools at once, each subagent reads a file then streams a 400-word report. A frame's
CPU is counted as the benchmark counts it (UI-thread CPU between two frames written). For each frame: the engine
events handled in it (by kind, main or subagent), and its CPU split into event handling, mounts, styling,
layout, rendering lines afresh, the compositor's update and the terminal bytes. The slowest frames are listed one
by one; with `--cprofile`, the functions they spent their time in (cProfile on the UI thread, one profile per
frame, the frames at p90 and above merged). Not a benchmark: the wrappers (and cProfile more) add time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import os
import pstats
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tests.fakeapi import FakeAPI

from .bench_subagents import _streaming_script
from .common import median, percentile, scratch_project, written_frame
from .paging_profile import Parts, _timed


@dataclass
class Frame:
    """One frame written: its UI-thread CPU, the parts of it, the events handled in it."""

    cpu_ms: float
    parts: Parts
    events: Counter[str]
    profile: cProfile.Profile | None = None
    kind: str = ""


@dataclass
class Recorder:
    """What the wrappers add to while the frame being built is open."""

    parts: Parts = field(default_factory=dict)
    events: Counter[str] = field(default_factory=Counter)
    frames: list[Frame] = field(default_factory=list)
    #: milliseconds handling each kind of event, over every run
    event_ms: Counter[str] = field(default_factory=Counter)
    profile: cProfile.Profile | None = None


def _instrument(parts: Parts) -> None:
    from textual._compositor import Compositor
    from textual._styles_cache import StylesCache
    from textual.css.stylesheet import Stylesheet
    from textual.widget import Widget

    from tui.ui.widgets.conversation import Conversation

    _timed(Stylesheet, "update_nodes", "styles (update_nodes)", parts)
    _timed(Stylesheet, "apply", "styles (apply)", parts)
    _timed(Compositor, "reflow", "layout (full)", parts)
    _timed(Compositor, "reflow_visible", "layout (scroll)", parts)
    _timed(Compositor, "render_update", "compositor update", parts)
    _timed(StylesCache, "render_line", "lines rendered afresh", parts)
    _timed(Widget, "_compose", "compose", parts, coroutine=True)
    _timed(Conversation, "content_added", "content_added", parts)


def _watch_layouts(rec: Recorder) -> None:
    """Count which widgets asked the screen for a layout (by class), into the frame's events as `layout:<class>`."""
    from textual.screen import Screen

    inner = Screen._on_layout

    async def on_layout(screen: Any, message: Any) -> None:
        rec.events[f"layout:{type(message.widget).__name__}"] += 1
        await inner(screen, message)

    Screen._on_layout = on_layout  # type: ignore[method-assign]


def _watch_styles(rec: Recorder) -> None:
    """Count the nodes styled anew (by class), into the frame's events as `style:<class>`."""
    from textual.css.stylesheet import Stylesheet

    inner = Stylesheet.apply

    def apply(sheet: Any, node: Any, *args: Any, **kwargs: Any) -> Any:
        rec.events[f"style:{type(node).__name__}"] += 1
        return inner(sheet, node, *args, **kwargs)

    Stylesheet.apply = apply  # type: ignore[method-assign]


def _watch_gc(rec: Recorder) -> None:
    """Time the cyclic collections that run on this (the UI) thread, whoever's allocations set them off."""
    ui = threading.get_ident()
    started = [0.0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if threading.get_ident() != ui:
            return
        if phase == "start":
            started[0] = time.thread_time()
        else:
            name = f"gc (gen {info.get('generation')})"
            rec.parts[name] = rec.parts.get(name, 0.0) + (time.thread_time() - started[0]) * 1000

    gc.callbacks.append(callback)


def _watch_events(app: Any, rec: Recorder) -> None:
    """Count and time each engine event the controller handles, by kind and loop (main or sub)."""
    controller = app.controller
    inner = controller.handle

    async def handle(event: Any) -> None:
        start = time.thread_time()
        try:
            await inner(event)
        finally:
            where = "main" if event.loop_path == "main" else "sub"
            name = f"{type(event).__name__}/{where}"
            spent = (time.thread_time() - start) * 1000
            rec.events[name] += 1
            rec.event_ms[name] += spent
            rec.parts["events"] = rec.parts.get("events", 0.0) + spent

    controller.handle = handle


async def _run(agents: int, use_cprofile: bool, rec: Recorder) -> list[Frame]:
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession
    from tui.ui.app import AgentApp

    rec.frames = []
    with scratch_project("bench-subprof-") as project, FakeAPI(_streaming_script(agents), token_delay=0.002) as api:
        os.environ["ANTHROPIC_BASE_URL"] = api.base_url
        os.environ["ANTHROPIC_API_KEY"] = "sk-test"
        options = AgentOptions(project_dir=project, interactive=True, transcript=False)
        session = AgentSession(options)
        session.prepare()
        app = AgentApp(options, session=session)
        async with app.run_test(size=(140, 45)) as pilot:
            await pilot.pause()
            _watch_events(app, rec)
            inner = app._display
            last = [time.thread_time()]

            def display(screen: Any, renderable: Any) -> None:
                start = time.thread_time()
                inner(screen, renderable)
                if not written_frame(app, screen, renderable):
                    return
                now = time.thread_time()
                rec.parts["output"] = rec.parts.get("output", 0.0) + (now - start) * 1000
                if rec.profile is not None:
                    rec.profile.disable()
                frame = Frame((now - last[0]) * 1000, dict(rec.parts), rec.events.copy(), rec.profile)
                frame.kind = type(renderable).__name__
                rec.frames.append(frame)
                rec.parts.clear()
                rec.events.clear()
                if use_cprofile:
                    rec.profile = cProfile.Profile(time.thread_time)
                    rec.profile.enable()
                last[0] = time.thread_time()

            app._display = display
            rec.parts.clear()  # the start-up's work is not the first frame's
            rec.events.clear()
            last[0] = time.thread_time()
            if use_cprofile:
                rec.profile = cProfile.Profile(time.thread_time)
                rec.profile.enable()
            await app.submit_prompt("go")
            deadline = time.perf_counter() + 60
            while (app.controller.busy or session.running) and time.perf_counter() < deadline:
                await asyncio.sleep(0.01)
            await pilot.pause()
            if rec.profile is not None:
                rec.profile.disable()
    return rec.frames


def _report(runs: list[list[Frame]], event_ms: Counter[str], use_cprofile: bool, top: int) -> None:
    frames = [f for run in runs for f in run]
    cpu = [f.cpu_ms for f in frames]
    print(f"{len(runs)} runs, {len(frames)} frames ({median([len(r) for r in runs]):.0f} a run)")
    print(f"  frame CPU: median {median(cpu):.1f} ms, p90 {percentile(cpu, 90):.1f}, p95 {percentile(cpu, 95):.1f}")
    print(f"  per run p95: {', '.join(f'{percentile([f.cpu_ms for f in r], 95):.1f}' for r in runs)} ms")
    names = sorted({n for f in frames for n in f.parts}, key=lambda n: -sum(f.parts.get(n, 0.0) for f in frames))
    print("  parts (all frames):")
    for name in names:
        values = [f.parts.get(name, 0.0) for f in frames]
        print(
            f"    {name:24s} sum {sum(values):7.1f} ms  median {median(values):5.2f}  p95 {percentile(values, 95):5.2f}"
        )
    events: Counter[str] = Counter()
    for f in frames:
        events.update(f.events)
    print(f"  events handled: {dict(events.most_common())}")
    spent = ", ".join(f"{name} {ms:.1f} ({events[name]})" for name, ms in event_ms.most_common(12))
    print(f"  handling time by kind, ms (count), all runs: {spent}")
    print(f"  the {top} slowest frames (run, index): cpu = parts; events")
    ranked = sorted(((f.cpu_ms, r, i) for r, run in enumerate(runs) for i, f in enumerate(run)), reverse=True)
    for cpu_ms, r, i in ranked[:top]:
        f = runs[r][i]
        parts = ", ".join(f"{n} {v:.1f}" for n, v in sorted(f.parts.items(), key=lambda kv: -kv[1]) if v >= 0.1)
        print(f"    {cpu_ms:6.1f} ms  ({r},{i:2d}) {f.kind}: {parts}; {dict(f.events)}")
    if use_cprofile:
        cut = percentile(cpu, 90)
        slow = [f.profile for f in frames if f.cpu_ms >= cut and f.profile is not None]
        if slow:
            out = io.StringIO()
            stats = pstats.Stats(slow[0], stream=out)
            for p in slow[1:]:
                stats.add(p)
            stats.sort_stats("cumulative").print_stats(45)
            stats.sort_stats("tottime").print_stats(30)
            print(f"  cProfile of the {len(slow)} frames at p90 ({cut:.1f} ms) and above:")
            print(out.getvalue())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.subagents_profile", description=__doc__)
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--top", type=int, default=8, help="slowest frames listed one by one")
    parser.add_argument("--cprofile", action="store_true")
    args = parser.parse_args(argv)
    home = os.environ.get("HOME")
    rec = Recorder()
    _instrument(rec.parts)  # once: the wrappers sit on the classes
    _watch_gc(rec)
    _watch_layouts(rec)
    _watch_styles(rec)
    try:
        asyncio.run(_run(1, False, rec))  # warm-up, as the benchmark: imports, the Agent block's widgets
        rec.event_ms.clear()
        runs = [asyncio.run(_run(args.agents, args.cprofile, rec)) for _ in range(args.runs)]
    finally:
        if home is not None:
            os.environ["HOME"] = home
    _report(runs, rec.event_ms, args.cprofile, args.top)


if __name__ == "__main__":
    main()
