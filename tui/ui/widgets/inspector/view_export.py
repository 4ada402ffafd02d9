"""The inspector's views as JSON: what Copy JSON and Save JSON (c, s) give for the selected call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.system.private_files import write_private
from tui.text.wording import plural

from .diff import diff_requests

if TYPE_CHECKING:
    from .panel import Inspector


def view_json(panel: Inspector, view: str | None = None) -> Any:
    """The JSON of one view of the selected call (the active view by default)."""
    call = panel.selected
    if call is None:
        return None
    view = view or panel.current_view
    if view == "timeline":
        return [panel.timeline.bar_json(b) for b in panel.timeline.bars]
    if view == "request":
        return call.body
    if view == "response":
        return call.response_view()
    if view == "sse":
        return call.sse_view()
    if view == "cost":
        return {"cost": call.cost, **({"compaction": call.compaction} if call.compaction else {})}
    previous = panel.model.previous(call)
    return {
        "call": call.number,
        "previous_call": previous.number if previous else None,
        "changes": [c.to_dict() for c in diff_requests(previous.body if previous else None, call.body)],
    }


def copy_view(panel: Inspector) -> None:
    """Copy the current view as indented JSON to the clipboard."""
    if panel.selected is None:
        panel.notify("No API call to copy yet.", severity="warning")
        return
    text = json.dumps(panel.view_json(), indent=2, ensure_ascii=False)
    panel.app.copy_to_clipboard(text)
    panel.notify(f"Copied call #{panel.selected.number} {panel.current_view} as JSON ({plural(len(text), 'char')}).")


def save_view(panel: Inspector) -> Path | None:
    """Save the current view to `<export_dir>/call-<n>-<view>.json` and say where."""
    if panel.selected is None:
        panel.notify("No API call to save yet.", severity="warning")
        return None
    view = panel.current_view
    path = panel.export_dir / f"call-{panel.selected.number}-{view}.json"
    try:
        write_private(path, json.dumps(panel.view_json(view), indent=2, ensure_ascii=False))
    except OSError as exc:
        panel.notify(f"Could not save {path}: {exc.strerror or exc}.", severity="error")
        return None
    panel.notify(f"Saved {path}", title="Inspector")
    return path
