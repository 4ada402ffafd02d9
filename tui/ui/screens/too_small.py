"""Below the smallest size the layout serves, one sentence instead of a half-drawn screen."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from ..breakpoints import MIN_HEIGHT, MIN_WIDTH


def too_small(width: int, height: int) -> bool:
    return width < MIN_WIDTH or height < MIN_HEIGHT


def sentence(width: int, height: int) -> str:
    return f"terminal too small: {width}×{height}, needs {MIN_WIDTH}×{MIN_HEIGHT}"


class TooSmallScreen(Screen[None]):
    """Covers everything while the terminal is too small; leaves by itself once it is big enough again."""

    DEFAULT_CSS = """
    TooSmallScreen { align: center middle; background: $background; }
    TooSmallScreen #too-small { width: auto; max-width: 100%; height: auto; color: $warning; text-style: bold; }
    """

    def __init__(self, width: int, height: int) -> None:
        super().__init__()
        self.shown_size = (width, height)

    def compose(self) -> ComposeResult:
        yield Static(sentence(*self.shown_size), id="too-small", markup=False)

    def show(self, width: int, height: int) -> None:
        """Say the new size."""
        self.shown_size = (width, height)
        self.query_one("#too-small", Static).update(sentence(width, height))

    def on_screen_resume(self) -> None:
        """Back on top (a dialog above it closed): still needed?"""
        size = self.app.size
        if not too_small(size.width, size.height):
            self.dismiss(None)
        else:
            self.show(size.width, size.height)


def fit_terminal(app: Any, width: int, height: int) -> None:
    """Cover the app with TooSmallScreen below the smallest size, and take it away above it."""
    if not app.screen_stack:
        return
    top = app.screen
    if too_small(width, height):
        if isinstance(top, TooSmallScreen):
            top.show(width, height)
        else:
            app.push_screen(TooSmallScreen(width, height))
    elif isinstance(top, TooSmallScreen):
        app.pop_screen()
