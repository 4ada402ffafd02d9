"""Static updates that lay out again only when the widget's height changes.

`Static.update` asks for a layout pass of the whole screen on every change (its size might have
changed). A tool block's title or an Agent block's live activity changes many times a second with
eight subagents at work, mostly without changing height; a repaint is enough then.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Static
from textual.widgets._collapsible import CollapsibleTitle

from .one_line import OneLineRender


def steady_update(widget: Static, content: Any) -> None:
    """`widget.update(content)`, with a layout pass only if its height at its current width changes."""
    width, height = widget._content_height_cache  # Textual's (width, height) of the last measure
    Static.update(widget, content, layout=False)
    rule = widget.styles.width  # None: the container's width, as 1fr
    if width is None or not widget.is_mounted or (rule is not None and rule.is_auto):
        widget.refresh(layout=True)  # never measured, or its width follows its content
    # Textual's own measure passes its styles as the RulesMap too (Widget._get_content_height); the cached
    # width is an int once measured
    elif widget.visual.get_height(widget.styles, width) != height:  # type: ignore[arg-type]
        widget.refresh(layout=True)


class SteadyTitle(OneLineRender, CollapsibleTitle):
    """A Collapsible's title whose label changes re-lay out only when its height changes (and draw cheaply)."""

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        steady_update(self, content)
