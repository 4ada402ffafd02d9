"""The footer of key hints, shortened by whole keys: a key that does not fit is left out, never cut ("f2 Ins")."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer


class WholeFooter(Footer):
    """Textual's Footer, but the keys past the right edge (or the command palette's key) are hidden whole."""

    def compose(self) -> ComposeResult:
        yield from super().compose()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        for child in self.children:
            child.display = True
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Hide each key that runs past the room the command palette's key leaves."""
        palette = [c for c in self.children if c.has_class("-command-palette") and c.display]
        limit = palette[0].region.x if palette else self.region.right
        for child in self.children:
            if child not in palette and child.display and child.region.area:
                child.display = child.region.right <= limit
