"""App benchmarks driven with Textual's pilot: a 20,000-token reply to the screen (4), keystroke echo while
a reply streams (5), and a 500-turn session resumed into the app against a 5-turn one (7).

The app runs in this process with a real AgentSession against the loopback FakeAPI; the SDK is
imported before timing starts.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from textual import events

from tests.fakeapi import FakeAPI, reply

from .common import Settings, median, percentile, row, scratch_project, written_frame

#: 20,000 words; the fake streams two words per text_delta (10,000 deltas), so about 20,000 tokens
WORDS = 20_000
LAST = "ZENITHWORD"
#: give up waiting for the last token after this many seconds (the figure is then "> CAP_S")
CAP_S = 60.0


def long_text(words: int = WORDS) -> str:
    """Prose in paragraphs of 60 words (a reply is never one 20,000-word paragraph), ending in LAST."""
    parts = []
    for i in range(words - 1):
        parts.append(f"w{i % 997}")
        parts.append("\n\n" if i % 60 == 59 else " ")
    return "".join(parts) + LAST


def _make_app(api: FakeAPI, project: Path) -> Any:
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession
    from tui.ui.app import AgentApp

    os.environ["ANTHROPIC_BASE_URL"] = api.base_url
    os.environ["ANTHROPIC_API_KEY"] = "sk-test"
    options = AgentOptions(project_dir=project, interactive=True, transcript=False)
    session = AgentSession(options)
    session.prepare()
    return AgentApp(options, session=session)


async def _settle(app: Any, limit: float = 60.0) -> None:
    """Let the UI drain the turn's events before the app closes (it must not close mid-turn)."""
    app.session.wait(10)
    deadline = time.perf_counter() + limit
    while app.controller.busy and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)


def _reply_on_screen(app: Any) -> bool:
    """Whether the conversation shows the reply's last word (live Markdown or its frozen form)."""
    for widget in app.conversation.query(".assistant-text"):
        source = getattr(widget, "source", None)
        if source is None:
            content = getattr(widget, "content", None)  # a frozen reply: Static(rich Markdown)
            source = getattr(content, "markup", None) or str(content)
        if LAST in source:
            return True
    return False


async def _app_stream_seconds(api: FakeAPI, project: Path) -> float:
    app = _make_app(api, project)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        start = time.perf_counter()
        await app.submit_prompt("write a long reply")
        while not _reply_on_screen(app):
            await asyncio.sleep(0.002)
            if time.perf_counter() - start > CAP_S:
                app.session.cancel()
                await _settle(app)
                return float("inf")
        await pilot.pause()  # one more refresh: the frame that shows it
        elapsed = time.perf_counter() - start
        await _settle(app)
    return elapsed


def _sdk_stream_seconds(api: FakeAPI) -> float:
    from anthropic import Anthropic

    client = Anthropic(api_key="sk-test", base_url=api.base_url, max_retries=0)
    start = time.perf_counter()
    with client.messages.stream(
        model="claude-sonnet-5-5", max_tokens=32000, messages=[{"role": "user", "content": "write a long reply"}]
    ) as stream:
        for _ in stream:
            pass
    return time.perf_counter() - start


def long_reply(settings: Settings, project: Path) -> dict[str, Any]:
    text = long_text()
    apps, sdks = [], []
    for _ in range(settings.reps(3, 1)):
        with FakeAPI(lambda body: reply(text), validate=False) as api:
            sdks.append(_sdk_stream_seconds(api))
            apps.append(asyncio.run(_app_stream_seconds(api, project)))
    app_s, sdk_s = median(apps), median(sdks)
    capped = app_s == float("inf")
    note = "pilot, 120×40; 10,000 text_deltas in 60-word paragraphs"
    if capped:
        note += f"; last token NOT on screen after {CAP_S:.0f} s (figure is the cap)"
        app_s = CAP_S
    return row(
        "20,000-token reply at full speed: last token on screen",
        app_s,
        sdk_s,
        "≤ 1.25× SDK alone",
        unit="s",
        met=not capped and app_s <= 1.25 * sdk_s,
        baseline_label="SDK alone parsing the same stream, this run",
        note=note,
    )


