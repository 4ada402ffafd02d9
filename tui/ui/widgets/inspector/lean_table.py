"""A DataTable whose render caches hold a few screens of rows, not Textual's thousands.

Textual's DataTable caches rendered rows (1,000), cells (10,000), lines (1,000) and row renderables (1,000),
each keyed with the table's update count: every added row makes the entries before it stale, and they stay
until the cache is full. The inspector's tables grow with every call and bar while it is open, so each one
filled its caches: the quick soak's RSS rose ~3.5 MiB a turn for the 20 turns the inspector stayed open
(168 MiB at the end against 128 before it opened, 110 after warm-up), and after it closed the freed memory
stayed with Python's allocator. A few screens' worth still serves scrolling back and forth.
"""

from __future__ import annotations

from typing import Any

from textual.cache import LRUCache
from textual.widgets import DataTable

#: rows whose renders are kept (the panel's tables show 10-40 rows; every added or changed row makes all earlier
#: renders stale, so more only held stale ones while the inspector was shown: 200 kept ~2 MiB more of Python's
#: arenas in a 400-turn day with the inspector opened once, 87 -> 89 MiB against 90 -> 91)
ROWS_CACHED = 60
#: cells whose renders are kept (ROWS_CACHED rows of the widest inspector table's 10 columns)
CELLS_CACHED = ROWS_CACHED * 10


class LeanTable(DataTable[Any]):
    """`DataTable` with its render caches capped at ROWS_CACHED rows and CELLS_CACHED cells."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._row_render_cache = LRUCache(ROWS_CACHED)
        self._cell_render_cache = LRUCache(CELLS_CACHED)
        self._row_renderable_cache = LRUCache(ROWS_CACHED)
        self._line_cache = LRUCache(ROWS_CACHED)
