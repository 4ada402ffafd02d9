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

    def _fit(self, tries: int = 10) -> None:
        """Hide each key that runs past the room the command palette's key leaves (once the keys are placed)."""
        shown = [c for c in self.children if c.display]
        if not self.region.width or any(not c.region.area for c in shown):
            if tries:
                self.call_after_refresh(self._fit, tries - 1)  # not laid out yet
            return
        palette = [c for c in shown if c.has_class("-command-palette")]
        limit = palette[0].region.x if palette else self.region.right
        for child in shown:
            if child not in palette:
                child.display = child.region.right <= limit
