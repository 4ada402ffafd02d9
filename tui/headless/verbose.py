"""`-p --verbose` in text mode: one stderr line per tool call, so a script's log shows what ran."""

from __future__ import annotations

from typing import TextIO

from tui.agent.events import Event, ToolFinished, ToolQueued
from tui.text.wording import shorten


class VerboseLines:
    """Writes `agent-tui: tool Read README.md: ok` lines as tool calls finish."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.labels: dict[str, str] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolQueued):
            self.labels[event.tool_use_id] = event.label or event.name
        elif isinstance(event, ToolFinished):
            label = self.labels.pop(event.tool_use_id, event.name)
            outcome = "ok"
            if event.is_error:
                first = (event.result_text or "").strip().split("\n", 1)[0]
                outcome = f"{event.status}: {shorten(first, 120)}" if first else str(event.status)
            self.err.write(f"agent-tui: tool {shorten(label, 100)}: {outcome}\n")
