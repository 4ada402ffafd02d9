"""The inspector side panel: the session's API calls on top, the selected call's views below.

`record(event)` only updates the data model (and the call list when visible); a view is
built when it is both selected and on screen, so a hidden inspector costs nothing per
event and a 2 MB request is only turned into widgets one expanded node at a time.
"""

from __future__ import annotations

import os
import tempfile
import time
from itertools import takewhile
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Region
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, DataTable, Static, TabbedContent, TabPane

from tui.agent.events import Event
from tui.text.sanitize import one_line
from tui.text.wording import plural

from . import timeline_view, view_export
from .cost_view import cost_view
from .diff import diff_requests
from .json_tree import JsonView
from .lean_table import LeanTable
from .model import VIEWS, ApiCall, InspectorModel
from .timeline import TimelineModel
from .views import diff_text, fill_sse_table, response_summary

# narrow headers: with the cost column the list still fits half of a 140-column screen
_COLUMNS = (
    ("#", "num"),
    ("it", "iter"),
    ("time", "time"),
    ("stop", "stop"),
    ("in", "in"),
    ("out", "out"),
    ("cache", "cache"),
    ("USD", "cost"),
    ("dur", "dur"),
    ("loop", "loop"),
)
TITLE = "Inspector · API calls"
#: the timeline is redrawn at most this often while events arrive (seconds)
TIMELINE_REFRESH_S = 0.25


def _row(call: ApiCall) -> tuple[str, ...]:
    share = call.cache_hit_share
    return (
        str(call.number),
        f"{call.iteration}" + (f".{call.attempt}" if call.attempt > 1 else ""),
        time.strftime("%H:%M:%S", time.localtime(call.sent_at)),
        call.status,
        f"{call.input_tokens:,}" if call.finished else "",
        f"{call.output_tokens:,}" if call.finished else "",
        ("✗" if call.cache_miss else "") + (f"{share:.0%}" if share is not None else ""),
        f"{call.cost['total_usd']:.4f}" if call.cost is not None else "",
        f"{call.duration_ms / 1000:.1f}s" if call.duration_ms is not None else "",
        one_line(call.loop_path.partition("/")[2] or call.loop_path),
    )


def _position(calls: list[ApiCall], call: ApiCall | None) -> int | None:
    """Where `call` is in `calls` (by identity: comparing bodies would be slow), or None."""
    return next((i for i, c in enumerate(calls) if c is call), None)


def _max_tokens_note(body: dict[str, Any]) -> str:
    """` · max_tokens 128,000`: how long the reply may be (the model's output limit or the setting)."""
    value = body.get("max_tokens")
    return f" · max_tokens {value:,}" if isinstance(value, int) else ""


