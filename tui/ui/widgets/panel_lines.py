"""Cheap drawing for the tool panel, which redraws often (each tool event, a 0.1 s clock, eight subagents at once).

`Rows` lays out fixed-width columns around one flexible column, as `Table.grid(padding=(0, 1),
expand=True)` does for the panel's rows, at a fraction of its cost (no measuring of every cell).
`PanelBody` draws a renderable once per change and width, and asks for a layout only when its height
changes.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from .lines_widget import LinesWidget


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

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        widths = self._widths(options.max_width)
        for cells in self.rows:
            line = self.line(cells, widths)
            line.end = "\n"
            yield line


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
            name = Text.assemble(name[: keep - keep // 2], "…", name[len(name) - keep // 2:] if keep // 2 else "")
        # the lead's style (bold) is the whole line's base style, as when the parts were appended to it
        yield Text.assemble(lead, name, tail, style=lead.style, no_wrap=True, overflow="ellipsis")


class PanelBody(LinesWidget):
    """The panel's rows: a Rich renderable drawn once per change and width.

    A `Static` would render it twice per change and ask for a layout of the whole screen each time;
    this re-lays out only when the number of lines changes.
    """

    DEFAULT_CSS = "PanelBody { height: auto; }"

    def __init__(self, renderable: RenderableType, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.renderable = renderable

    def update(self, renderable: RenderableType) -> None:
        """Show `renderable`; a layout pass only if the height changes."""
        width, height = self._key, len(self._lines)
        self.renderable = renderable
        self._key = None
        if width:
            self.refresh(layout=len(self._render_lines(width)) != height)
        else:
            self.refresh(layout=True)

    def _render_lines(self, width: int) -> list[list[Segment]]:
        if width != self._key:
            console = self.app.console
            options = console.options.update(width=max(1, width), height=None, highlight=False)
            self._style = self.rich_style
            self._lines = console.render_lines(self.renderable, options, style=self._style, pad=True)
            self._strips.clear()
            self._key = width
        return self._lines
