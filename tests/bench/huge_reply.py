"""Frame work while a 5 MB reply reaches the screen: one 5 MB text delta, and 5 MB in many deltas.

    python -m tests.bench.huge_reply [--mb 5] [--deltas 1 1000]

The app runs under Pilot at 120×40 with the scripted engine of the UI tests (events published on the
bus from a thread, as the loop thread does). A 5 ms interval timer on the UI loop measures how late
it fires: the lateness is the longest stretch of work the UI thread did without a break (a frame's
work, or anything else that blocks input), reported as max and p95 from the first delta until the
last word is on screen. Not part of `python -m tests.bench` (the README table is unchanged).
"""

from __future__ import annotations

import argparse
import asyncio
import threading
import time
from typing import Any

from tui.agent import events as ev

from .common import median, percentile

LAST = "ZENITHWORD"
TICK_S = 0.005


def huge_text(chars: int) -> str:
    """Markdown-ish prose in 60-word paragraphs with a code fence now and then, ending in LAST."""
    parts, i = [], 0
    while i * 7 < chars:
        parts.append(f"w{i % 997}")
        parts.append("\n\n```python\nx = 1\n```\n\n" if i % 600 == 599 else "\n\n" if i % 60 == 59 else " ")
        i += 1
    return "".join(parts)[: chars - len(LAST) - 1] + " " + LAST


def publish(session: Any, text: str, deltas: int) -> None:
    pub = session.bus.publish
    pub(ev.TurnStarted(turn_id=1, prompt="write 5 MB"))
    pub(ev.BlockStarted(iteration=1, index=0, block_type="text"))
    size = -(-len(text) // deltas)
    for i in range(0, len(text), size):
        pub(ev.BlockDelta(iteration=1, index=0, delta_type="text_delta", text=text[i : i + size]))
    pub(ev.BlockFinished(iteration=1, index=0, block={"type": "text", "text": text}))
    pub(
        ev.TurnFinished(
            turn_id=1,
            stop_reason="end_turn",
            is_error=False,
            num_iterations=1,
            duration_ms=10,
            usage={"output_tokens": len(text) // 4},
            cost_usd=0.0,
            session_usage={},
            session_cost_usd=0.0,
        )
    )


def on_screen(app: Any) -> bool:
    """Whether the last word is on screen (the conversation scrolled to the end shows it)."""
    from textual._compositor import LayoutUpdate  # Textual's full write, not the terminal model's diff

    update = app.screen._compositor.render_update(full=True)
    return LAST in "".join(LayoutUpdate.render_segments(update, app.console))


async def run_once(chars: int, deltas: int) -> dict[str, float]:
    from tests.ui.fake_engine import FakeSession
    from tui.agent.options import AgentOptions
    from tui.ui.app import AgentApp

    session = FakeSession(AgentOptions(offline=True, interactive=True, transcript=False), fixed_clock=True)
    app = AgentApp(session.options, session=session)
    text = huge_text(chars)
    late: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        # a short turn first: one-time costs (Markdown imports, CSS) are not what is measured
        publish(session, "A short **warm-up** reply.\n\n```python\nx = 1\n```\n", 3)
        while app.controller.busy or not app.conversation.query(".frozen"):
            await pilot.pause(0.02)
        loop = asyncio.get_running_loop()
        expected = [loop.time() + TICK_S]

        def tick() -> None:
            now = loop.time()
            late.append(max(0.0, now - expected[0]) * 1000)
            expected[0] = now + TICK_S
            handle[0] = loop.call_later(TICK_S, tick)

        handle = [loop.call_later(TICK_S, tick)]
        start = time.perf_counter()
        worker = threading.Thread(target=publish, args=(session, text, deltas))
        worker.start()
        while worker.is_alive() or app.controller.busy or not on_screen(app):
            await pilot.pause(0.02)
            if time.perf_counter() - start > 300:
                break
        elapsed = time.perf_counter() - start
        handle[0].cancel()
        worker.join()
        widgets = len(app.conversation.query("*"))
    return {
        "seconds": elapsed,
        "max_ms": max(late),
        "p95_ms": percentile(late, 95),
        "median_ms": median(late),
        "widgets": widgets,
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.huge_reply")
    parser.add_argument("--mb", type=float, default=5.0)
    parser.add_argument("--deltas", type=int, nargs="+", default=[1, 1000])
    args = parser.parse_args()
    chars = int(args.mb * 1_000_000)
    for deltas in args.deltas:
        r = asyncio.run(run_once(chars, deltas))
        print(
            f"{args.mb:g} MB in {deltas} delta(s): last word on screen after {r['seconds']:.2f} s; UI loop "
            f"stall max {r['max_ms']:.0f} ms, p95 {r['p95_ms']:.0f} ms, median {r['median_ms']:.1f} ms; "
            f"{r['widgets']} widgets in the conversation",
            flush=True,
        )


if __name__ == "__main__":
    main()
