"""One line of Content drawn without Textual's wrapping pipeline.

A `Static` renders its Content through wrapping, alignment and per-line formatting: about a millisecond
for a line that changes ten times a second (the status line) or with every call an agent makes (a tool
block's title). A line that fits its width, is left-aligned and has no selection is the same segments
either way; this draws those straight from the Content and leaves every other case to Textual.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.content import Content
from textual.strip import Strip
from textual.visual import Visual
from textual.widgets import Static


def one_line_strip(widget: Static, content: Content, width: int) -> Strip | None:
    """`content` as one padded strip of `width` cells, or None when only Textual's pipeline draws it right."""
    if (
        not width
        or content.cell_length > width
        or "\n" in content.plain
        or widget.text_selection is not None
        or widget.styles.text_align not in ("left", "start")
        or _has_links(content)
    ):
        return None
    style = widget.visual_style
    segments = [
        Segment(text, span_style.rich_style if span_style else None)
        for text, span_style in content.render(style, end="", parse_style=widget._get_style)
    ]
    if content.cell_length < width:
        segments.append(Segment(" " * (width - content.cell_length), style.rich_style))
    return Strip(segments, width)


def _has_links(content: Content) -> bool:
    """Whether any span links somewhere (Textual then styles the link under the mouse)."""
    for span in content.spans:
        style = span.style
        if ("link" in style) if isinstance(style, str) else (getattr(style, "link", None) is not None):
            return True
    return False


class OneLineRender:
    """Mixed into a Static: its one-line Content is drawn by `one_line_strip` when it can be.

    The segments carry no selection offsets, so the line is not mouse-selectable (ALLOW_SELECT is off):
    Textual's offsets made every segment a distinct style, half of what the line cost to draw.
    """

    ALLOW_SELECT = False

    def _render_content(self: Static) -> None:  # type: ignore[misc]
        width, height = self.size
        visual = self._render()
        strip = one_line_strip(self, visual, width) if isinstance(visual, Content) and height >= 1 else None
        if strip is None:
            strips = Visual.to_strips(self, visual, width, height, self.visual_style)
        else:
            blank = Strip.blank(width, self.visual_style.rich_style)
            strips = [strip, *([blank] * (height - 1))]
        from textual.widget import _RenderCache

        self._render_cache = _RenderCache(self.size, strips)
        self._dirty_regions.clear()
