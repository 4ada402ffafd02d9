"""Very long reply text as plain wrapped lines, drawn only where it is on screen (Textual's Line API).

Rendering a 5 MB reply as Markdown takes seconds (Rich needs ~1.5 ms per KB) and a widget per
few KB would make every layout slow, so the part of a huge reply above its last few KB is shown
as plain text: appending costs a split of the new text, a frame draws only the visible rows, and
the height for a width is one pass of `len` over the lines (cached until the width changes).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from tui.text.sanitize import visible

TAB_SIZE = 8


class LongText(Widget):
    """Plain, sanitised text that only grows; wrapped per character at the widget's width."""

    DEFAULT_CSS = "LongText { height: auto; }"

    def __init__(self, text: str = "", *, classes: str = "assistant-text long") -> None:
        super().__init__(classes=classes)
        self._lines: list[str] = [""]
        #: the width `_starts` was built for, the first row of each line at that width, then the total
        self._width = 0
        self._starts: list[int] = [0]
        #: the last non-ASCII line cut into rows: (line index, width, rows)
        self._chopped: tuple[int, int, list[str]] = (-1, 0, [])
        self.chars = 0
        if text:
            self.append(text, refresh=False)

    @property
    def source(self) -> str:
        """The text shown (sanitised), as one string."""
        return "\n".join(self._lines)

    @property
    def line_count(self) -> int:
        return len(self._lines)

    def append(self, text: str, *, refresh: bool = True) -> None:
        """Add `text` at the end (it continues the last line unless that ended with a newline)."""
        self.chars += len(text)
        shown = visible(text)
        pieces = shown.split("\n")
        if "\t" in shown:  # a tab is a cursor movement: draw it as spaces
            pieces = [piece.expandtabs(TAB_SIZE) for piece in pieces]
        first = len(self._lines) - 1
        self._lines[-1] = (self._lines[-1] + pieces[0]).expandtabs(TAB_SIZE)
        self._lines.extend(pieces[1:])
        self._chopped = (-1, 0, [])
        if self._width:  # keep the row index of the lines before the change
            self._index(first)
        if refresh:
            self.refresh(layout=True)

    def _index(self, first: int) -> None:
        """Rebuild `_starts` from line `first` on, at `_width` (one comprehension: ~10 ms for 5 MB)."""
        width = self._width
        rows = [-(-len(line) // width) or 1 if line.isascii() else _rows(line, width) for line in self._lines[first:]]
        del self._starts[first + 1 :]
        self._starts.extend(accumulate(rows, initial=self._starts[first]))
        del self._starts[first + 1]  # accumulate repeats its initial value

    def _layout(self, width: int) -> int:
        """The number of rows at `width`."""
        width = max(1, width)
        if width != self._width:
            self._width = width
            self._index(0)
        return self._starts[-1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._layout(width)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        style = self.rich_style
        if y < 0 or y >= self._layout(width):
            return Strip.blank(width, style)
        index = bisect_right(self._starts, y) - 1
        line, row = self._lines[index], y - self._starts[index]
        if line.isascii():
            piece = line[row * width : (row + 1) * width]
        else:
            if self._chopped[:2] != (index, width):
                self._chopped = (index, width, chop_cells(line, width))
            parts = self._chopped[2]
            piece = parts[row] if row < len(parts) else ""
        return Strip([Segment(piece, style)], cell_len(piece)).adjust_cell_length(width, style)


def _rows(line: str, width: int) -> int:
    """Screen rows a non-ASCII `line` takes at `width` (at least one)."""
    return max(1, len(chop_cells(line, width)))