async def _echo_run(api: FakeAPI, project: Path, keys: str, streaming: bool, queued: int = 0) -> list[float]:
    app = _make_app(api, project)
    out: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        if streaming:
            await app.submit_prompt("stream slowly")
            while app.status is not None and not app.conversation.query(".assistant-text"):
                await asyncio.sleep(0.01)
        for n in range(queued):  # typed while the reply streams: listed under the prompt, waiting for the turn
            await app.submit_prompt(f"queued message {n + 1}")
        assert len(app.session.inbox) == queued
        prompt = app.prompt_area
        prompt.focus()
        await pilot.pause()
        for ch in keys:
            before = prompt.text
            start = time.perf_counter()
            # the key goes through the app's message queue like a terminal key (pilot.press would also
            # wait for the whole app to go idle, which never happens while a reply streams)
            app.post_message(events.Key(ch, ch))
            while prompt.text == before:
                await asyncio.sleep(0.001)
                if time.perf_counter() - start > 10:
                    break
            out.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.02)
        app.session.inbox.take_all()  # else the queue would start the next turn after the cancel
        app.session.cancel()
        await _settle(app)
    return out


def keystroke_echo(settings: Settings, project: Path) -> dict[str, Any]:
    keys = "abcdefghijklmnopqrstuvwxyz0123456789"[: 36 if not settings.quick else 20]
    slow = long_text(4000)
    with FakeAPI(lambda body: reply(slow), validate=False, token_delay=0.01) as api:  # 100 deltas per second
        idle = asyncio.run(_echo_run(api, project, keys, streaming=False))
        busy = asyncio.run(_echo_run(api, project, keys, streaming=True))
    p95_busy, p95_idle = percentile(busy, 95), percentile(idle, 95)
    r = row(
        "keystroke echo p95 while a reply streams at 100 tokens/s",
        p95_busy,
        p95_idle,
        "p95 ≤ 50 ms",
        unit="ms",
        met=p95_busy <= 50,
        baseline_label="echo with nothing streaming, this run",
        note=f"{len(busy)} keys; median {median(busy):.1f} ms streaming, {median(idle):.1f} ms idle",
    )
    r["samples"] = {"streaming": [round(v, 2) for v in busy], "idle": [round(v, 2) for v in idle]}
    return r


def keystroke_echo_queued(settings: Settings, project: Path) -> dict[str, Any]:
    """Echo while a reply streams with two messages queued, against the same without a queue (issue 24)."""
    keys = "abcdefghijklmnopqrstuvwxyz0123456789"[: 36 if not settings.quick else 20]
    slow = long_text(4000)
    with FakeAPI(lambda body: reply(slow), validate=False, token_delay=0.01) as api:
        plain = asyncio.run(_echo_run(api, project, keys, streaming=True))
        queued = asyncio.run(_echo_run(api, project, keys, streaming=True, queued=2))
    p95_queued, p95_plain = percentile(queued, 95), percentile(plain, 95)
    r = row(
        "keystroke echo p95 while a reply streams and 2 messages are queued",
        p95_queued,
        p95_plain,
        "≤ 1.2× streaming without a queue",
        unit="ms",
        met=p95_queued <= 1.2 * p95_plain,
        baseline_label="echo while the same reply streams, nothing queued, this run",
        note=f"{len(queued)} keys; median {median(queued):.1f} ms queued, {median(plain):.1f} ms not",
    )
    r["samples"] = {"queued": [round(v, 2) for v in queued], "streaming": [round(v, 2) for v in plain]}
    return r


