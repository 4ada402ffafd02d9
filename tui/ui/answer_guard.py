"""When a key may answer a dialog: never one that arrived before the dialog was drawn, in its grace time, or in a burst.

A key is judged by when it *arrived* (Textual stamps each key as the input thread reads it),
not by when the UI got round to it: a key typed while the dialog was still being built sits
in a queue and would otherwise reach the dialog after any grace time measured from its
construction had run out. A burst (keys closer together than a person types: a paste that
came without bracketed-paste markers, or keys queued while the app was busy) never answers.
"""

from __future__ import annotations

from collections import deque

#: keys that arrive this soon after the dialog was drawn are ignored (Vibe uses 0.5 s)
GRACE_S = 0.3
#: keys closer together than this are a burst (a person's fastest key-to-key gap is ~30-50 ms;
#: the keys of a paste or a queue arrive within microseconds of each other)
BURST_GAP_S = 0.025
#: how many arrival times are kept (a burst check needs only the neighbours of one key)
KEPT_ARRIVALS = 256


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

    def shown(self, now: float) -> None:
        """The dialog is on screen (first call wins)."""
        if self.shown_at is None:
            self.shown_at = now

    def armed_at(self) -> float | None:
        """The time from which keys count, or None while the dialog is not drawn yet."""
        return None if self.shown_at is None else self.shown_at + self.grace_s

    def admit(self, arrived: float) -> bool:
        """Record a key that arrived at `arrived`; False if it must not reach the dialog at all."""
        self._arrivals.append(arrived)
        start = self.armed_at()
        if start is None or arrived < start:
            self.dropped += 1
            return False
        return True

    def in_burst(self, arrived: float) -> bool:
        """True if another key arrived within `burst_gap_s` of the key that arrived at `arrived`."""
        if self.burst_gap_s <= 0:
            return False
        near = sum(1 for t in self._arrivals if abs(t - arrived) < self.burst_gap_s)
        return near > 1  # the key itself is one of them
