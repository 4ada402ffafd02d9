"""The inspector's timeline (lanes, waiting/streaming, tool outcomes, permission gaps, SVG) and copy as curl/Python."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply
from tui.tools.base import ToolContext, ToolResult
from tui.tools.glob_tool import GlobTool
from tui.tools.grep import GrepTool
from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog
from tui.ui.widgets.inspector import Inspector
from tui.ui.widgets.inspector.request_code import as_curl, as_python

from .conftest import SIZE, type_prompt, wait_for_dialog, wait_until


def _overlapping_glob_and_grep(monkeypatch: pytest.MonkeyPatch) -> None:
    """Glob's run waits until Grep's has begun, so the two calls of one parallel batch overlap in time.

    Without it they overlap only when the scheduler lets them: on a loaded machine Glob (a few ms) ended before
    Grep's worker thread started, and the timeline rightly drew both in one lane ('main · tools 1').
    """
    grep_running = threading.Event()
    glob_run, grep_run = GlobTool.run, GrepTool.run

    def glob(self: GlobTool, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        grep_running.wait(timeout=10)  # run one after the other, they never meet: the lane assertion fails
        return glob_run(self, tool_input, ctx)

    def grep(self: GrepTool, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        grep_running.set()
        return grep_run(self, tool_input, ctx)

    monkeypatch.setattr(GlobTool, "run", glob)
    monkeypatch.setattr(GrepTool, "run", grep)


async def test_timeline_after_a_turn_with_parallel_tools_and_a_permission(
    offline_options, demo_project, monkeypatch
) -> None:
    _overlapping_glob_and_grep(monkeypatch)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "find the TODOs and fix one")
        await wait_for_dialog(pilot, PermissionDialog, timeout=30)
        await pilot.press("1")
        await wait_until(pilot, lambda: app.session.turn_count == 1 and not app.controller.busy, timeout=30)
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.inspector is not None)
        inspector = app.inspector
        inspector.show_view("timeline")
        await pilot.pause()
        bars = inspector.timeline.bars
        requests = [b for b in bars if b.call is not None]
        tools = [b for b in bars if b.tool_use_id is not None]
        assert len(requests) == len(inspector.model.calls) >= 3
        assert all(b.first_byte is not None and b.start <= b.first_byte <= b.end for b in requests)
        assert requests[-1].label.startswith("end_turn · ") and "cache" in requests[-1].label
        edit = next(b for b in tools if b.label == "Edit")
        assert edit.asked is not None and edit.asked < edit.start and edit.outcome == "done"
        lanes = inspector.timeline.lanes()
        assert lanes[0] == "main" and "main · tools 2" in lanes  # Glob and Grep ran side by side
        drawn = str(inspector.query_one("#inspector-timeline").render())
        assert "░" in drawn and "█" in drawn and "·" in drawn
        table = inspector.query_one("#inspector-bars")
        assert table.row_count == len(bars)
        table.focus()
        table.move_cursor(row=bars.index(requests[1]))
        await pilot.press("enter")
        await wait_until(pilot, lambda: inspector.current_view == "request" and inspector.selected.number == 2)

        svg = inspector.action_export_timeline()
        root = ET.parse(svg).getroot()
        assert root.tag.endswith("svg") and len(root.findall("{http://www.w3.org/2000/svg}rect")) > len(bars)
        script = inspector.action_copy_code("curl")
        assert "$ANTHROPIC_API_KEY" in script.read_text() and "sk-" not in script.read_text()


def test_copied_python_and_curl_send_the_same_request(tmp_path) -> None:
    body = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 100,
        "stream": True,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "it's \"quoted\" JSON\n'''"}]}],
    }
    with FakeAPI([reply("hello from python"), reply("hello from curl")]) as api:
        env = {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test", "PATH": "/usr/bin:/bin"}
        script = tmp_path / "call.py"
        import os

        os.environ["ANTHROPIC_BASE_URL"] = api.base_url
        try:
            script.write_text(as_python(body))
            curl = as_curl(body)
        finally:
            del os.environ["ANTHROPIC_BASE_URL"]
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "hello from python" in done.stdout and "end_turn" in done.stdout
        assert api.requests[0].body["messages"] == body["messages"]
        if shutil.which("curl"):
            done = subprocess.run(["bash", "-c", curl], env=env, capture_output=True, text=True, timeout=60)
            assert "hello from curl" in "".join(
                json.loads(line[6:]).get("delta", {}).get("text", "")
                for line in done.stdout.splitlines()
                if line.startswith("data: ")
            )
            assert api.requests[1].body["messages"] == body["messages"]
            assert api.requests[1].headers.get("x-api-key") == "sk-test"


def test_a_wait_shorter_than_a_cell_still_shows_and_a_request_without_one_does_not() -> None:
    """The wait before the first byte is drawn (░) even when it is shorter than one column of the timeline."""
    from tui.ui.widgets.inspector.timeline import Bar, TimelineModel, render

    model = TimelineModel()
    model.bars = [
        Bar("main", "request 1", 0.0, end=1.0, first_byte=0.001, call=1, outcome="end_turn"),
        Bar("main", "request 2", 1.0, end=2.0, first_byte=1.0, call=2, outcome="end_turn"),
    ]
    row = render(model, 41, now=2.0).plain.splitlines()[0][5:]
    assert row[0] == "░" and row[1] == "█"  # 1 ms of 2 s: less than a column, still one ░
    assert row[20] == "█" and "░" not in row[20:]  # request 2 streamed from its first moment


def test_a_long_day_of_tool_calls_keeps_the_timeline_index_small_and_numbers_requests_in_order() -> None:
    """Only running tools are indexed (a finished bar keeps its place in `bars`), so an event's cost stays flat."""
    from tui.agent import events as ev
    from tui.ui.widgets.inspector.timeline import TimelineModel

    model = TimelineModel(keep=2000)  # all 1,200 bars kept (the cap has its own test)
    for n in range(300):
        model.record(ev.RequestSent(iteration=1, attempt=1, model="m", body={}, ts=float(n)))
        for k in range(3):
            tid = f"t{n}-{k}"
            model.record(ev.ToolStarted(tool_use_id=tid, name="Read", batch=1, parallel=True, ts=n + 0.1))
        for k in range(3):
            tid = f"t{n}-{k}"
            model.record(
                ev.ToolFinished(
                    tool_use_id=tid,
                    name="Read",
                    status="done",
                    is_error=False,
                    result_text="ok",
                    duration_ms=1,
                    batch=1,
                    parallel=True,
                    ts=n + 0.2,
                )
            )
    assert len(model.bars) == 300 * 4
    assert len(model._tools) == 0  # finished bars are not indexed any more
    requests = [b for b in model.bars if b.call is not None]
    assert [b.call for b in requests] == list(range(1, 301)) and requests[-1].label == "request 300"
    # three calls at once take three lanes; the next batch reuses them
    assert {b.lane for b in model.bars if b.tool_use_id} == {"main · tools 1", "main · tools 2", "main · tools 3"}


