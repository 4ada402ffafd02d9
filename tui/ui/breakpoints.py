"""The screen's breakpoint classes (`-wide`, `-tall` …), set before the first Resize sets them; the smallest size served."""

from __future__ import annotations

import sys
from typing import Any

from textual.app import App
from textual.screen import Screen

#: the smallest terminal the layout serves (the README says so too); below it TooSmallScreen covers all
MIN_WIDTH, MIN_HEIGHT = 40, 12


def preset_breakpoints(app: App[Any], screen: Screen[Any]) -> None:
    """Give `screen` the breakpoint classes of the terminal's size (`app.size`) before it mounts.

    Textual sets them at the first Resize, which then restyles every widget once more (~10-25 ms
    before the first frame); with the classes already right that update changes nothing.
    """
    width, height = app.size
    horizontal = (
        app.HORIZONTAL_BREAKPOINTS if screen.HORIZONTAL_BREAKPOINTS is None else screen.HORIZONTAL_BREAKPOINTS
    ) or []
    vertical = (app.VERTICAL_BREAKPOINTS if screen.VERTICAL_BREAKPOINTS is None else screen.VERTICAL_BREAKPOINTS) or []
    wanted = screen._get_breakpoint_classes(width, horizontal) | screen._get_breakpoint_classes(height, vertical)
    for _, name in (*horizontal, *vertical):
        screen.set_class(name in wanted, name, update=False)


def fit_size(app: App[Any], width: int, height: int) -> None:
    """Below MIN_WIDTH × MIN_HEIGHT, TooSmallScreen covers the app (its module is imported only then)."""
    if width < MIN_WIDTH or height < MIN_HEIGHT or "tui.ui.screens.too_small" in sys.modules:
        from .screens.too_small import fit_terminal

        fit_terminal(app, width, height)
