"""A modal screen answered only by keys the user pressed while looking at it (the rules live in answer_guard)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import events
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Input, Static, TextArea

from ..answer_guard import AnswerGuard

BURST_NOTICE = "Ignored keys that arrived together (a paste?): press the key again to answer."
TYPING_NOTICE = (
    "Your typing goes to the prompt: pause, then press a key to answer (or choose with the arrows and Enter)."
)
PASTE_NOTICE = "Pasted text is not an answer: press a key to choose."


class VettedScreen(ModalScreen[Any]):
    """Drops keys that arrived before the first paint, in the grace time or in a stream of typing, and answers
    nothing a burst asked for. The text of the keys it dropped goes back to the prompt when it closes.

    The app passes every key and paste from the terminal through `admit_input` first; a subclass
    answers through `answer_when_sure`, and shows notices with `show_notice`.
    """

    paste_notice = PASTE_NOTICE

    def start_vetting(self, grace_s: float) -> None:
        """Call from __init__: keys count from `grace_s` seconds after the first paint."""
        self.guard = AnswerGuard(grace_s)
        #: arrival time of the key being handled (None after a click)
        self._key_time: float | None = None
        #: the text of the keys typed ahead (dropped here): it goes back to the prompt
        self.typed_ahead: list[str] = []
        self.typed_ahead_told = False

    def on_mount(self) -> None:
        self.guard.before = getattr(self.app, "last_key_time", None)
        self.add_class("-arming")
        self.call_after_refresh(self._drawn)

    def on_unmount(self) -> None:
        if text := "".join(self.typed_ahead):
            self.app.call_later(give_back, self.app, text)

    def _drawn(self) -> None:
        self.guard.shown(time.monotonic())
        self.set_timer(max(self.guard.grace_s, 0.001), lambda: self.remove_class("-arming"))

    @property
    def armed(self) -> bool:
        """False until the screen has been drawn and on screen for the grace time."""
        start = self.guard.armed_at()
        return start is not None and time.monotonic() >= start

    def admit_input(self, event: events.Key | events.Paste) -> bool:
        """Called by the app for every key and paste from the terminal: False drops it."""
        if isinstance(event, events.Paste):
            if self.armed and isinstance(self.focused, Input):
                return True  # text for an input box, not an answer
            self.show_notice(self.paste_notice)
            self.typed_ahead.append(event.text)  # it was going to the prompt: it goes there when the dialog closes
            return False
        typing_text = self.armed and isinstance(self.focused, Input)
        if self.guard.admit(event.time, event.key, typing_text=typing_text):
            return True
        self._keep_typed_ahead(event)
        return False

    def _keep_typed_ahead(self, event: events.Key) -> None:
        if event.is_printable and event.character:
            self.typed_ahead.append(event.character)
        elif event.key == "backspace" and self.typed_ahead:
            self.typed_ahead.pop()
        if self.armed and self.guard.typed_ahead and not self.typed_ahead_told:
            self.typed_ahead_told = True
            self.show_notice(TYPING_NOTICE)

    async def _on_key(self, event: events.Key) -> None:
        self._key_time = event.time
        if not self.armed:  # second line of defence, for keys that did not come through admit_input
            event.stop()
            event.prevent_default()

    def on_mouse_down(self) -> None:
        self._key_time = None

    def answer_when_sure(self, answer: Callable[[], object]) -> None:
        """Run `answer` unless the key that asked for it came in a burst (looked at again once the rest would be in)."""
        key_time = self._key_time
        if key_time is None or self.guard.burst_gap_s <= 0:
            answer()
        elif self.guard.in_burst(key_time):
            self.show_notice(BURST_NOTICE)
        else:
            self.set_timer(self.guard.burst_gap_s, lambda: self.app.call_later(self._confirm, answer, key_time))

    def _confirm(self, answer: Callable[[], object], key_time: float) -> None:
        if self.guard.in_burst(key_time):
            self.show_notice(BURST_NOTICE)
        else:
            answer()

    def show_notice(self, notice: str) -> None:
        """Tell the user why a key did nothing, on the dialog's `.dialog-notice` line (a toast would wait)."""
        if not self.is_mounted:
            return
        for line in self.query(".dialog-notice").results(Static):
            line.update(Text(notice, style="bold"))
            line.display = True
            return


def give_back(app: Any, text: str) -> None:
    """Put text typed while a dialog was open (and not taken as an answer) into the prompt, where it was going."""
    try:
        prompt = app.screen_stack[0].query_one("#prompt", TextArea)
    except (NoMatches, IndexError):
        return
    prompt.insert(text)
