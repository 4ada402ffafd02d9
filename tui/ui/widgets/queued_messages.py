"""The messages typed while a turn runs, listed under the prompt until the loop takes them."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tui.text.sanitize import one_line

#: queued messages listed; more show as "+N more"
SHOWN = 4
HINT = "↑ edits the newest · Esc takes them back"


class QueuedMessages(Static):
    """One dimmed line per queued message, oldest first (hidden while none waits)."""

    def show(self, texts: list[str]) -> None:
        """List `texts` (the inbox's order); an empty list hides the widget."""
        self.set_class(bool(texts), "-some")
        if not texts:
            self.update("")
            return
        out = Text(no_wrap=True, overflow="ellipsis")
        for i, text in enumerate(texts[:SHOWN]):
            if i:
                out.append("\n")
            out.append("queued ", style="bold")
            out.append(one_line(text))
        if len(texts) > SHOWN:
            out.append(f"\n+{len(texts) - SHOWN} more", style="italic")
        out.append(f"\n{HINT}", style="dim italic")
        self.update(out)
