"""The prompt: a multi-line TextArea where Enter sends and Ctrl+J adds a newline, with history.

It holds at most MAX_PROMPT_CHARS: a bigger paste keeps its first part, and the whole paste is
saved to a file named in the notice, so nothing is lost.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.actions import SkipAction
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, TextArea

from ..bindings import bindings_for
from ..paste_cap import MAX_PROMPT_CHARS, cut_paste, full_notice
from .ordered_keys import run_own_binding
from .wrap_cache import caching_height

#: a big paste goes in this many characters per frame (soft-wrapping 16 KiB takes ~20 ms; 256 KiB at once ~300 ms)
PASTE_PART_CHARS = 16 * 1024


class PromptArea(TextArea):
    """TextArea with submit, newline and history bindings from the registry."""

    BINDINGS = bindings_for("prompt")

    class Submitted(Message):
        """The user pressed Enter on a non-empty prompt."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            "",
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            placeholder="Ask the agent…  Enter sends · Ctrl+J newline · /help",
        )
        # compact, without the restyle TextArea's `compact=True` asks for from __init__ (~0.5 ms before the
        # first frame, for a node not mounted yet: its styles are computed when it mounts anyway)
        self.set_reactive(TextArea.compact, True)
        self.add_class("-textual-compact", update=False)
        self.prompt_history: list[str] = []
        self._history_index: int | None = None  # None = editing a new prompt
        self._draft = ""
        #: parts of a big paste still to insert, one per frame
        self._paste_rest: list[str] = []
        #: the `/` and `@` completion menu (completion.py); while open it takes Up/Down/Tab/Enter/Esc
        self.completer: Any = None
        #: vi keys, Ctrl+R search, Ctrl+G editor, Tab thinking and the saved history (prompt_keys.py)
        self.keys: Any = None
        #: messages queued while a turn runs (prompt_queue.py): on an empty prompt Up edits the newest, Esc takes all back
        self.queue: Any = None
        #: images for the next prompt, shown as chips above it (prompt_images.py)
        self.images: Any = None

    @property
    def wrapped_document(self) -> Any:
        """TextArea's wrapped document, with its height cached (wrap_cache.py)."""
        return self._wrapped_document

    @wrapped_document.setter
    def wrapped_document(self, document: Any) -> None:
        self._wrapped_document = caching_height(document)

    # Priority bindings run on the app's queue, while typed characters are inserted from
    # this widget's own queue; in a burst ("hi" + Enter arriving together) the binding
    # would run before the characters land. Each action therefore queues itself behind
    # the keys already waiting here.

    async def _on_paste(self, event: events.Paste) -> None:
        """Insert a paste, cut to what still fits in the prompt (with a notice naming where the rest went)."""
        event.prevent_default()  # instead of TextArea's own handler, which would insert all of it
        if self.read_only:
            return
        if self.images is not None and self.images.paste(event.text):  # a dropped image file: a chip
            return
        pending = sum(map(len, self._paste_rest))
        room = MAX_PROMPT_CHARS - (self._length() + pending - len(self.selected_text))
        text, notice = cut_paste(event.text, room)
        if notice:
            self.notify(notice, severity="warning", timeout=20)
        parts = [text[i : i + PASTE_PART_CHARS] for i in range(0, len(text), PASTE_PART_CHARS)]
        if parts and not self._paste_rest:
            self._insert_part(parts.pop(0))
            if parts:
                self.call_after_refresh(self._insert_next_part)
        self._paste_rest.extend(parts)

    def _insert_part(self, text: str) -> None:
        if result := self._replace_via_keyboard(text, *self.selection):
            self.move_cursor(result.end_location)
            self.focus()

    def _insert_next_part(self) -> None:
        """Insert the next part of a big paste, and schedule the one after it for the next frame."""
        if self._paste_rest:
            self._insert_part(self._paste_rest.pop(0))
        if self._paste_rest:
            self.call_after_refresh(self._insert_next_part)

    async def _on_key(self, event: events.Key) -> None:
        """A full prompt takes no more typing (TextArea's handler runs after this one unless prevented)."""
        if self.keys is not None and self.keys.on_key(event):  # Ctrl+R search, vi normal mode
            return
        if event.key in ("tab", "escape") and self.completer is not None and self.completer.key(event.key):
            event.stop()
            event.prevent_default()
            return
        if event.key == "escape" and self.queue is not None and self.queue.take_back(self):
            event.stop()
            event.prevent_default()
            return
        if event.is_printable and self._length() >= MAX_PROMPT_CHARS and not self.selected_text:
            event.stop()
            event.prevent_default()
            self.notify(full_notice(), severity="warning")
            return
        await run_own_binding(self, event)  # ^A ^K "text" in one burst: in that order (ordered_keys.py)

    def _length(self) -> int:
        """Characters in the prompt (newlines counted), without joining the text."""
        lines = self.document.lines
        return sum(map(len, lines)) + len(lines) - 1

    def action_submit(self) -> None:
        # Enter is a priority binding, run by the app while keys typed just before it may still wait in this
        # widget's queue ("/context" + Enter written at once): decide behind them, on the text as typed
        self.call_later(self._enter)

    def _enter(self) -> None:
        if self.keys is not None and self.keys.enter():  # Enter ends a Ctrl+R search with its match
            return
        if self.completer is not None and self.completer.key("enter"):
            return
        self._submit()

    def action_newline(self) -> None:
        self.call_later(self.insert, "\n")

    def action_history_previous(self) -> None:
        if self.keys is not None:
            self.keys.leave_search()
        if self.completer is not None and self.completer.key("up"):
            return
        self.call_later(self._history_previous)

    def action_history_next(self) -> None:
        if self.keys is not None:
            self.keys.leave_search()
        if self.completer is not None and self.completer.key("down"):
            return
        self.call_later(self._history_next)

    def _submit(self) -> None:
        if self._paste_rest:  # a paste is still going in: send once all of it is there
            self.call_after_refresh(self._submit)
            return
        text = self.text.strip()
        if not text and not (self.images is not None and self.images.count):  # images alone may go
            return
        if text and (not self.prompt_history or self.prompt_history[-1] != text):
            from ..prompt_history import HISTORY_LIMIT  # the saved history's module, not needed before a send

            self.prompt_history.append(text)
            del self.prompt_history[:-HISTORY_LIMIT]
        self._history_index = None
        self._draft = ""
        self.clear()
        if self.keys is not None:
            self.keys.submitted(text)  # kept for the next session; vi keys start over in insert mode
        self.post_message(self.Submitted(text))

    def action_search_history(self) -> None:
        """Ctrl+R: search the prompt history (reverse-i-search)."""
        if self.keys is None:
            raise SkipAction()
        self.keys.start_search()

    def action_external_editor(self) -> None:
        """Ctrl+G: edit the prompt in $VISUAL / $EDITOR."""
        if self.keys is None:
            raise SkipAction()
        self.keys.open_editor()

    def action_toggle_thinking(self) -> None:
        """Tab on an empty prompt: thinking on or off for the following prompts; otherwise Tab moves focus."""
        if self.keys is None or self.text:
            raise SkipAction()
        self.keys.toggle_thinking()

    def action_paste_image(self) -> None:
        """Ctrl+V: an image from the system clipboard becomes a chip."""
        if self.images is None:
            self.action_paste()
            return
        self.images.paste_clipboard()

    def action_remove_attachment(self) -> None:
        """Backspace: at the very start of the prompt, take the last image off; elsewhere delete left."""
        at_start = self.selection.start == self.selection.end == (0, 0)
        if not (at_start and self.images is not None and self.images.remove_last()):
            self.action_delete_left()

    def on_unmount(self) -> None:
        if self.images is not None:
            self.images.close()

    def _history_previous(self) -> None:
        """Recall the previous prompt when the cursor is on the first line; else move up."""
        if self.queue is not None and self.queue.recall(self):
            return
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

    def restore(self, text: str) -> None:
        """Put `text` back in the prompt (a rewind, a cancelled command, a busy app) with the cursor at its end."""
        self.load_text(text)
        self.move_cursor(self.document.end)

    def _show(self, text: str, *, at_end: bool) -> None:
        self._paste_rest.clear()
        if self.completer is not None:
            self.completer.dismiss(text)  # a recalled prompt opens no menu: Up/Down keep walking the history
        self.load_text(text)
        if at_end:
            self.move_cursor(self.document.end)
        else:
            self.move_cursor((0, len(self.document[0])))


#: the prompt row's descendants that a `#prompt-row.-busy …` rule of app.tcss styles (a test reads the rules)
BUSY_STYLED = "#cancel"


class PromptRow(Horizontal):
    """The prompt with a cancel button that shows while the agent works."""

    def compose(self):
        yield PromptArea(id="prompt")

    def set_busy(self, busy: bool) -> None:
        """The `-busy` class on, or off, restyling only the nodes a `-busy` rule of app.tcss styles.

        Textual restyles the whole row on a class change, the prompt's text area most of it (~5 ms of the
        frame that starts or ends a turn); the busy rules style the row itself and BUSY_STYLED.
        """
        if self.has_class("-busy") != busy:
            self.set_class(busy, "-busy", update=False)
            self.app.stylesheet.update_nodes([self, *self.query(BUSY_STYLED)], animate=True)

    def add_cancel_button(self) -> None:
        """Mount the (hidden until busy) cancel button: after the first frame, as Button's CSS takes ~5 ms to parse."""
        if self.is_attached and not self.query("#cancel"):
            self.mount(Button("■ cancel", id="cancel", variant="error", compact=True))
