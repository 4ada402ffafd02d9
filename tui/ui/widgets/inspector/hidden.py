"""What the inspector lets go of when it is hidden, and finds again when it is shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import DataTable, TextArea

from . import timeline_view
from .json_tree import JsonView

if TYPE_CHECKING:
    from .panel import Inspector


def release(panel: Inspector) -> None:
    """Drop what only the screen needs: the lists' rows and the views' trees.

    The models keep every call and bar the panel shows, and the panel's catch-up lists the rows and builds the
    active view again when it is shown (the selected call, the view and the timeline's row stay). A day with the
    inspector opened once kept its tables of 500-1,000 rows and the request tree last shown to its end (the soak).
    """
    if not panel.is_mounted:
        return
    panel.query_one("#inspector-calls", DataTable).clear()
    panel._row_versions.clear()
    panel.query_one("#inspector-sse", DataTable).clear()
    timeline_view.release_tab(panel)
    for view in panel.query(JsonView):
        view.show(None, "")
        view.query_one(TextArea).load_text("")  # a node's whole value, when one was opened
    panel._rendered.clear()
