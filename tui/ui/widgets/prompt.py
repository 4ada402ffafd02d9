"""The prompt: a multi-line TextArea where Enter sends and Ctrl+J adds a newline, with history.

It holds at most MAX_PROMPT_CHARS: a bigger paste keeps its first part, and the whole paste is
saved to a file named in the notice, so nothing is lost.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, TextArea

from ..bindings import bindings_for
from ..paste_cap import MAX_PROMPT_CHARS, cut_paste, full_notice

#: prompts kept for Up/Down recall
HISTORY_LIMIT = 200


class PromptArea(TextArea):
    """TextArea with submit, newline and history bindings from the registry."""

    BINDINGS: list[Binding] = bindings_for("prompt")  # type: ignore[assignment]

    class Submitted(Message):
        """The user pressed Enter on a non-empty prompt."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            "", id=id, soft_wrap=True, tab_behavior="focus", show_line_numbers=False,
            compact=True, placeholder="Ask the agent…  Enter sends · Ctrl+J newline · /help",
        )
        self.prompt_history: list[str] = []
        self._history_index: int | None = None  # None = editing a new prompt
        self._draft = ""

    # Priority bindings run on the app's queue, while typed characters are inserted from
    # this widget's own queue; in a burst ("hi" + Enter arriving together) the binding
    # would run before the characters land. Each action therefore queues itself behind
    # the keys already waiting here.

    async def _on_paste(self, event: events.Paste) -> None:
        """Insert a paste, cut to what still fits in the prompt (with a notice naming where the rest went)."""
        event.prevent_default()  # instead of TextArea's own handler, which would insert all of it
        if self.read_only:
            return
        start, end = self.selection
        room = MAX_PROMPT_CHARS - (self._length() - len(self.selected_text))
        text, notice = cut_paste(event.text, room)
        if notice:
            self.notify(notice, severity="warning", timeout=20)
        if text and (result := self._replace_via_keyboard(text, start, end)):
            self.move_cursor(result.end_location)
            self.focus()

    async def _on_key(self, event: events.Key) -> None:
        """A full prompt takes no more typing (TextArea's handler runs after this one unless prevented)."""
        if event.is_printable and self._length() >= MAX_PROMPT_CHARS and not self.selected_text:
            event.stop()
            event.prevent_default()
            self.notify(full_notice(), severity="warning")

    def _length(self) -> int:
        """Characters in the prompt (newlines counted), without joining the text."""
        lines = self.document.lines
        return sum(map(len, lines)) + len(lines) - 1

    def action_submit(self) -> None:
        self.call_later(self._submit)

    def action_newline(self) -> None:
        self.call_later(self.insert, "\n")

    def action_history_previous(self) -> None:
        self.call_later(self._history_previous)

    def action_history_next(self) -> None:
        self.call_later(self._history_next)

    def _submit(self) -> None:
        text = self.text.strip()
        if not text:
            return
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
            del self.prompt_history[:-HISTORY_LIMIT]
        self._history_index = None
        self._draft = ""
        self.clear()
        self.post_message(self.Submitted(text))

    def _history_previous(self) -> None:
        """Recall the previous prompt when the cursor is on the first line; else move up."""
        if self.cursor_location[0] > 0 or not self.prompt_history:
            self.action_cursor_up()
            return
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.prompt_history)
        if self._history_index > 0:
            self._history_index -= 1
            self._show(self.prompt_history[self._history_index], at_end=False)

    def _history_next(self) -> None:
        """Recall the next prompt (then the draft) when the cursor is on the last line."""
        if self.cursor_location[0] < self.document.line_count - 1 or self._history_index is None:
            self.action_cursor_down()
            return
        self._history_index += 1
        if self._history_index >= len(self.prompt_history):
            self._history_index = None
            self._show(self._draft, at_end=True)
        else:
            self._show(self.prompt_history[self._history_index], at_end=True)

    def _show(self, text: str, *, at_end: bool) -> None:
        self.load_text(text)
        if at_end:
            self.move_cursor(self.document.end)
        else:
            self.move_cursor((0, len(self.document[0])))


class PromptRow(Horizontal):
    """The prompt with a cancel button that shows while the agent works."""

    def compose(self):
        yield PromptArea(id="prompt")

    def add_cancel_button(self) -> None:
        """Mount the (hidden until busy) cancel button: after the first frame, as Button's CSS takes ~5 ms to parse."""
        if self.is_attached and not self.query("#cancel"):
            self.mount(Button("■ cancel", id="cancel", variant="error", compact=True))
