"""The app's keys that stop things: Esc interrupts a turn or a /compact, Ctrl+C copies, cancels or quits."""

from __future__ import annotations

import time
from typing import Any

#: seconds within which a second Ctrl+C quits
QUIT_CONFIRM_S = 2.0


class InterruptKeys:
    """Actions of AgentApp (a mixin)."""

    #: a /compact runs (between turns): Esc and Ctrl+C cancel it, the history stays as it was
    compacting = False
    _last_ctrl_c = 0.0

    def action_interrupt(self) -> None:
        app: Any = self
        if app.controller.busy or self.compacting:
            app.session.cancel()
            app.status.set_state("interrupting")
        else:
            if not app.conversation.following:
                app.conversation.jump_to_bottom()
            from .screens.rewind_screen import escape_pressed

            escape_pressed(app)  # Esc Esc on an empty prompt: the rewind list

    def action_interrupt_or_quit(self) -> None:
        """Ctrl+C: copy a selection in the prompt, cancel a /compact, else quit on the second press."""
        app: Any = self
        prompt = app.prompt_area
        if prompt.has_focus and prompt.selected_text:
            prompt.action_copy()
            return
        if self.compacting:
            self.action_interrupt()
            return
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_CONFIRM_S:
            self.action_quit_now()
            return
        self._last_ctrl_c = now
        app.notify("Press Ctrl+C again to quit.", timeout=QUIT_CONFIRM_S)

    def action_quit_now(self) -> None:
        app: Any = self
        app.exit(0)  # exit() interrupts the turn