def synthetic_transcript(path: Path, turns: int) -> Path:
    """A saved session of `turns` turns: prompt, reply with a code block and a Read, its result, a closing reply."""
    import json

    lines = [{"type": "session", "session_id": path.stem, "model": "claude-sonnet-5-5"}]
    for t in range(turns):
        tid = f"toolu_{t:05d}"
        messages = [
            {"role": "user", "content": f"turn {t}: look at module {t % 37} and explain it"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Reading **mod{t % 37}.py** first.\n\n" + long_text(60)},
                    {"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": f"mod{t % 37}.py"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": tid,
                        "content": "\n".join(f"{i}\tline {i}" for i in range(40)),
                    }
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": (
                            f"Module {t % 37} does this:\n\n```python\ndef f{t}(x):\n    return x * {t}\n```\n\n"
                            + long_text(120)
                        ),
                    }
                ],
            },
        ]
        lines += [{"type": "message", "message": m} for m in messages]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class FrameRecorder:
    """Every frame the app hands to its driver, with the wall and UI-thread CPU clock when it was written.

    The headless driver writes nothing, so `App._display` is wrapped: each frame is turned into the
    terminal bytes a real driver would write (that cost is part of a frame), then stamped. A frame
    "shows" a page scroll when the turn that was at the top of the viewport has moved down by the page.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.writes = 0
        self.last_write = 0.0
        #: set by `expect`: (turn view, screen row it must reach), and where to record when it does
        self._target: tuple[Any, int] | None = None
        self.hit: tuple[float, float] | None = None
        inner = app._display

        def display(screen: Any, renderable: Any) -> None:
            inner(screen, renderable)
            if not written_frame(app, screen, renderable):
                return
            now, cpu = time.perf_counter(), time.thread_time()
            self.writes += 1
            self.last_write = now
            if self._target is not None and self.hit is None:
                view, row_y = self._target
                if view.is_attached and view.region.y == row_y:
                    self.hit = (now, cpu)

        app._display = display

    def expect(self, view: Any, row_y: int) -> None:
        self._target, self.hit = (view, row_y), None


def _top_view(conversation: Any) -> Any:
    """The turn view at the top row of the viewport."""
    top = conversation.region.y
    return next(v for v in conversation.mounted_views if v.region.bottom > top)


async def _quiet(app: Any, recorder: FrameRecorder, quiet_s: float = 0.06, limit_s: float = 10.0) -> float:
    """Wait until the app has nothing left to do (no layout, paint, mount or prefetch pending, no frame
    for `quiet_s`); returns the time of the last frame written."""
    screen, conversation = app.screen, app.conversation
    deadline = time.perf_counter() + limit_s
    while time.perf_counter() < deadline:
        await asyncio.sleep(0.005)
        busy = (
            screen._layout_required
            or screen._scroll_required
            or screen._repaint_required
            or screen._dirty_widgets
            or app._batch_count
            or conversation._prefetching
            or conversation._restoring
            or getattr(conversation, "_pending", None)
        )
        if not busy and time.perf_counter() - recorder.last_write >= quiet_s:
            break
    return recorder.last_write


async def _resume_run(project: Path, transcript: Path, pages: int) -> dict[str, Any]:
    """Resume `transcript` into the app: seconds to the first frame showing its last turn, then page up.

    Each page: the PageUp key goes into the app's queue like a terminal key; the frame time is from
    then until the frame that shows the page moved (see FrameRecorder), the CPU time is the UI thread's
    over the same span; the app is let go quiet before the next page (the work done after the frame,
    e.g. re-creating turns ahead of the viewport, is reported separately as "settle"). At the top of
    the history the view jumps back to the bottom (not timed), so every timed page really moves.
    """
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession
    from tui.ui.screens.resume_screen import resumed_app
    from tui.ui.widgets.blocks import UserPrompt

    start = time.perf_counter()
    options = AgentOptions(project_dir=project, offline=True, interactive=True, transcript=False)
    session = AgentSession(options)
    session.resume(transcript)
    app = resumed_app(options, None, session)
    last_prompt = next(
        m["content"] for m in reversed(session.messages) if m["role"] == "user" and isinstance(m["content"], str)
    )
    out: dict[str, Any] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        while not any(last_prompt in str(p.render()) for p in app.query(UserPrompt)):
            await asyncio.sleep(0.005)
        await pilot.pause()
        out["first_frame_s"] = time.perf_counter() - start
        conversation = app.conversation
        recorder = FrameRecorder(app)
        await _quiet(app, recorder)
        frames: list[float] = []
        cpus: list[float] = []
        settles: list[float] = []
        short = wraps = 0
        top_turns = [_top_view(conversation).record.number]
        while len(frames) < pages:
            if conversation.scroll_y <= 0 and conversation._first_mounted == 0:  # the first turn: back down
                wraps += 1
                conversation.jump_to_bottom()
                await _quiet(app, recorder)
                continue
            view = _top_view(conversation)
            page = conversation.scrollable_content_region.height - 1  # what PageUp scrolls
            moved = min(page, round(conversation.scroll_y)) if conversation._first_mounted == 0 else page
            recorder.expect(view, view.region.y + moved)
            t, cpu = time.perf_counter(), time.thread_time()
            app.post_message(events.Key("pageup", None))
            while recorder.hit is None and time.perf_counter() - t < 5:
                await asyncio.sleep(0.001)
            last = await _quiet(app, recorder)
            if recorder.hit is None:  # the page did not move as far as asked: time until it stopped moving
                short += 1
                frames.append((last - t) * 1000)
                cpus.append(float("nan"))
            else:
                frames.append((recorder.hit[0] - t) * 1000)
                cpus.append((recorder.hit[1] - cpu) * 1000)
            settles.append((last - t) * 1000)
            top_turns.append(_top_view(conversation).record.number)
        out["cpus"] = cpus
        cpus = [c for c in cpus if c == c]
        out.update(
            frame_p95_ms=percentile(frames, 95),
            frame_median_ms=median(frames),
            frame_max_ms=max(frames),
            cpu_p95_ms=percentile(cpus, 95),
            cpu_median_ms=median(cpus),
            settle_p95_ms=percentile(settles, 95),
            short_pages=short,
            wraps=wraps,
            top_turns=top_turns,
            frames=frames,
        )
        out["widgets"] = float(len(list(app.screen.walk_children(with_self=False))))
        out["mounted_turns"] = float(len(conversation.mounted_views))
        out["rss_mib"] = _rss_mib()
    return out


def _rss_in_own_process(project: Path, transcript: Path, pages: int) -> dict[str, float]:
    """`tests/bench/resume_rss.py` in a child: the RSS of a process that only resumed and paged `transcript`."""
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "tests.bench.resume_rss", str(project), str(transcript), str(pages)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).resolve().parents[2],
    )
    if done.returncode != 0:
        raise RuntimeError(f"the resume_rss child failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def long_session(settings: Settings, project: Path) -> list[dict[str, Any]]:
    root = Path(tempfile.mkdtemp(prefix="bench-resume-"))
    try:
        small = synthetic_transcript(root / "small.jsonl", 5)
        big = synthetic_transcript(root / "big.jsonl", 500)
        pages = 80 if settings.quick else 160
        asyncio.run(_resume_run(project, small, 1))  # warm-up: first-time imports are not the baseline's
        base = asyncio.run(_resume_run(project, small, pages))
        ours = asyncio.run(_resume_run(project, big, pages))
        # memory: each session in a process of its own (nothing this process loaded or kept before counts)
        base_rss, ours_rss = (_rss_in_own_process(project, path, pages) for path in (small, big))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    from tui.ui.widgets.conversation import MAX_MOUNTED_TURNS

    turns = ours["top_turns"]
    # honest only if the pages really went up through the history
    assert turns[-1] < turns[0] and ours["wraps"] == 0, f"paging did not go up the history: {turns[0]} -> {turns[-1]}"
    widgets_bounded = ours["mounted_turns"] <= MAX_MOUNTED_TURNS
    common = "pilot, 120×40; synthetic transcript, 4 messages a turn"
    frame_row = row(
        "500-turn session: frame time while scrolling up (p95 of page scrolls)",
        ours["frame_p95_ms"],
        base["frame_p95_ms"],
        "≤ 33 ms",
        unit="ms",
        met=ours["frame_p95_ms"] <= 33,
        baseline_label="5-turn session paged the same way, this run",
        note=(
            f"PageUp key posted → first frame written (driver output built) with the top turn moved one page; "
            f"{pages} pages from turn {turns[0]} up to turn {turns[-1]} ({turns[0] - turns[-1]} turns), "
            f"{ours['short_pages']} short pages; median {ours['frame_median_ms']:.1f} ms, max "
            f"{ours['frame_max_ms']:.1f} ms; UI-thread CPU to that frame p95 {ours['cpu_p95_ms']:.1f} ms "
            f"(5-turn {base['cpu_p95_ms']:.1f}), median {ours['cpu_median_ms']:.1f}; until idle (turns "
            f"re-created after the frame) p95 {ours['settle_p95_ms']:.0f} ms (5-turn {base['settle_p95_ms']:.0f})"
        ),
    )
    frame_row["samples"] = {"500": [round(v, 2) for v in ours["frames"]], "5": [round(v, 2) for v in base["frames"]]}
    return [
        row(
            "500-turn session: resume to first frame",
            ours["first_frame_s"],
            base["first_frame_s"],
            "≤ 1.5 s",
            unit="s",
            met=ours["first_frame_s"] <= 1.5,
            baseline_label="5-turn session, this run",
            note=f"{common}; AgentSession.resume + app start until the last turn is on screen",
        ),
        frame_row,
        row(
            "500-turn session: RSS after scrolling",
            ours_rss["rss_mib"],
            base_rss["rss_mib"],
            "≤ 150 MiB",
            unit="MiB",
            met=ours_rss["rss_mib"] <= 150,
            baseline_label="5-turn session, a process of its own, this run",
            note=f"resumed and paged up {pages} times in a process of its own (tests/bench/resume_rss.py); "
            f"in this benchmark's process after earlier runs: {ours['rss_mib']:.0f} MiB",
        ),
        row(
            "500-turn session: widgets mounted after scrolling",
            ours["widgets"],
            base["widgets"],
            "bounded",
            met=widgets_bounded,
            baseline_label="5-turn session",
            note=f"{ours['mounted_turns']:.0f} turn views mounted of 500 (cap {MAX_MOUNTED_TURNS})",
        ),
    ]


def measure(settings: Settings) -> list[dict[str, Any]]:
    with scratch_project("bench-app-") as project:
        return [
            keystroke_echo(settings, project),
            keystroke_echo_queued(settings, project),
            long_reply(settings, project),
            *long_session(settings, project),
        ]


if __name__ == "__main__":
    import json

    print(json.dumps(measure(Settings(quick=True)), indent=1)[:4000])
