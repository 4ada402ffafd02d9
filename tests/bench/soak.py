"""A compressed long day in one app process, on the fake API: the driver of `bench_soak.py` and of the short soak
test (`tests/ui/test_soak.py`).

Every turn asks for tool calls (Read, Grep, Glob, Bash; now and then an Agent whose subagent reads a file),
then streams a short reply. A few Bash calls print a megabyte each (most of the day's tool output: streamed
to the screen, cut to 30,000 characters for the model); the rest print a line. Along the way the history is
compacted, the conversation is paged up and back, the inspector and its timeline are opened and closed twice, and
/rewind takes the conversation back twice: the first of each in the warm-up's last turns (`first_uses`).
"""

from __future__ import annotations

import asyncio
import gc
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakeapi import reply, tool_use

from .common import written_frame
from .memory_probe import malloc_trim, memory

PROMPT = "soak turn {n}: look around"
SUB_PROMPT = "soak subagent {n}"
SUMMARY_MARK = "Write a concise but complete summary"
#: requests the in-process fake API keeps (FakeAPI(keep_requests=...)): its parsed bodies, each the whole history,
#: are the harness's memory, not the app's; kept all day they were most of the RSS the soak reported
FAKE_API_KEEPS = 8
#: bytes a "big" Bash call prints (streamed to the screen; the model gets 30,000 characters of it)
BIG_OUTPUT = 1_000_000


