"""Frame work with many subagents: bursts of events are spread over frames, redraws that keep a widget's
height lay nothing out, the busy styling restyles only the prompt row, the tool panel's rows are cheap."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from tui.agent import events as ev
from tui.ui import frame_budget
from tui.ui.app import AgentApp
from tui.ui.widgets.blocks import MarkerLine
from tui.ui.widgets.conversation_model import ToolRecord
from tui.ui.widgets.panel_lines import Rows
from tui.ui.widgets.steady import steady_update
from tui.ui.widgets.tool_panel import Batch, render_batch

from .conftest import SIZE, wait_until


async def test_bursts_are_spread_over_frames_and_small_redraws_lay_out_nothing(fake_session, monkeypatch) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query("#cancel"))
        # the busy styling: the prompt row shows the cancel button; the app (every widget) is not restyled
        row = app.query_one("#prompt-row")
        idle_border = row.styles.border_top
        restyled: list[str] = []
        update_nodes = app.stylesheet.update_nodes

        def recorded(nodes: Any, animate: bool = False) -> None:
            nodes = list(nodes)
            restyled.extend(type(node).__name__ for node in nodes)
            update_nodes(nodes, animate=animate)

        monkeypatch.setattr(app.stylesheet, "update_nodes", recorded)
        app.set_busy(True)
        await pilot.pause()
        assert row.has_class("-busy") and not app.has_class("-busy")
        assert app.query_one("#cancel").styles.display == "block"
        assert row.styles.border_top != idle_border  # the busy row's own rule
        assert "PromptArea" not in restyled, restyled  # the text area's styles do not depend on -busy
        app.set_busy(False)
        await pilot.pause()
        assert app.query_one("#cancel").styles.display == "none" and row.styles.border_top == idle_border
        monkeypatch.undo()

        # a burst: with no budget left after each event, each one gets its own frame, in publish order
        monkeypatch.setattr(frame_budget, "FRAME_BUDGET_S", 0.0)
        monkeypatch.setattr(frame_budget, "FALLBACK_S", 60.0)  # only the refresh drains (a loaded machine)
        shown: list[int] = []
        inner = app._display

        def display(screen: Any, renderable: Any) -> None:
            inner(screen, renderable)
            shown.append(len(app.query(MarkerLine)))

        app._display = display
        for n in range(3):
            fake_session.bus.publish(ev.Notice(level="info", text=f"note {n}"))
        await wait_until(pilot, lambda: len(app.query(MarkerLine)) == 3)
        app._display = inner
        assert 1 in shown and 2 in shown, shown  # frames were drawn between the events
        assert [str(m.render()) for m in app.query(MarkerLine)] == ["note 0", "note 1", "note 2"]

        # the tool panel's body: a redraw of the same height repaints it without a layout pass
        body = app.tool_panel._body
        body.update(Text("one\ntwo"))
        await wait_until(pilot, lambda: not body._layout_required and body.size.height == 2)
        body.update(Text("three\nfour"))
        assert not body._layout_required
        body.update(Text("three\nfour\nfive"))
        assert body._layout_required
        await wait_until(pilot, lambda: body.size.height == 3)

        # a Static updated in place (an Agent block's activity): a layout pass only when its height changes
        static = Static("a\nb")
        await app.conversation.mount(static)
        await wait_until(pilot, lambda: not static._layout_required and static.size.height == 2)
        steady_update(static, "c\nd")
        assert not static._layout_required
        for text in ("e\nf", "g\nh", "c\nd"):  # more redraws before any layout (a frame's worth of deltas)
            steady_update(static, text)
            assert not static._layout_required, text
        static.refresh()  # a repaint (a hover, a style change) empties Textual's measure, no layout takes it again
        steady_update(static, "i\nj")
        assert not static._layout_required
        steady_update(static, "c\nd\ne")
        assert static._layout_required
        await wait_until(pilot, lambda: static.size.height == 3)


def test_panel_rows_draw_as_the_table_grid_did() -> None:
    cells = [
        (
            Text("●", style="cyan"),
            Text("Agent general-purpose: job 0 with a long label"),
            Text("0.1 s"),
            Text("▕██████▏"),
        ),
        (Text("◐"), Text("Bash ls"), Text("approve?"), Text("▕······▏")),  # cut to the column, as Rich did
        ("", Text("  ↳ PreToolUse allow"), Text("12ms"), ""),
    ]
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(width=1)
    table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column(justify="right", width=7, no_wrap=True)
    table.add_column(width=8, no_wrap=True)
    rows = Rows((1, None, 7, 8), ("left", "left", "right", "left"))
    for row in cells:
        table.add_row(*row)
        rows.add_row(*row)
    for width in (30, 44, 70):
        console = Console(width=width, file=io.StringIO())
        table_lines, rows_lines = (
            ["".join(s.text for s in line) for line in console.render_lines(r, pad=True)] for r in (table, rows)
        )
        assert rows_lines == table_lines, (width, rows_lines)


def test_a_batch_heading_stays_on_one_line() -> None:
    tool = ToolRecord("t1", "Read", label="Read a.py", state="done", started_at=0.0, finished_at=0.05, duration_ms=50)
    batch = Batch((1, 1, "main/general-purpose-8"), False, [tool])
    console = Console(width=44, record=True, file=io.StringIO())
    console.print(render_batch(batch, 1.0))
    lines = console.export_text().splitlines()
    assert len(lines) == 2 and lines[0] == "batch 1 · general-purpose-8 · 1 tool · 0.1 s", lines
    batch = Batch((1, 1, "main/a-subagent-with-a-much-longer-name"), False, [tool])
    console = Console(width=44, record=True, file=io.StringIO())
    console.print(render_batch(batch, 1.0))
    lines = console.export_text().splitlines()
    assert len(lines) == 2 and lines[0] == "batch 1 · a-subage…ger-name · 1 tool · 0.1 s", lines


def test_a_nearly_due_young_collection_runs_on_the_publishing_thread(monkeypatch) -> None:
    """The app's bus subscriber collects the young generation ahead of the threshold, on the engine's thread."""
    import gc
    import threading
    from collections import deque

    from tui.ui import gc_tuning
    from tui.ui.engine_inbox import EngineInbox

    collected: list[tuple[int, str]] = []
    counts = [(0, 0, 0)]
    monkeypatch.setattr(gc_tuning, "_saved", (700, 10, 10))  # the app's thresholds are in place
    monkeypatch.setattr(gc, "get_threshold", lambda: gc_tuning.THRESHOLDS)
    monkeypatch.setattr(gc, "get_count", lambda: counts[0])
    monkeypatch.setattr(gc, "collect", lambda gen=2: collected.append((gen, threading.current_thread().name)) or 0)

    inbox = EngineInbox()
    inbox._inbox, inbox._inbox_lock = deque(), threading.Lock()
    inbox._wake_now, inbox._wake_later = True, False  # a drain is scheduled: the event is only queued
    inbox._delta_type, inbox._loop = ev.BlockDelta, None

    def publish(event: ev.Event) -> None:
        thread = threading.Thread(target=inbox._forward, args=(event,), name="engine")
        thread.start()
        thread.join()

    publish(ev.Notice(level="info", text="young generation far from due"))
    assert collected == []
    counts[0] = (gc_tuning.EARLY_YOUNG, 0, 0)
    publish(ev.Notice(level="info", text="nearly due"))
    counts[0] = (gc_tuning.EARLY_YOUNG, gc_tuning.THRESHOLDS[1], 0)
    publish(ev.Notice(level="info", text="the middle generation due too"))
    assert collected == [(0, "engine"), (1, "engine")]


def test_the_busy_rules_style_only_the_row_and_the_nodes_it_restyles() -> None:
    """`PromptRow.set_busy` restyles the row and BUSY_STYLED only: no other `-busy` rule may style the row's nodes."""
    import re
    from pathlib import Path

    from tui.ui import app as app_module
    from tui.ui.widgets.prompt import BUSY_STYLED

    css = "".join((Path(app_module.__file__).parent / name).read_text() for name in ("app.tcss", "app_later.tcss"))
    selectors = [s.strip() for block in re.findall(r"([^{}]*)\{", css) for s in block.split(",") if "-busy" in s]
    assert selectors and set(selectors) <= {"#prompt-row.-busy", f"#prompt-row.-busy {BUSY_STYLED}"}, selectors


