"""Renderers for the Response, SSE and Diff views of one API call (the Request view is a JsonView)."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from tui.text.sanitize import one_line

from .diff import Change
from .json_tree import shorten
from .model import ApiCall

#: rows of the SSE table built per call (a 20k-token reply has ~5k events; all fit easily)
SSE_ROW_LIMIT = 20_000

_CHANGE_STYLES = {
    "same": "dim",
    "appended": "green",
    "added": "yellow",
    "changed": "yellow",
    "removed": "red",
}


def response_summary(call: ApiCall) -> Text:
    """One line above the Response tree: stop_reason, tokens, cache share, timings, cost."""
    if not call.finished:
        return Text(f"call #{call.number}: {call.status}…", style="italic")
    text = Text()
    text.append("stop_reason ", style="dim")
    text.append(one_line(str(call.stop_reason)), style="bold")
    share = call.cache_hit_share
    parts = [
        f"in {call.input_tokens:,}",
        f"out {call.output_tokens:,}",
        f"cache {share:.0%}" if share is not None else "cache -",
        f"ttfb {call.ttfb_ms} ms" if call.ttfb_ms is not None else "",
        f"{(call.duration_ms or 0) / 1000:.2f} s",
        f"${call.cost_usd:.4f}" if call.cost_usd is not None else "",
    ]
    text.append("  ·  " + "  ·  ".join(p for p in parts if p), style="dim")
    if call.action:
        text.append(f"  →  {one_line(call.action)}")
    return text


def fill_sse_table(table: DataTable[Any], call: ApiCall) -> None:
    """One row per raw SSE event: +seconds, event type, data (shortened)."""
    table.clear()
    if not table.columns:
        table.add_columns("t", "event", "data")
    for index, (seconds, kind, data) in enumerate(call.raw_events[:SSE_ROW_LIMIT]):
        payload = shorten(json.dumps(data, ensure_ascii=False), 160)
        # Text, not str: a DataTable parses str cells as markup, and the data is the model's
        table.add_row(f"+{seconds:.3f}s", one_line(kind), Text(payload), key=str(index))


def diff_text(call: ApiCall, changes: list[Change], previous: ApiCall | None) -> Text:
    """The Diff view: a heading naming both calls, then one styled line per change."""
    heading = f"call #{call.number} vs call #{previous.number}\n" if previous else f"call #{call.number}\n"
    text = Text(heading, style="bold")
    for change in changes:
        text.append("  " + one_line(change.text) + "\n", style=_CHANGE_STYLES.get(change.kind, ""))
    return text
