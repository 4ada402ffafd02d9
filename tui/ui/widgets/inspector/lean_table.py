"""A DataTable whose render caches hold a few screens of rows, not Textual's thousands, and whose text is plain.

Textual's DataTable caches rendered rows (1,000), cells (10,000), lines (1,000) and row renderables (1,000),
each keyed with the table's update count: every added row makes the entries before it stale, and they stay
until the cache is full. The inspector's tables grow with every call and bar while it is open, so each one
filled its caches: the quick soak's RSS rose ~3.5 MiB a turn for the 20 turns the inspector stayed open
(168 MiB at the end against 128 before it opened, 110 after warm-up), and after it closed the freed memory
stayed with Python's allocator. A few screens' worth still serves scrolling back and forth.

A DataTable parses its str labels and cells as Rich markup. The inspector's cells hold what the model and the
user named (a subagent's name, an error's status): a `[` in one was read as a tag, and an unmatched `[/]` raised
an error inside a frame. Parsing also loads Rich's emoji table on first use (3,608 entries, 0.56 MiB that stay for
the rest of the day). Here every str is plain text.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text, TextType
from textual.cache import LRUCache
from textual.widgets import DataTable
from textual.widgets.data_table import CellType, ColumnKey, RowKey

#: rows whose renders are kept (the panel's tables show 10-40 rows; every added or changed row makes all earlier
#: renders stale, so more only held stale ones while the inspector was shown: 200 kept ~2 MiB more of Python's
#: arenas in a 400-turn day with the inspector opened once, 87 -> 89 MiB against 90 -> 91)
ROWS_CACHED = 60
#: cells whose renders are kept (ROWS_CACHED rows of the widest inspector table's 10 columns)
CELLS_CACHED = ROWS_CACHED * 10


def plain(value: Any) -> Any:
    """`value`, a str made plain `Text` (never parsed as markup); anything else as it is."""
    return Text(value, end="") if isinstance(value, str) else value


class LeanTable(DataTable[Any]):
    """`DataTable` with its render caches capped at ROWS_CACHED rows and CELLS_CACHED cells; str labels and cells
    are plain text."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._row_render_cache = LRUCache(ROWS_CACHED)
        self._cell_render_cache = LRUCache(CELLS_CACHED)
        self._row_renderable_cache = LRUCache(ROWS_CACHED)
        self._line_cache = LRUCache(ROWS_CACHED)

    def add_column(
        self, label: TextType, *, width: int | None = None, key: str | None = None, default: CellType | None = None
    ) -> ColumnKey:
        return super().add_column(plain(label), width=width, key=key, default=plain(default))

    def add_row(
        self, *cells: CellType, height: int | None = 1, key: str | None = None, label: TextType | None = None
    ) -> RowKey:
        return super().add_row(*map(plain, cells), height=height, key=key, label=plain(label))

    def update_cell(
        self, row_key: RowKey | str, column_key: ColumnKey | str, value: CellType, *, update_width: bool = False
    ) -> None:
        super().update_cell(row_key, column_key, plain(value), update_width=update_width)
