"""The inspector's Timeline tab and its exports (SVG, a request as curl or Python); the panel calls these."""

from __future__ import annotations

import time
from bisect import bisect_left
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import DataTable, Static

from tui.system.private_files import write_private
from tui.text.sanitize import one_line

from .json_tree import JsonView
from .request_code import as_curl, as_python
from .timeline import Bar, render, to_svg

if TYPE_CHECKING:
    from .panel import Inspector


@dataclass
class _Rows:
    """What the bar list shows: the ids of its rows in order, and the first id whose row may still change."""

    origin: float | None = None
    shown: deque[int] = field(default_factory=deque)
    final: int = 0


def refresh_tab(panel: Inspector) -> None:
    """Draw the lanes and list the bars (only the rows of bars that changed since the last time).

    A row's key is its bar's id, so dropping the oldest bars (the model keeps the newest `keep`) removes
    their rows without touching the others.
    """
    model = panel.timeline
    width = max(panel.size.width - 22, 20)
    panel.query_one("#inspector-timeline", Static).update(render(model, width, time.time()))
    table: DataTable[Any] = panel.query_one("#inspector-bars", DataTable)
    if not table.columns:
        table.add_columns("lane", "bar", "start", "dur", "outcome")
    if getattr(table, "_timeline_version", None) == model.version:
        return
    table._timeline_version = model.version  # type: ignore[attr-defined]
    rows: _Rows = getattr(table, "_timeline_rows", None) or _Rows()
    table._timeline_rows = rows  # type: ignore[attr-defined]
    start = model.first_time(time.time())
    if rows.origin != start:  # the times are relative to the first bar: all change
        table.clear()
        rows.origin, rows.shown, rows.final = start, deque(), 0
    bars = model.bars
    first = bars[0].id if bars else rows.final
    while rows.shown and rows.shown[0] < first:  # bars the model no longer keeps
        table.remove_row(str(rows.shown.popleft()))
    # bars are only appended, and a finished bar never changes: rows before the first unfinished one stay
    while rows.shown and rows.shown[-1] >= rows.final:
        table.remove_row(str(rows.shown.pop()))
    row = table.cursor_row
    index = bisect_left(bars, rows.final, key=lambda b: b.id)
    for bar in bars[index:]:
        duration = f"{(bar.end - bar.start):.2f}s" if bar.end is not None else "…"
        table.add_row(
            Text(one_line(bar.lane)),
            Text(one_line(bar.label)[:60]),
            f"+{(bar.asked or bar.start) - start:.2f}s",
            duration,
            Text(one_line(bar.outcome)),
            key=str(bar.id),
        )
        rows.shown.append(bar.id)
    while index < len(bars) and bars[index].end is not None:
        index += 1
    rows.final = bars[index].id if index < len(bars) else (bars[-1].id + 1 if bars else rows.final)
    if bars:
        table.move_cursor(row=min(row, len(bars) - 1))


def _bar(panel: Inspector, key: str | None) -> Bar | None:
    """The bar of the row with key `key` (its id), if the timeline still keeps it."""
    return panel.timeline.find(int(key)) if key is not None and key.isdigit() else None


def show_bar(panel: Inspector, key: str | None) -> None:
    """Show the highlighted bar's JSON under the list."""
    bar = _bar(panel, key)
    if bar is not None:
        panel.query_one("#inspector-bar-json", JsonView).show(panel.timeline.bar_json(bar), f"{bar.lane}: {bar.label}")


def open_bar(panel: Inspector, key: str | None) -> None:
    """Enter on a request bar opens that call's Request view (when the inspector still keeps the call)."""
    bar = _bar(panel, key)
    if bar is not None and bar.call is not None and panel.model.get(bar.call) is not None:
        panel.select_call(bar.call)
        panel.show_view("request")


def _write(panel: Inspector, name: str, text: str) -> Path | None:
    path = panel.export_dir / name
    try:
        write_private(path, text)  # a request holds prompts and file contents: 0600 in a 0700 folder
    except OSError as exc:
        panel.notify(f"Could not save {path}: {exc.strerror or exc}.", severity="error")
        return None
    return path


def export_svg(panel: Inspector) -> Path | None:
    """Save the timeline as `<export_dir>/timeline-<time>.svg`."""
    if not panel.timeline.bars:
        panel.notify("Nothing on the timeline yet.", severity="warning")
        return None
    path = _write(panel, f"timeline-{time.strftime('%Y%m%d-%H%M%S')}.svg", to_svg(panel.timeline, time.time()))
    if path is not None:
        panel.notify(f"Saved {path}", title="Inspector")
    return path


def copy_code(panel: Inspector, kind: str) -> Path | None:
    """The selected request as curl or Python: to the clipboard (OSC 52) and to a file; the key stays a variable."""
    call = panel.selected
    if call is None:
        panel.notify("No API call to copy yet.", severity="warning")
        return None
    text = as_curl(call.body) if kind == "curl" else as_python(call.body)
    panel.app.copy_to_clipboard(text)
    path = _write(panel, f"call-{call.number}.{'sh' if kind == 'curl' else 'py'}", text)
    where = f" and saved {path}" if path else ""
    panel.notify(
        f"Copied call #{call.number} as {'curl' if kind == 'curl' else 'Python'}{where}; "
        "the key is read from $ANTHROPIC_API_KEY.",
        title="Inspector",
    )
    return path
