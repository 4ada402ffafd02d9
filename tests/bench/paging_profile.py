"""Where a page's time goes: the 500-turn paging benchmark's pages, with the UI thread's CPU split by part.

    python -m tests.bench.paging_profile                  # 500 turns, 60 pages
    python -m tests.bench.paging_profile --turns 5 --pages 4

For each PageUp (as bench_app times it: key posted → first frame written with the page moved), the CPU of the
frame split into the scroll reflow, rendering the update and writing it (the terminal model's bytes), and the
CPU of what follows until the app is quiet (turns re-created ahead of the view): their layouts, the mount,
Markdown rendering, drawing them off screen, the idle collection. Also how many updates were full (the whole
screen) and how many lines widgets rendered afresh in the frame. Not a benchmark: the wrappers add a little.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events

from .bench_app import FrameRecorder, _quiet, _top_view, synthetic_transcript
from .common import median, percentile

Parts = dict[str, float]


def _timed(owner: Any, name: str, part: str, parts: Parts, *, coroutine: bool = False) -> None:
    """Wrap `owner.name` so its UI-thread CPU adds up in `parts[part]` (nothing when it has no such method)."""
    inner: Callable[..., Any] | None = getattr(owner, name, None)
    if inner is None:
        return

    def add(start: float) -> None:
        parts[part] = parts.get(part, 0.0) + (time.thread_time() - start) * 1000

    if coroutine:

        async def wrapped_async(*args: Any, **kwargs: Any) -> Any:
            start = time.thread_time()
            try:
                return await inner(*args, **kwargs)
            finally:
                add(start)

        setattr(owner, name, wrapped_async)
        return

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            add(start)

    setattr(owner, name, wrapped)


def _instrument(parts: Parts) -> None:
    from textual._compositor import Compositor
    from textual._styles_cache import StylesCache

    from tui.ui import gc_tuning
    from tui.ui.widgets import blocks
    from tui.ui.widgets.conversation import Conversation

    _timed(Compositor, "reflow", "layout (full)", parts)
    _timed(Compositor, "reflow_visible", "layout (scroll)", parts)
    _timed(Compositor, "render_update", "render update", parts)
    _timed(StylesCache, "render_line", "lines rendered afresh", parts)
    _timed(blocks.FrozenMarkdown, "_render_lines", "Markdown", parts)
    _timed(Conversation, "restore_earlier", "re-create turns (mount)", parts, coroutine=True)
    _timed(Conversation, "_warm", "draw off screen", parts)
    _timed(gc_tuning, "collect_idle", "idle collection", parts)


async def _run(turns: int, pages: int) -> None:
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession
    from tui.ui.screens.resume_screen import resumed_app

    root = Path(tempfile.mkdtemp(prefix="bench-paging-"))
    try:
        project = root / "project"
        project.mkdir()
        options = AgentOptions(project_dir=project, offline=True, interactive=True, transcript=False)
        session = AgentSession(options)
        session.resume(synthetic_transcript(root / "session.jsonl", turns))
        app = resumed_app(options, None, session)
        parts: Parts = {}
        _instrument(parts)
        async with app.run_test(size=(120, 40)) as pilot:
            while getattr(app, "conversation", None) is None or not app.conversation.mounted_views:
                await asyncio.sleep(0.02)
            await asyncio.sleep(1.0)
            await pilot.pause()
            conversation = app.conversation
            recorder = FrameRecorder(app)
            kinds: Counter[str] = Counter()
            frame_parts: list[Parts] = []
            settle_parts: list[Parts] = []
            walls: list[float] = []
            paging = [False]  # a page's key is posted and its frame not written yet
            inner = app._display

            def display(screen: Any, renderable: Any) -> None:
                start = time.thread_time()
                inner(screen, renderable)  # the recorder builds the terminal bytes in here
                parts["write"] = parts.get("write", 0.0) + (time.thread_time() - start) * 1000
                if paging[0] and recorder.hit is not None:
                    paging[0] = False
                    kinds[type(renderable).__name__] += 1
                    frame_parts.append(dict(parts))
                    parts.clear()

            app._display = display
            await _quiet(app, recorder)
            for _ in range(pages):
                if conversation.scroll_y <= 0 and conversation._first_mounted == 0:
                    break
                view = _top_view(conversation)
                recorder.expect(view, view.region.y + conversation.scrollable_content_region.height - 1)
                parts.clear()
                paging[0] = True
                start, cpu = time.perf_counter(), time.thread_time()
                app.post_message(events.Key("pageup", None))
                while recorder.hit is None and time.perf_counter() - start < 5:
                    await asyncio.sleep(0.001)
                if recorder.hit is None:
                    break
                walls.append((recorder.hit[0] - start) * 1000)
                frame_parts[-1]["all"] = (recorder.hit[1] - cpu) * 1000
                after = time.thread_time()
                await _quiet(app, recorder)
                parts["all"] = (time.thread_time() - after) * 1000
                settle_parts.append(dict(parts))
        print(f"{turns} turns, {len(walls)} pages, 120×40")
        print(f"  frame wall: median {median(walls):.1f} ms, p95 {percentile(walls, 95):.1f} ms")
        print(f"  updates that showed a page: {dict(kinds)}")
        _table("frame (UI-thread CPU, key → frame written)", frame_parts)
        _table("after the frame (UI-thread CPU until quiet)", settle_parts)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _table(title: str, rows: list[Parts]) -> None:
    print(f"  {title}:")
    names = sorted({name for row in rows for name in row}, key=lambda n: -sum(r.get(n, 0.0) for r in rows))
    for name in names:
        values = [row.get(name, 0.0) for row in rows]
        print(f"    {name:26s} median {median(values):6.2f} ms   p95 {percentile(values, 95):6.2f} ms")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.paging_profile", description=__doc__)
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--pages", type=int, default=60)
    args = parser.parse_args(argv)
    asyncio.run(_run(args.turns, args.pages))


if __name__ == "__main__":
    main()