@dataclass
class Plan:
    """How long the day is; the defaults are the benchmark's (the test uses about 100 turns)."""

    turns: int = 2000
    subagents: int = 200
    tool_calls: int = 20000
    output_bytes: int = 50_000_000
    compactions: int = 5
    rewinds: int = 2
    pages: bool = True
    inspector: bool = True

    def calls_per_turn(self) -> int:
        return max(1, self.tool_calls // self.turns)

    def big_every(self) -> int:
        """One big Bash call every this many turns (so that the big ones add up to `output_bytes`)."""
        big_calls = max(1, self.output_bytes // BIG_OUTPUT)
        return max(1, self.turns // big_calls)


def script(plan: Plan, project: Path) -> Any:
    """The fake API's answer to each request of the day."""
    files = sorted(p for p in project.iterdir() if p.is_file())
    agent_every = max(1, plan.turns // max(1, plan.subagents)) if plan.subagents else 0

    def answer(body: dict[str, Any]) -> Any:
        messages = body.get("messages") or []
        first = str(messages[0].get("content")) if messages else ""
        last = str(messages[-1].get("content")) if messages else ""
        if SUMMARY_MARK in last:
            return reply("## Summary\n\n- the soak went on; nothing to keep but this line.")
        sub = re.search(r"soak subagent (\d+)", first)
        if sub:
            if len(messages) == 1:
                return reply(
                    "Reading.", tool_use("Read", {"file_path": str(files[0]), "limit": 5}), stop_reason="tool_use"
                )
            return reply(f"subagent {sub.group(1)} done: the file has a header.")
        turn = re.search(r"soak turn (\d+)", last)
        if turn is None or not body.get("tools"):
            return reply(f"Turn done. {'words ' * 40}The end.")
        n = int(turn.group(1))
        calls = []
        count = plan.calls_per_turn()
        if agent_every and n % agent_every == 0 and n // agent_every < plan.subagents:
            calls.append(
                tool_use(
                    "Agent",
                    {"description": f"sub {n}", "prompt": SUB_PROMPT.format(n=n), "subagent_type": "general-purpose"},
                )
            )
        if n % plan.big_every() == 0:
            calls.append(tool_use("Bash", {"command": f"head -c {BIG_OUTPUT} /dev/zero | tr '\\0' 'x' | fold -w 100"}))
        while len(calls) < count:
            k = len(calls) + n
            kind = k % 4
            if kind == 0:
                calls.append(tool_use("Read", {"file_path": str(files[k % len(files)]), "limit": 8}))
            elif kind == 1:
                calls.append(tool_use("Grep", {"pattern": "def", "output_mode": "count"}))
            elif kind == 2:
                calls.append(tool_use("Glob", {"pattern": "*.py"}))
            else:
                calls.append(tool_use("Bash", {"command": f"echo soak {n} {k}"}))
        return reply(f"Turn {n}: looking with {len(calls)} tools.", *calls, stop_reason="tool_use")

    return answer


def process_counts() -> dict[str, int]:
    """Open descriptors, threads and live child processes of this process."""
    pid = os.getpid()
    children = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            children += 1
    return {
        "fds": len(os.listdir("/proc/self/fd")),
        "threads": len(os.listdir("/proc/self/task")),
        "children": children,
    }


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def folder_bytes(folder: Path) -> tuple[int, int]:
    """(transcript bytes, everything else: the checkpoint store and subagent transcripts' folders)."""
    transcripts = other = 0
    for path in folder.rglob("*"):
        if path.is_file():
            size = path.stat().st_size
            if path.suffix == ".jsonl" and path.parent == folder:
                transcripts += size
            else:
                other += size
    return transcripts, other


def warm_turn(plan: Plan) -> int:
    """The turn after which the warm-up figures are read: the last before the second compaction (before the only
    one with a single compaction; a tenth of the day without compactions).

    Two things decide it:
    - the phase of the compaction cycle. What the app holds follows the history since the last compaction, and the
      day ends `turns - compactions * every` turns after its last one (335 in the full day): read at the end of a
      cycle, the warm-up and the end come at the same point of it;
    - every kind of thing the day does has been done once (`first_uses`): a compaction, the inspector and its
      timeline opened and closed, a /rewind. Their first use loads code, parses CSS and fills Textual's bounded
      caches once, and Python's allocator keeps the peak it reached. Read before the first compaction (turn 333,
      the warm-up of earlier runs), those one-time costs counted as the day's growth. The day repeats each of them
      after warm-up, so what a repeat keeps still counts.
    """
    if not plan.compactions:
        return max(2, plan.turns // 10)
    return plan.turns // (plan.compactions + 1) * min(2, plan.compactions)


def first_uses(plan: Plan) -> tuple[set[int], dict[int, str]]:
    """(the turns after which /rewind runs, {turn: "open" or "close"} for the inspector and its timeline).

    The first rewind and the first opening come in the warm-up's last turns (`warm_turn`); the other rewinds are
    spread over the rest of the day, and the inspector is opened again in its last quarter.
    """
    warm, span = warm_turn(plan), max(2, plan.turns // 100)
    rest = plan.turns - warm
    rewinds = {warm - span} if plan.rewinds else set()
    rewinds |= {warm + rest * i // plan.rewinds + 7 for i in range(1, plan.rewinds)}
    inspector: dict[int, str] = {}
    if plan.inspector:
        for opened in (max(1, warm - 3 * span), warm + rest * 3 // 4):
            inspector[opened], inspector[opened + span] = "open", "close"
    return rewinds, inspector


@dataclass
class Report:
    turns: int = 0
    #: the turn after which rss_warm, memory["warm"] and warm (the counts) were read (warm_turn)
    warm_turn: int = 0
    frames: list[tuple[int, float]] = field(default_factory=list)  # (turn, UI-thread CPU ms before the frame)
    rss_warm: float = 0.0
    #: after the last turn and a gc.collect(), the app still running (taken as the warm-up figure is)
    rss_end: float = 0.0
    #: after the app and the session closed and its threads wound down (finish)
    rss_closed: float = 0.0
    #: (turn, RSS MiB) at every tenth of the day, each after a gc.collect(), the app running
    rss_curve: list[tuple[int, float]] = field(default_factory=list)
    #: memory_probe.memory() readings: "turn N" at each tenth, "warm", "end" (app running), "closed"; with
    #: trim_probe also "warm_trimmed" and "end_trimmed"
    memory: dict[str, dict[str, float]] = field(default_factory=dict)
    #: a throwaway experiment: malloc_trim(0) after each warm-up and end reading, read again (changes the day after)
    trim_probe: bool = False
    #: descriptors, threads, child processes: before the app was built, after warm-up, after it closed
    start: dict[str, int] = field(default_factory=dict)
    warm: dict[str, int] = field(default_factory=dict)
    end: dict[str, int] = field(default_factory=dict)
    storage: list[tuple[int, int, int]] = field(default_factory=list)  # (turn, transcript bytes, store bytes)
    widgets_max: int = 0
    compactions: int = 0
    rewinds: int = 0
    seconds: float = 0.0
    messages: list[dict[str, Any]] = field(default_factory=list)
    transcript: Path | None = None
    leftover_threads: list[str] = field(default_factory=list)


async def _until(predicate: Any, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the soak app did not get there in time")
        await asyncio.sleep(0.005)


def _read_memory(report: Report, stage: str) -> None:
    report.memory[stage] = memory()
    if report.trim_probe:
        malloc_trim()
        report.memory[stage + "_trimmed"] = memory()


async def run(plan: Plan, app: Any, sessions: Path, report: Report, probe: Any = None) -> Report:
    """Drive `app` (an AgentApp on a session against the fake API) through the day.

    `report.start` holds the process's counts from before the app was built; the app is closed at the end.
    `probe(stage, app)`, if given, is called after warm-up ("warm") and after the last turn ("end"), while the
    app still runs (soak_profile.py takes its snapshots there).
    """
    from textual import events

    from tui.agent.events import CompactionFinished
    from tui.ui.screens.rewind_screen import RewindScreen

    started = time.perf_counter()
    compacted = [0]
    app.session.bus.subscribe(
        lambda e: isinstance(e, CompactionFinished) and compacted.__setitem__(0, compacted[0] + 1),
        inline=True,
        name="soak",
    )
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        inner = app._display
        last = [time.thread_time()]
        turn_now = [0]

        def display(screen: Any, renderable: Any) -> None:
            inner(screen, renderable)
            if not written_frame(app, screen, renderable):
                return
            now = time.thread_time()
            report.frames.append((turn_now[0], (now - last[0]) * 1000))
            last[0] = now

        app._display = display
        # A terminal drew the app's first full frame, and the terminal model compares every frame after it with
        # what that one showed; headless, nothing rendered it, so until the first full update (the inspector's
        # opening, a rewind) frames were written without comparing rows: 1.2-1.4 ms of render a frame against
        # 3.6-4.2 ms after, and the first tenth was measured on a path the real app never takes.
        written_frame(app, app.screen, app.screen._compositor.render_full_update())
        session = app.session
        compact_every = plan.turns // (plan.compactions + 1) if plan.compactions else 0
        rewind_at, inspector_at = first_uses(plan)
        tenth = max(2, plan.turns // 10)
        report.warm_turn = warm = warm_turn(plan)
        # the curve also has the turn before the first compaction: the warm-up point of earlier runs
        also_read = {warm, plan.turns // (plan.compactions + 1)} if plan.compactions else {warm}
        for n in range(1, plan.turns + 1):
            turn_now[0] = n
            done = session.turn_count + 1
            await app.submit_prompt(PROMPT.format(n=n))
            await _until(
                lambda done=done: session.turn_count >= done and not session.running and not app.controller.busy
            )
            await pilot.pause()
            if (n % tenth == 0 or n in also_read) and n != plan.turns:
                gc.collect()
                report.rss_curve.append((n, round(rss_mib(), 1)))
                report.memory[f"turn {n}"] = memory()
            if n == warm:
                report.rss_warm = report.rss_curve[-1][1]
                _read_memory(report, "warm")
                report.warm = process_counts()
                if probe is not None:
                    probe("warm", app)
            if compact_every and n % compact_every == 0 and report.compactions < plan.compactions:
                before = compacted[0]
                await app.submit_prompt("/compact")
                await _until(
                    lambda before=before: compacted[0] > before and not session.running and not app.controller.busy
                )
                report.compactions += 1
            if plan.pages and n % 50 == 25:
                for _ in range(3):
                    app.post_message(events.Key("pageup", None))
                    await pilot.pause()
                app.post_message(events.Key("end", None))
                await pilot.pause()
            if inspector_at.get(n) == "open":
                await pilot.press("f2")
                await _until(lambda: app.inspector is not None)
                app.inspector.show_view("timeline")
                await pilot.pause()
            if inspector_at.get(n) == "close":
                await pilot.press("f2")
            if n in rewind_at:
                await app.submit_prompt("/rewind")
                await _until(lambda: isinstance(app.screen, RewindScreen))
                await pilot.press("enter")
                await _until(lambda: getattr(app.screen, "stage", "") == "choose")
                # the conversation only (the day's files are left as they are): 2 when files changed since, else 1
                await pilot.press("2" if app.screen.steps else "1")
                await _until(lambda: not isinstance(app.screen, RewindScreen))
                app.prompt_area.load_text("")
                report.rewinds += 1
            if n % max(1, plan.turns // 20) == 0 or n == plan.turns:
                report.widgets_max = max(report.widgets_max, len(list(app.screen.walk_children(with_self=False))))
                folder = Path(session.transcript.path).parent if session.transcript else sessions
                transcript_bytes, store_bytes = folder_bytes(folder)
                report.storage.append((n, transcript_bytes, store_bytes))
        report.turns = plan.turns
        gc.collect()
        report.rss_end = rss_mib()
        report.rss_curve.append((plan.turns, round(report.rss_end, 1)))
        _read_memory(report, "end")
        if probe is not None:
            probe("end", app)
        report.messages = list(session.messages)
        report.transcript = Path(session.transcript.path) if session.transcript else None
        app._display = inner
    app.session.close()
    report.seconds = time.perf_counter() - started
    return report


def finish(report: Report, wait_s: float = 12.0) -> Report:
    """After the app's event loop has ended: wait for threads to wind down, then take the end counts and the RSS
    after the close (`rss_closed`; the day's end figure, `rss_end`, was taken while the app ran).

    Idle AnyIO workers (the theme watcher's) exit 10 s after their last job; `wait_s` covers that.
    """
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and len(os.listdir("/proc/self/task")) > report.start.get("threads", 0):
        time.sleep(0.1)
    report.leftover_threads = sorted(t.name for t in threading.enumerate() if t is not threading.main_thread())
    gc.collect()
    report.rss_closed = rss_mib()
    report.memory["closed"] = memory()
    report.end = process_counts()
    return report