class Inspector(Widget):
    """Every API request and response of the session, as the API saw them."""

    DEFAULT_CSS = """
    Inspector { width: 1fr; height: 1fr; layout: vertical; }
    Inspector > #inspector-title { height: 1; padding: 0 1; background: $panel; color: $text; text-style: bold; }
    Inspector > #inspector-calls { height: auto; max-height: 10; }
    Inspector > #inspector-empty { padding: 1 2; color: $text-muted; }
    Inspector > #inspector-actions { height: 1; }
    Inspector > #inspector-actions > #inspector-selected { width: 1fr; padding: 0 1; color: $text-muted; }
    Inspector > #inspector-actions > Button { margin-left: 1; }
    Inspector > TabbedContent { height: 1fr; }
    Inspector TabPane { padding: 0; }
    Inspector #inspector-response-summary { height: auto; padding: 0 1; }
    Inspector #inspector-diff { padding: 0 1; }
    Inspector #inspector-cost { padding: 0 1; }
    Inspector.-empty > #inspector-calls, Inspector.-empty > #inspector-actions,
    Inspector.-empty > TabbedContent { display: none; }
    Inspector > #inspector-empty { display: none; }
    Inspector.-empty > #inspector-empty { display: block; }
    """

    BINDINGS = [
        Binding(
            "m",
            "mcp_messages",
            "MCP messages",
            id="inspector.mcp",
            tooltip="Every JSON-RPC message to and from the MCP servers, filterable by server",
        ),
        Binding("c", "copy_view", "Copy JSON", id="inspector.copy", tooltip="Copy the current view as JSON"),
        Binding("s", "save_view", "Save JSON", id="inspector.save", tooltip="Save the current view to a JSON file"),
        Binding("left_square_bracket", "step_call(-1)", "Prev call", id="inspector.previous_call", key_display="["),
        Binding("right_square_bracket", "step_call(1)", "Next call", id="inspector.next_call", key_display="]"),
        Binding(
            "l",
            "cycle_loop",
            "Loop filter",
            id="inspector.loop_filter",
            tooltip="Show the calls of one loop (main, then each subagent), then all again",
        ),
        Binding(
            "g",
            "export_timeline",
            "Timeline SVG",
            id="inspector.timeline_svg",
            tooltip="Export the timeline as an SVG file",
        ),
        Binding("u", "copy_code('curl')", "Copy as curl", id="inspector.copy_curl"),
        Binding("y", "copy_code('python')", "Copy as Python", id="inspector.copy_python"),
        Binding("e", "edit_resend", "Edit and resend", id="inspector.edit_resend"),
    ]

    def __init__(
        self, *, project_dir: Path | None = None, id: str | None = "inspector", classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.model = InspectorModel()
        self.export_dir = (
            project_dir / ".agent-tui" / "inspector"
            if project_dir is not None
            else Path(tempfile.gettempdir()) / f"agent-tui-inspector-{os.getuid()}"
        )
        self.selected: ApiCall | None = None
        self.timeline = TimelineModel()
        self._follow_latest = True
        self._row_versions: dict[int, int] = {}
        self._rendered: dict[str, tuple[int, int]] = {}
        self._titled_dropped = 0  # the older calls the title last counted
        #: the timeline's last redraw (time.monotonic()) and the redraw waiting to happen, if any
        self._timeline_drawn = 0.0
        self._timeline_timer: Timer | None = None
        #: show only the calls of this loop path (None: every loop's)
        self.loop_filter: str | None = None
        self.add_class("-empty")

    def compose(self) -> ComposeResult:
        yield Static(TITLE, id="inspector-title")
        yield Static("No API calls yet. Each request the agent sends appears here.", id="inspector-empty")
        table: DataTable[Any] = LeanTable(id="inspector-calls", cursor_type="row", zebra_stripes=True)
        for label, key in _COLUMNS:
            table.add_column(label, key=key)
        yield table
        with Horizontal(id="inspector-actions"):
            yield Static("", id="inspector-selected")
            yield Button("Copy JSON", id="inspector-copy", compact=True, tooltip="Copy this view as JSON (c)")
            yield Button("Save JSON", id="inspector-save", compact=True, tooltip="Save this view as JSON (s)")
        with TabbedContent(id="inspector-views", initial="request"):
            with TabPane("Request", id="request"):
                yield JsonView(id="inspector-request")
            with TabPane("Response", id="response"):
                yield Static("", id="inspector-response-summary")
                yield JsonView(id="inspector-response")
            with TabPane("SSE", id="sse"):
                yield LeanTable(id="inspector-sse", cursor_type="row")
            with TabPane("Diff", id="diff"):
                yield Static("", id="inspector-diff")
            with TabPane("Cost", id="cost"), VerticalScroll():
                yield Static("", id="inspector-cost")
            with TabPane("Timeline", id="timeline"):
                yield Static("", id="inspector-timeline")
                yield LeanTable(id="inspector-bars", cursor_type="row", zebra_stripes=True)
                yield JsonView(id="inspector-bar-json")

    # --- feeding ------------------------------------------------------------------

    def record(self, event: Event) -> None:
        """Take one engine event; unrelated events are ignored. Cheap when hidden."""
        visible = self._is_visible()
        timeline_shown = visible and self.current_view == "timeline"
        bar_changed = self.timeline.record(event)
        if bar_changed and timeline_shown:
            self.remove_class("-empty")
            self._timeline_changed()
        call = self.model.record(event)
        if call is None or not self._shows(call):
            return
        if self._follow_latest or self.selected is None:
            self.selected = self.visible_calls()[-1]
        if visible:
            self._sync_table()
            if not timeline_shown:
                self._render_view()
            elif not bar_changed:
                self._timeline_changed()  # a call's own event: drawn with the burst (a bar's is asked for above)

    def _timeline_changed(self) -> None:
        """Redraw the timeline now, or once TIMELINE_REFRESH_S after its last redraw if that was sooner.

        A turn of ten tools sends ~25 events in well under a second; redrawing the lanes and the bar list for each
        was most of what the inspector allocated while shown (its peak stays with Python's allocator all day).
        """
        if self._timeline_timer is not None:
            return  # a redraw is due soon: it will show this change too
        wait = self._timeline_drawn + TIMELINE_REFRESH_S - time.monotonic()
        if wait <= 0:
            self._redraw_timeline()
        else:
            self._timeline_timer = self.set_timer(wait, self._redraw_timeline)

    def _redraw_timeline(self) -> None:
        self._timeline_timer = None
        self._timeline_drawn = time.monotonic()
        if self.is_mounted and self._is_visible() and self.current_view == "timeline":
            timeline_view.refresh_tab(self)

    def adopt(self, model: InspectorModel | None, timeline: TimelineModel | None) -> None:
        """Take the calls and bars recorded before the panel existed (the app's backlog); None: none."""
        if model is not None and timeline is not None:
            self.model, self.timeline = model, timeline
            self.selected = model.calls[-1] if model.calls else None
            self._catch_up()

    def clear(self) -> None:
        """Forget every call (a new conversation)."""
        self.model.clear()
        self.selected = None
        self._follow_latest = True
        self._row_versions.clear()
        self._rendered.clear()
        if self.is_mounted:
            self.query_one("#inspector-calls", DataTable).clear()
        self.add_class("-empty")

    def select_call(self, number: int) -> None:
        """Show call `number` (1-based) in the views below the list."""
        call = self.model.get(number)
        if call is None:
            return  # no longer kept (the title says how many older calls are only in the transcript)
        self.selected = call
        self._follow_latest = self.selected is self.visible_calls()[-1]
        if self.is_mounted:  # also before its first frame: a highlight of the newest row still queued is then stale
            self._move_cursor(self.query_one("#inspector-calls", DataTable))
        if self._is_visible():
            self._render_view()

    def _shows(self, call: ApiCall) -> bool:
        return self.loop_filter is None or call.loop_path == self.loop_filter

    def visible_calls(self) -> list[ApiCall]:
        """The calls the list shows: all, or those of the loop filtered to."""
        return [call for call in self.model.calls if self._shows(call)]

    def action_cycle_loop(self) -> None:
        """Filter the list to the next loop path (main, each subagent in order), then show all again."""
        paths: list[str | None] = [None, *self.model.loop_paths()]
        index = paths.index(self.loop_filter) if self.loop_filter in paths else 0
        self.loop_filter = paths[(index + 1) % len(paths)]
        shown = self.visible_calls()
        if _position(shown, self.selected) is None:
            self.selected = shown[-1] if shown else None
        self._follow_latest = bool(shown) and self.selected is shown[-1]
        if self.is_mounted:
            self._update_title()
            self.query_one("#inspector-calls", DataTable).clear()
            self._row_versions.clear()
            self._catch_up()

    def title(self) -> str:
        """The panel's title: the loop filtered to, and how many older calls are only in the transcript."""
        title = TITLE + (f" · loop {self.loop_filter} (l: next)" if self.loop_filter else "")
        if self.model.dropped:
            title += f" · {plural(self.model.dropped, 'older call')} in the transcript file, not here"
        return title

    def _update_title(self) -> None:
        self.query_one("#inspector-title", Static).update(Text(one_line(self.title())))

    @property
    def current_view(self) -> str:
        """The active tab: one of VIEWS."""
        return self.query_one(TabbedContent).active or "request"

    def show_view(self, view: str) -> None:
        """Switch to tab `view` (one of VIEWS)."""
        self.query_one(TabbedContent).active = view

    def action_mcp_messages(self) -> None:
        """The MCP view: every JSON-RPC message in order (the /mcp screen's Messages tab)."""
        from tui.ui.screens.mcp_screen import McpScreen

        self.app.push_screen(McpScreen(getattr(self.app, "session", None), tab="mcp-messages-tab"))

    # --- rendering ----------------------------------------------------------------

    def _is_visible(self) -> bool:
        return self.is_mounted and self.display and self.is_on_screen

    def on_show(self) -> None:
        self._catch_up()

    def render_lines(self, crop: Region) -> list[Strip]:
        # Show is not delivered reliably when an inspector that started hidden (CSS
        # display: none) is displayed, but being painted is: catch up after this frame.
        if self._stale:
            self.call_later(self._catch_up)
        return super().render_lines(crop)

    @property
    def _stale(self) -> bool:
        shown = self.visible_calls()
        return len(self._row_versions) != len(shown) or any(
            self._row_versions.get(c.number) != c.version for c in shown[-1:]
        )

    def _catch_up(self) -> None:
        if self.is_mounted:
            self._sync_table()
            self._render_view()

    def _sync_table(self) -> None:
        """Add rows for new calls and refresh rows of calls that changed."""
        table = self.query_one("#inspector-calls", DataTable)
        self.set_class(not self.model.calls, "-empty")
        dropped = self.model.dropped
        # calls the model no longer keeps: their rows leave (keys are call numbers, added in order)
        for number in list(takewhile(lambda n: n <= dropped, self._row_versions)):
            del self._row_versions[number]
            if str(number) in table.rows:
                table.remove_row(str(number))
        if self._titled_dropped != dropped:
            self._titled_dropped = dropped
            self._update_title()
        for call in self.visible_calls():
            seen = self._row_versions.get(call.number)
            if seen is None:
                table.add_row(*_row(call), key=str(call.number))
            elif seen != call.version:
                for (_, column), value in zip(_COLUMNS, _row(call)):
                    table.update_cell(str(call.number), column, value)
            self._row_versions[call.number] = call.version
        self._move_cursor(table)

    def _move_cursor(self, table: DataTable[Any]) -> None:
        if self.selected is None or str(self.selected.number) not in table.rows:
            return
        row = table.get_row_index(str(self.selected.number))
        if table.cursor_row != row:
            table.move_cursor(row=row)

    def _render_view(self) -> None:
        """Build the active view for the selected call, unless it already shows it."""
        call = self.selected
        view = self.current_view
        if view == "timeline":
            timeline_view.refresh_tab(self)
            return
        if call is None:
            return
        # the request body never changes, so its (expanded) tree survives response events
        key = (call.number, 0 if view in ("request", "diff") else call.version)
        if self._rendered.get(view) == key:
            return
        self._rendered[view] = key
        self.query_one("#inspector-selected", Static).update(
            Text(
                one_line(
                    f"#{call.number} · {call.loop_path} · iteration {call.iteration} · {call.model}"
                    + _max_tokens_note(call.body)
                    + (
                        f" · steer: {plural(len(call.steered), 'message')} after the tool results"
                        if call.steered
                        else ""
                    )
                )
            )
        )
        if view == "request":
            self.query_one("#inspector-request", JsonView).show(call.body, f"request #{call.number}")
        elif view == "response":
            self.query_one("#inspector-response-summary", Static).update(response_summary(call))
            value = call.response_view() if call.finished else {}
            self.query_one("#inspector-response", JsonView).show(value, f"response #{call.number}")
        elif view == "sse":
            fill_sse_table(self.query_one("#inspector-sse", DataTable), call)
        elif view == "cost":
            self.query_one("#inspector-cost", Static).update(cost_view(call))
        else:
            previous = self.model.previous(call)
            changes = diff_requests(previous.body if previous else None, call.body)
            self.query_one("#inspector-diff", Static).update(diff_text(call, changes, previous))

    @on(DataTable.RowHighlighted, "#inspector-calls")
    def _call_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        table = event.data_table
        if event.row_key not in table.rows or table.get_row_index(event.row_key) != table.cursor_row:
            return  # stale: the cursor moved since (following a newer call), or the oldest rows left
        if event.row_key.value is not None:
            number = int(event.row_key.value)
            if self.selected is None or self.selected.number != number:
                self.select_call(number)

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        event.stop()
        self._render_view()

    # --- export -------------------------------------------------------------------

    def view_json(self, view: str | None = None) -> Any:
        """The JSON of one view of the selected call (the active view by default)."""
        return view_export.view_json(self, view)

    def action_copy_view(self) -> None:
        """Copy the current view as indented JSON to the clipboard."""
        view_export.copy_view(self)

    def action_save_view(self) -> Path | None:
        """Save the current view to `<export_dir>/call-<n>-<view>.json` and say where."""
        return view_export.save_view(self)

    def action_export_timeline(self) -> Path | None:
        return timeline_view.export_svg(self)

    def action_edit_resend(self) -> None:
        from tui.ui.screens.resend_screen import open_resend

        open_resend(self.app, self.selected)  # type: ignore[arg-type]

    def action_copy_code(self, kind: str) -> Path | None:
        return timeline_view.copy_code(self, kind)

    @on(DataTable.RowHighlighted, "#inspector-bars")
    def _bar_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        timeline_view.show_bar(self, event.row_key.value)

    @on(DataTable.RowSelected, "#inspector-bars")
    def _bar_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        timeline_view.open_bar(self, event.row_key.value)

    def action_step_call(self, step: int) -> None:
        shown = self.visible_calls()
        position = _position(shown, self.selected)
        if position is not None:
            self.select_call(shown[min(max(position + step, 0), len(shown) - 1)].number)

    @on(Button.Pressed, "#inspector-copy")
    def _copy_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_copy_view()

    @on(Button.Pressed, "#inspector-save")
    def _save_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_save_view()


__all__ = ["VIEWS", "Inspector"]
