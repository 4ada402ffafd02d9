"""`/vim`: the vi engine (vi_engine.py) wired to the prompt's TextArea.

Keys reach it from the prompt's own key handler, so a burst (`ihello` Esc `0x`) acts in the
order typed. In normal mode every printable key is a command and never text; Enter still sends
(a priority binding), Up/Down still recall prompts, and Esc with nothing pending goes on to the
app (interrupting a turn, or Esc Esc for the rewind list). In insert mode only Esc is taken.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events

from ..vi_engine import INSERT, NORMAL, ViEngine, ViResult


class ViKeys:
    """The vi state of one prompt; `on_mode` hears each change of mode (for the status line)."""

    def __init__(self, prompt: Any, on_mode: Callable[[str], None]) -> None:
        self.prompt = prompt
        self.engine = ViEngine()
        self.on_mode = on_mode
        on_mode(self.engine.mode)

    @property
    def mode(self) -> str:
        return self.engine.mode

    def handle(self, event: events.Key) -> bool:
        """Act on the key; True when it was the vi keys' (the prompt must not type it)."""
        engine = self.engine
        if event.key == "escape":
            if engine.mode == NORMAL and not engine.pending:
                return False
            self._apply(engine.escape(self._lines(), self.prompt.cursor_location))
            return True
        if engine.mode == INSERT:
            return False
        if event.key == "backspace":
            char = "h"  # as in vi: back one character, deleting nothing
        elif event.is_printable and event.character and len(event.character) == 1:
            char = event.character
        else:
            return False  # arrows, Home/End, Ctrl keys, Tab: as in insert mode
        self._apply(engine.key(char, self._lines(), self.prompt.cursor_location))
        return True

    def reset(self) -> None:
        """After a prompt is sent: insert mode, nothing pending, no undo steps of the old text."""
        self.engine = ViEngine()
        self.on_mode(INSERT)

    def _lines(self) -> list[str]:
        return list(self.prompt.document.lines)

    def _apply(self, result: ViResult) -> None:
        prompt = self.prompt
        if result.lines is not None:
            text = "\n".join(result.lines)
            if text != prompt.text:
                prompt.replace(text, (0, 0), prompt.document.end)
        prompt.move_cursor(result.cursor)
        prompt.set_class(result.mode == NORMAL, "-vi-normal")
        self.on_mode(result.mode)