class _InspectorHost(App[None]):
    """An app of one inspector panel."""

    def __init__(self, project_dir: Path) -> None:
        super().__init__()
        self.project_dir = project_dir

    def compose(self) -> ComposeResult:
        yield Inspector(project_dir=self.project_dir)


async def _timeline_shown(app: App[None], pilot: Any) -> tuple[Inspector, Any]:
    """The app's inspector switched to its Timeline tab, and the tab's bar list."""
    inspector = app.query_one(Inspector)
    inspector.show_view("timeline")
    await pilot.pause()
    return inspector, inspector.query_one("#inspector-bars")


def _tool_bar_events(model: object, n: int) -> None:
    from tui.agent import events as ev

    record = model.record  # type: ignore[attr-defined]
    record(ev.ToolStarted(tool_use_id=f"t{n}", name="Read", batch=1, parallel=False, ts=float(n)))
    record(
        ev.ToolFinished(
            tool_use_id=f"t{n}",
            name="Read",
            status="done",
            is_error=False,
            result_text=f"result {n} " + "x" * 3000,
            duration_ms=1,
            batch=1,
            parallel=False,
            ts=n + 0.5,
        )
    )


def test_the_timeline_keeps_the_newest_bars_with_stable_ids_and_says_how_many_left() -> None:
    """N+k bars: the newest N stay (each with up to 2,000 characters of its result), the k oldest leave, the kept
    bars keep their ids, and the drawing says how many older bars are only in the transcript."""
    from tui.ui.widgets.inspector.timeline import TimelineModel, render

    model = TimelineModel(keep=5)
    for n in range(5):
        _tool_bar_events(model, n)
    ids = {b.detail["result"][:8]: b.id for b in model.bars}
    for n in range(5, 8):
        _tool_bar_events(model, n)
    assert len(model.bars) == 5 and model.dropped == 3
    assert [b.detail["result"][:8] for b in model.bars] == [f"result {n}" for n in range(3, 8)]
    assert all(ids[b.detail["result"][:8]] == b.id for b in model.bars[:2])  # kept bars keep their id
    assert model.find(model.bars[2].id) is model.bars[2] and model.find(ids["result 0"]) is None
    assert model.origin == 0.0  # the table still counts from the session's first bar
    assert "3 older bars are not kept here" in render(model, 60, now=9.0).plain


