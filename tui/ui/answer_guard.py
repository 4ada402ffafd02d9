"""When a key may answer a dialog: never one that arrived before the dialog was drawn, in its grace time, in a burst,
or in a stream of typing.

A key is judged by when it *arrived* (Textual stamps each key as the input thread reads it),
not by when the UI got round to it: a key typed while the dialog was still being built sits
in a queue and would otherwise reach the dialog after any grace time measured from its
construction had run out. A burst (keys closer together than a person types: a paste that
came without bracketed-paste markers, or keys queued while the app was busy) never answers.
Nor does typing that was going to the prompt: a key that follows the previous keystroke (wherever
that one went) by less than the grace time is typed ahead, unless it is a deliberate choice, an
arrow key or the Enter (or Space, ticking a box) right after one. Typed-ahead keys go back to the prompt (vetted_screen.py).
"""

from __future__ import annotations

from collections import deque

#: keys that arrive this soon after the dialog was drawn, or this soon after the previous keystroke,
#: are not answers (Vibe uses 0.5 s; typing runs at 100-300 ms a key)
GRACE_S = 0.5
#: keys closer together than this are a burst (a person's fastest key-to-key gap is ~30-50 ms;
#: the keys of a paste or a queue arrive within microseconds of each other)
BURST_GAP_S = 0.025
#: how many arrival times are kept (a burst check needs only the neighbours of one key)
KEPT_ARRIVALS = 256
#: keys that only move a highlight or focus: a deliberate choice, admitted even straight after typing
NAVIGATION = frozenset({"up", "down", "left", "right", "tab", "shift+tab", "pageup", "pagedown", "home", "end"})


class AnswerGuard:
    """Arrival times of the keys seen while a dialog is open, and the rules for when one may answer it."""

    def __init__(self, grace_s: float = GRACE_S, burst_gap_s: float = BURST_GAP_S) -> None:
        self.grace_s = grace_s
        #: grace 0 (tests that drive the dialog instantly) turns the burst check off, too
        self.burst_gap_s = burst_gap_s if grace_s > 0 else 0.0
        #: monotonic time the dialog was first drawn; None until then
        self.shown_at: float | None = None
        self._arrivals: deque[float] = deque(maxlen=KEPT_ARRIVALS)
        #: keys ignored because they arrived before the dialog was drawn or in its grace time
        self.dropped = 0
        #: keys ignored because they came too soon after the previous keystroke (typing going on)
        self.typed_ahead = 0
        #: arrival time of the last keystroke before the dialog opened (the app's), if any
        self.before: float | None = None
        #: the last key admitted was an arrow key (so an Enter straight after it is a choice)
        self._navigated = False

    def shown(self, now: float) -> None:
        """The dialog is on screen (first call wins)."""
        if self.shown_at is None:
            self.shown_at = now

    def armed_at(self) -> float | None:
        """The time from which keys count, or None while the dialog is not drawn yet."""
        return None if self.shown_at is None else self.shown_at + self.grace_s

    def admit(self, arrived: float, key: str = "", *, typing_text: bool = False) -> bool:
        """Record a key that arrived at `arrived`; False if it must not reach the dialog at all.

        `typing_text`: the dialog's own text box has the focus, so keys in a row are its text, not answers.
        """
        previous = self._arrivals[-1] if self._arrivals else self.before
        self._arrivals.append(arrived)
        start = self.armed_at()
        if start is None or arrived < start:
            self.dropped += 1
            self._navigated = False
            return False
        navigation = key in NAVIGATION
        choice = key in ("enter", "space") and self._navigated  # Enter or a tick right after an arrow key
        deliberate = typing_text or navigation or choice
        self._navigated = navigation or (choice and key == "space")
        gap = arrived - previous if previous is not None else None
        # keys closer than a burst gap are a paste or a queue: in_burst keeps them from answering
        if gap is not None and self.burst_gap_s <= gap < self.grace_s and not deliberate:
            self.typed_ahead += 1
            return False
        return True

    def in_burst(self, arrived: float) -> bool:
        """True if another key arrived within `burst_gap_s` of the key that arrived at `arrived`."""
        if self.burst_gap_s <= 0:
            return False
        near = sum(1 for t in self._arrivals if abs(t - arrived) < self.burst_gap_s)
        return near > 1  # the key itself is one of them