def test_the_turns_collection_waits_for_the_screen_to_be_quiet(monkeypatch) -> None:
    """The end of a turn is drawn over several frames; its garbage is collected once a wait saw no new frame."""
    from types import SimpleNamespace

    timers: list[Any] = []
    app = SimpleNamespace(frames_drawn=0, set_timer=lambda delay, callback: timers.append(callback))
    ran: list[int] = []
    frame_budget.when_quiet(app, lambda: ran.append(app.frames_drawn))  # type: ignore[arg-type]
    for _ in range(3):  # frames keep coming (the turn's last markers, its summary): it waits again
        app.frames_drawn += 1
        timers.pop()()
        assert ran == [] and len(timers) == 1
    timers.pop()()  # a wait with no frame drawn
    assert ran == [3] and timers == []

    monkeypatch.setattr(frame_budget, "QUIET_LIMIT_S", 0.0)  # ...but not for ever (a new turn at once)
    frame_budget.when_quiet(app, lambda: ran.append(app.frames_drawn))  # type: ignore[arg-type]
    app.frames_drawn += 1
    timers.pop()()
    assert ran == [3, 4] and timers == []


async def test_a_reply_that_arrives_whole_in_one_batch_is_mounted_finished(fake_session) -> None:
    """No live Markdown is mounted and removed in one frame for a reply whose end came with its start."""
    from tui.ui.events import coalesce_deltas
    from tui.ui.widgets.blocks import FrozenMarkdown

    def reply(iteration: int, text: str, *, start: bool = True, end: bool = True) -> list[ev.Event]:
        events: list[ev.Event] = [ev.BlockStarted(iteration=iteration, index=0, block_type="text")] * start
        events += [ev.BlockDelta(iteration=iteration, index=0, delta_type="text_delta", text=w) for w in text.split()]
        return events + [ev.BlockFinished(iteration=iteration, index=0, block={"type": "text", "text": text})] * end

    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        controller = app.controller
        lives: list[str] = []
        inner = controller._live

        async def live(record: Any) -> Any:
            lives.append(record.text)
            return await inner(record)

        controller._live = live  # type: ignore[method-assign]
        frozen = lambda: [w.source for w in app.conversation.query(FrozenMarkdown)]  # noqa: E731
        await frame_budget.handle_within_budget(app, reply(1, "Done now."))
        assert lives == [] and frozen() == ["Done now."]
        # a reply whose end comes in a later batch streams into a live tail, as before
        await frame_budget.handle_within_budget(app, reply(2, "Streamed later.", end=False))
        assert lives == [""]
        await frame_budget.handle_within_budget(app, reply(2, "Streamed later.", start=False)[-1:])
        await wait_until(pilot, lambda: frozen() == ["Done now.", "Streamed later."])
        # a long one arriving whole is cut as the live tail's end cuts it (its head frozen, the rest in chunks)
        long = "\n\n".join(f"paragraph {i} " + "word " * 60 for i in range(40))
        await frame_budget.handle_within_budget(app, coalesce_deltas(reply(3, long)))
        await wait_until(pilot, lambda: len(lives) == 2, timeout=20)  # (the frame budget may defer the end)
        await wait_until(pilot, lambda: "".join(frozen()).count("paragraph") == 40, timeout=20)