async def test_the_bar_list_drops_the_oldest_rows_by_key_and_the_others_stay(tmp_path) -> None:
    """The Timeline tab's rows are keyed by bar id: when the oldest bars leave, their rows leave and every other
    row keeps its key and content; highlighting a row shows that bar."""
    from textual.widgets import DataTable

    from tui.ui.widgets.inspector.json_tree import JsonView
    from tui.ui.widgets.inspector.timeline import TimelineModel
    from tui.ui.widgets.inspector.timeline_view import refresh_tab, show_bar

    app = _InspectorHost(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        inspector = app.query_one(Inspector)
        inspector.timeline = TimelineModel(keep=4)
        inspector.show_view("timeline")
        for n in range(4):
            _tool_bar_events(inspector.timeline, n)
        refresh_tab(inspector)
        await pilot.pause()
        table: DataTable = inspector.query_one("#inspector-bars", DataTable)
        before = {key.value: [str(c) for c in table.get_row(key)] for key in table.rows}
        for n in range(4, 6):
            _tool_bar_events(inspector.timeline, n)
        refresh_tab(inspector)
        await pilot.pause()
        keys = [key.value for key in table.rows]
        assert keys == [str(b.id) for b in inspector.timeline.bars] and table.row_count == 4
        for key in keys[:2]:  # the rows of bars that stayed are untouched, times counted from the first bar
            assert [str(c) for c in table.get_row(key)] == before[key]
        assert [str(c) for c in table.get_row(keys[-1])][2] == "+5.00s"
        show_bar(inspector, keys[1])
        await pilot.pause()
        assert inspector.query_one("#inspector-bar-json", JsonView).value["result"].startswith("result 3")


async def test_a_burst_of_events_redraws_the_shown_timeline_once_after_the_first(tmp_path) -> None:
    """The panel's record() draws the first change at once and the rest of a burst in one redraw a moment later
    (TIMELINE_REFRESH_S): a turn of ten tools sends ~25 events in well under a second, and redrawing the lanes
    and the bar list for each was most of what the shown inspector allocated."""
    from tui.ui.widgets.inspector.panel import TIMELINE_REFRESH_S

    app = _InspectorHost(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        inspector, table = await _timeline_shown(app, pilot)
        _tool_bar_events(inspector, 0)  # through the panel, as the app feeds it
        assert table.row_count == 1  # the first change is drawn at once
        for n in range(1, 12):
            _tool_bar_events(inspector, n)
        assert table.row_count == 1  # the rest of the burst waits for one redraw
        await pilot.pause(TIMELINE_REFRESH_S + 0.05)
        await wait_until(pilot, lambda: table.row_count == 12)
        assert [key.value for key in table.rows] == [str(b.id) for b in inspector.timeline.bars]


async def test_a_burst_of_api_call_events_redraws_the_shown_timeline_once_after_the_first(tmp_path) -> None:
    """A call's own events (sent, started, finished, costed) change its request bar too: shown on the timeline,
    they join the same delayed redraw instead of redrawing the lanes and the bar list each (a turn's ~11)."""
    from tui.ui.widgets.inspector.panel import TIMELINE_REFRESH_S
    from tui.ui.widgets.inspector.sample import two_call_session

    app = _InspectorHost(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        inspector, table = await _timeline_shown(app, pilot)
        for event in two_call_session():
            inspector.record(event)
        assert table.row_count == 1  # the first request's bar, drawn at once; the rest waits for one redraw
        await pilot.pause(TIMELINE_REFRESH_S + 0.05)
        await wait_until(pilot, lambda: table.row_count == len(inspector.timeline.bars) == 2)
        assert inspector.selected is not None and inspector.selected.number == 2
