"""A DataTable whose description column gets the room the other columns leave (issue 35: /agents showed 2 letters).

Textual sizes every column to its widest cell and scrolls the rest off to the right, so one long
Tools or Source cell pushed the description out of sight. Here the other columns are capped at
`cap` cells (longer cells are cut there), and the `fill` column takes what is left of the width.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import DataTable

#: the fewest cells the description keeps, even when the others leave less (then the table scrolls)
MIN_FILL = 16


class FittedTable(DataTable[Any]):
    """DataTable with `fill` (a column index, -1 the last) taking the room left; the other columns at most `cap`."""

    def __init__(self, *args: Any, fill: int = -1, cap: int = 30, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fill = fill
        self.cap = cap

    async def _on_idle(self, event: events.Idle) -> None:
        await super()._on_idle(event)  # measures new cells first
        if self.fit_columns():
            self._require_update_dimensions = True  # the virtual width follows the new column widths
            self.refresh()

    def fit_columns(self) -> bool:
        """Set the widths; True when one changed."""
        columns = self.ordered_columns
        room = self.scrollable_content_region.width
        if not columns or room <= 0:
            return False
        fill = columns[self.fill]
        changed = False
        used = 0
        for column in columns:
            if column is fill:
                continue
            width = min(column.content_width, self.cap)
            if column.auto_width or column.width != width:
                changed = changed or column.auto_width or column.width != width
                column.auto_width, column.width = False, width
            used += column.get_render_width(self)
        width = max(MIN_FILL, room - used - 2 * self.cell_padding)
        if fill.auto_width or fill.width != width:
            fill.auto_width, fill.width = False, width
            changed = True
        return changed
