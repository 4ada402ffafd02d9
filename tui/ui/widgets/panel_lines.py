"""Cheap drawing for the tool panel, which redraws often (each tool event, a 0.1 s clock, eight subagents at once).

`Rows` lays out fixed-width columns around one flexible column, as `Table.grid(padding=(0, 1),
expand=True)` does for the panel's rows, at a fraction of its cost (no measuring of every cell), and
keeps each row's segments for as long as its cells read the same. `PanelBody` draws a list of pieces
(one per batch), re-rendering only the pieces whose key changed, repaints only the rows that differ
from what is on screen, and asks for a layout only when its height changes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text
from textual.geometry import Region

from .lines_widget import LinesWidget

#: rows kept rendered (a panel shows a few dozen; the clock changes the running ones ten times a second)
ROW_CACHE_SIZE = 512
_row_cache: OrderedDict[Hashable, list[Segment]] = OrderedDict()


def _cell_key(cell: Text | str) -> Hashable:
    if isinstance(cell, str):
        return cell
    return (cell.plain, cell.style, tuple(cell.spans))


class Rows:
    """Rows of cells in columns of fixed width (None: the one that takes the rest), one space apart, no wrapping."""

    def __init__(self, widths: tuple[int | None, ...], justify: tuple[str, ...]) -> None:
        self.widths = widths
        self.justify = justify
        self.rows: list[tuple[Text | str, ...]] = []

    def add_row(self, *cells: Text | str) -> None:
        self.rows.append(cells)

    def _widths(self, total: int) -> list[int]:
        fixed = sum(w for w in self.widths if w is not None) + len(self.widths) - 1
        return [w if w is not None else max(1, total - fixed) for w in self.widths]

    def line(self, cells: tuple[Text | str, ...], widths: list[int]) -> Text:
        out = Text(no_wrap=True, overflow="crop", end="")
        for i, (cell, width, justify) in enumerate(zip(cells, widths, self.justify)):
            text = cell.copy() if isinstance(cell, Text) else Text(cell)
            text.overflow = "ellipsis"
            text.align(justify, width)  # type: ignore[arg-type]
            if i:
                out.append(" ")
            out.append_text(text)
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        widths = self._widths(options.max_width)
        for cells in self.rows:
            key = (tuple(widths), self.justify, tuple(_cell_key(c) for c in cells))
            segments = _row_cache.get(key)
            if segments is None:
                segments = list(self.line(cells, widths).render(console, end="\n"))
                _row_cache[key] = segments
                if len(_row_cache) > ROW_CACHE_SIZE:
                    _row_cache.popitem(last=False)
            yield from segments


class Heading:
    """One line: `lead`, `name`, `tail`; when too wide, the name is cut in its middle (its end tells agents
    apart: `general…pose-6`), never the tail's figures."""

    def __init__(self, lead: Text, name: Text, tail: Text) -> None:
        self.parts = (lead, name, tail)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        lead, name, tail = self.parts
        room = options.max_width - lead.cell_len - tail.cell_len
        if len(name) > room:
            keep = max(0, room - 1)
            name = Text.assemble(name[: keep - keep // 2], "…", name[len(name) - keep // 2 :] if keep // 2 else "")
        # the lead's style (bold) is the whole line's base style, as when the parts were appended to it
        yield Text.assemble(lead, name, tail, style=lead.style, no_wrap=True, overflow="ellipsis")


class PanelBody(LinesWidget):
    """The panel's rows: pieces (a batch, the todo list) drawn once per change of their key and width.

    A `Static` would render everything twice per change and ask for a layout of the whole screen each
    time; this renders only the pieces whose key changed, repaints only the rows that differ, and
    re-lays out only when the number of lines changes.
    """

    DEFAULT_CSS = "PanelBody { height: auto; }"

    def __init__(self, renderable: RenderableType, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: (key, renderable): a piece with a key is rendered again only when its key changes; None: always
        self.pieces: list[tuple[Hashable | None, RenderableType]] = [(None, renderable)]
        self._piece_lines: dict[Hashable, list[list[Segment]]] = {}

    @property
    def renderable(self) -> RenderableType:
        """What the body shows, as one renderable (tests print it)."""
        from rich.console import Group

        return Group(*(piece for _, piece in self.pieces))

    def update(self, renderable: RenderableType) -> None:
        """Show `renderable` (drawn again in full)."""
        self.show([(None, renderable)])

    def show(self, pieces: list[tuple[Hashable | None, RenderableType]]) -> None:
        """Show `pieces`; repaint the rows that changed, lay out only if the height changed."""
        self.pieces = pieces
        width, old = self._key, self._lines
        self._key = None
        if not width:
            self.refresh(layout=True)
            return
        new = self._draw(width)
        self._lines, self._key = new, width
        if len(new) != len(old):
            self._strips.clear()
            self.refresh(layout=True)
            return
        changed = [y for y, (before, after) in enumerate(zip(old, new)) if before != after]
        for y in changed:
            self._strips.pop(y, None)
        if changed:
            self.refresh(*_row_regions(changed, width))

    def _draw(self, width: int) -> list[list[Segment]]:
        console = self.app.console
        options = console.options.update(width=max(1, width), height=None, highlight=False)
        style = self.rich_style
        if style != self._style:
            self._piece_lines.clear()
            self._style = style
        lines: list[list[Segment]] = []
        kept: dict[Hashable, list[list[Segment]]] = {}
        for key, piece in self.pieces:
            cache_key = (key, width) if key is not None else None
            piece_lines = self._piece_lines.get(cache_key) if cache_key is not None else None
            if piece_lines is None:
                piece_lines = console.render_lines(piece, options, style=style, pad=True)
            if cache_key is not None:
                kept[cache_key] = piece_lines
            lines.extend(piece_lines)
        self._piece_lines = kept
        return lines

    def _render_lines(self, width: int) -> list[list[Segment]]:
        if width != self._key:
            self._lines = self._draw(width)
            self._strips.clear()
            self._key = width
        return self._lines


def _row_regions(rows: list[int], width: int) -> Iterator[Region]:
    """One region per run of consecutive rows."""
    start = previous = rows[0]
    for y in rows[1:]:
        if y != previous + 1:
            yield Region(0, start, width, previous - start + 1)
            start = y
        previous = y
    yield Region(0, start, width, previous - start + 1)
