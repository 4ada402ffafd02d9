"""A widget drawn from Rich lines rendered once per key (Line API, no child widgets).

A `Static` holding a Rich renderable renders it twice per change (to measure its height, then to draw);
a subclass of this renders once in `_render_lines` and keeps the lines and their strips.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget


class LinesWidget(Widget):
    """Lines rendered by `_render_lines(width)` (which sets `_key`, `_style`, `_lines`), kept until the key changes."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._key: Any = None
        self._style: Any = None
        self._lines: list[list[Segment]] = []
        self._strips: dict[int, Strip] = {}

    def _render_lines(self, width: int) -> list[list[Segment]]:
        raise NotImplementedError

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._render_lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._render_lines(width)
        strip = self._strips.get(y)
        if strip is None:
            strip = Strip(lines[y], width) if 0 <= y < len(lines) else Strip.blank(width)
            self._strips[y] = strip
        return strip

    def notify_style_update(self) -> None:
        super().notify_style_update()
        # colours changed: draw again (a class toggled on an ancestor, e.g. a theme change, restyles
        # every widget below it without changing this one's colours: keep the lines then)
        if self._key is not None and self.rich_style != self._style:
            self._key = None
