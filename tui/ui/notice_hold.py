"""A notice never covers a question: toasts raised while a dialog asks wait, and come when it is answered.

Textual draws toasts on the top screen, over a dialog's answers. So `AgentApp.notify` offers each
notice here first: while a dialog that asks (a VettedScreen: trust, permission, question, plan,
compaction, MCP approval) is on the stack it is held (the same text once), and the toasts already on
screen when one opens are taken down and held too. When no such dialog is left the held notices are
shown, in order. A dialog says its own notices on its own line (VettedScreen.show_notice).
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from .screens.vetted_screen import VettedScreen

if TYPE_CHECKING:
    from textual.app import App

#: Textual's default toast time, for a notice raised without a timeout
DEFAULT_TIMEOUT_S = 5.0


class NoticeHold:
    """Holds the app's toasts while a dialog that asks is on the stack."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        #: (message, notify keyword arguments) waiting for the modals to close
        self.held: list[tuple[str, dict[str, Any]]] = []
        #: (time shown, message, keyword arguments) of recent toasts, to take down when a modal opens
        self._shown: deque[tuple[float, str, dict[str, Any]]] = deque(maxlen=20)
        app.screen_change_signal.subscribe(app, self.screen_changed)

    def covered(self) -> bool:
        """A dialog that asks is open (a toast would be drawn over it, or over what covers it)."""
        return any(isinstance(screen, VettedScreen) for screen in self.app.screen_stack)

    def offer(self, message: str, kwargs: dict[str, Any]) -> bool:
        """True when the notice is held (a dialog asks); else it is remembered as shown now."""
        if self.covered():
            if (message, kwargs.get("title")) not in {(m, k.get("title")) for m, k in self.held}:
                self.held.append((message, dict(kwargs)))
            return True
        self._shown.append((time.monotonic(), message, dict(kwargs)))
        return False

    def _take_down(self) -> None:
        """Hold the toasts shown lately that are still up, and clear them from the screen."""
        if not self.covered():
            return
        now = time.monotonic()
        live = [(m, k) for shown, m, k in self._shown if now - shown < (k.get("timeout") or DEFAULT_TIMEOUT_S)]
        self._shown.clear()
        if live:
            self.app.clear_notifications()
            self.held[:0] = [notice for notice in live if notice not in self.held]

    def screen_changed(self, screen: Screen[Any]) -> None:
        """A dialog that asks opened: take the toasts down and hold them; none is left: show what waits."""
        if self.covered():
            # Textual's notify posts a message: take the toasts down after those already on their way
            self.app.call_later(self._take_down)
            return
        held, self.held = self.held, []
        for message, kwargs in held:
            self.app.notify(message, **kwargs)
