"""The inspector's Timeline tab and its exports (SVG, a request as curl or Python); the panel calls these."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import DataTable, Static

from tui.system.private_files import write_private
from tui.text.sanitize import one_line

from .json_tree import JsonView
from .request_code import as_curl, as_python
from .timeline import render, to_svg

if TYPE_CHECKING:
    from .panel import Inspector


def refresh_tab(panel: Inspector) -> None:
    """Draw the lanes and list the bars (only the rows of bars that changed since the last time)."""
    model = panel.timeline
    width = max(panel.size.width - 22, 20)
    panel.query_one("#inspector-timeline", Static).update(render(model, width, time.time()))
    table: DataTable[Any] = panel.query_one("#inspector-bars", DataTable)
    if not table.columns:
        table.add_columns("lane", "bar", "start", "dur", "outcome")
    if getattr(table, "_timeline_version", None) == model.version:
        return
    table._timeline_version = model.version  # type: ignore[attr-defined]
    start, _ = model.span(time.time())
    if getattr(table, "_timeline_start", None) != start:  # the times are relative to the first bar: all change
        table.clear()
        table._timeline_start, table._timeline_final = start, 0  # type: ignore[attr-defined]
    # bars are only appended, and a finished bar never changes: rows before the first unfinished one stay
    final = getattr(table, "_timeline_final", 0)
    for index in range(final, table.row_count):
        table.remove_row(str(index))
    row = table.cursor_row
    bars = model.bars
    for index in range(final, len(bars)):
        bar = bars[index]
        duration = f"{(bar.end - bar.start):.2f}s" if bar.end is not None else "…"
        table.add_row(
            Text(one_line(bar.lane)),
            Text(one_line(bar.label)[:60]),
            f"+{(bar.asked or bar.start) - start:.2f}s",
            duration,
            Text(one_line(bar.outcome)),
            key=str(index),
        )
    while final < len(bars) and bars[final].end is not None:
        final += 1
    table._timeline_final = final  # type: ignore[attr-defined]
    if bars:
        table.move_cursor(row=min(row, len(bars) - 1))


def show_bar(panel: Inspector, row: int) -> None:
    """Show the highlighted bar's JSON under the list."""
    if 0 <= row < len(panel.timeline.bars):
        bar = panel.timeline.bars[row]
        panel.query_one("#inspector-bar-json", JsonView).show(panel.timeline.bar_json(bar), f"{bar.lane}: {bar.label}")


def open_bar(panel: Inspector, row: int) -> None:
    """Enter on a request bar opens that call's Request view."""
    if 0 <= row < len(panel.timeline.bars):
        bar = panel.timeline.bars[row]
        if bar.call is not None and bar.call <= len(panel.model.calls):
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
