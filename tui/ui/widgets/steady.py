"""Static updates that lay out again only when the widget's height changes.

`Static.update` asks for a layout pass of the whole screen on every change (its size might have
changed). A tool block's title or an Agent block's live activity changes many times a second with
eight subagents at work, mostly without changing height; a repaint is enough then. The measure taken to know
that is kept as Textual's own, so the next update (often in the same frame) can compare against it too.
"""

from __future__ import annotations

from typing import Any

from textual.widget import Widget
from textual.widgets import Static
from textual.widgets._collapsible import CollapsibleTitle

from .one_line import OneLineRender


def steady_update(widget: Static, content: Any) -> None:
    """`widget.update(content)`, with a layout pass only if its height at its current width changes."""
    width, height = widget._content_height_cache  # Textual's (width, height) of the last measure
    if width is None and widget.is_mounted:
        width, height = _laid_out(widget)
    Static.update(widget, content, layout=False)
    rule = widget.styles.width  # None: the container's width, as 1fr
    if width is None or not widget.is_mounted or (rule is not None and rule.is_auto):
        widget.refresh(layout=True)  # never measured, or its width follows its content
    # Textual's own measure passes its styles as the RulesMap too (Widget._get_content_height); the cached
    # width is an int once measured
    elif (new_height := widget.visual.get_height(widget.styles, width)) != height:  # type: ignore[arg-type]
        widget.refresh(layout=True)
    else:
        # the update's refresh emptied Textual's measure; put back the one just taken (the same call Textual
        # makes), or the next update of this frame finds none and asks for a layout of the whole screen
        widget._content_height_cache = (width, new_height)


def _laid_out(widget: Widget) -> tuple[int | None, int]:
    """The (width, height) of the content area the last layout gave `widget`, when that is its content's measure.

    A repaint (a style change, a hover) empties Textual's measure without a layout to take it again; a widget
    whose height is its content's (auto, no minimum or maximum) was laid out at that width with that height.
    """
    styles = widget.styles
    if styles.height is None or not styles.height.is_auto or styles.min_height or styles.max_height:
        return None, 0
    size = widget.size
    return (size.width, size.height) if size.width > 0 and size.height > 0 else (None, 0)


class SteadyTitle(OneLineRender, CollapsibleTitle):
    """A Collapsible's title whose label changes re-lay out only when its height changes (and draw cheaply)."""

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        steady_update(self, content)


def steady_refresh(widget: Widget) -> None:
    """Repaint `widget`, whose `render()` changed; a layout pass only if its height at its width changes.

    For a widget that draws its own content (not a Static: nothing to `update`), as `steady_update` does.
    """
    width, height = widget._content_height_cache
    if width is None and widget.is_mounted:
        width, height = _laid_out(widget)
    if width is None or not widget.is_mounted:
        widget.refresh(layout=True)
        return
    new_height = widget._render().get_height(widget.styles, width)  # type: ignore[arg-type]
    widget.refresh(layout=new_height != height)
    if new_height == height:
        widget._content_height_cache = (width, new_height)  # the refresh emptied it (see steady_update)
