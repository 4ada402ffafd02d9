"""Notifications while the terminal is not focused: a dialog waits for you, or a long turn ended.

The terminal tells the app when it gains or loses focus (focus reporting); one that never reports
counts as unfocused, so a dialog is never missed. What is written comes from
tui/ui/terminal_notify.py under the `notifications` setting; the `Notification` hook runs alongside
(for permission prompts the engine already fires it, for every prompt).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events

from .terminal_notify import sequence

if TYPE_CHECKING:
    from tui.agent.events import Event

    from .app import AgentApp

TITLE = "agent-tui"


class FocusReports:
    """App mixin: whether the terminal has reported focus at all (until it does, it counts as unfocused)."""

    focus_reported = False

    def on_app_focus(self, event: events.AppFocus) -> None:
        self.focus_reported = True

    def on_app_blur(self, event: events.AppBlur) -> None:
        self.focus_reported = True


class Notifier:
    """Watches engine events and notifies when the user is away and something needs them."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self._settings: tuple[str, float] | None = None
        #: (notification_type, body) of every notification sent, for tests and the curious
        self.sent: list[tuple[str, str]] = []

    def settings(self) -> tuple[str, float]:
        """The `notifications` style and `notify_after` seconds (read once, when first needed)."""
        if self._settings is None:
            style, after = "auto", 10.0
            try:
                from tui.config.settings import load_settings

                loaded = load_settings(Path(self.app.options.project_dir)).settings
                style, after = loaded.notifications, float(loaded.notify_after)
            except Exception:  # a settings problem is reported at start; notifications keep their defaults
                pass
            self._settings = (style, after)
        return self._settings

    def away(self) -> bool:
        """True unless the terminal reported that it has focus now."""
        return not (getattr(self.app, "focus_reported", False) and self.app.app_focus)

    def observe(self, event: Event) -> None:
        """Notify for the events that wait for the user (called for every event the app handles)."""
        from tui.agent import events as ev  # loaded by then: the app imports this module before the engine

        if isinstance(event, ev.PermissionRequested):
            self.notify("permission_prompt", f"Permission needed: {event.label or event.tool_name}", hook=False)
        elif isinstance(event, ev.UserQuestionAsked):
            what = "A plan waits for your approval" if event.kind == "plan" else "A question waits for your answer"
            self.notify("elicitation_dialog", what)
        elif (
            isinstance(event, ev.TurnFinished)
            and event.loop_path == "main"
            and event.duration_ms / 1000 > self.settings()[1]
        ):
            outcome = "stopped" if event.is_error else "finished"
            self.notify("idle_prompt", f"The turn {outcome} after {event.duration_ms // 1000} s")

    def notify(self, kind: str, body: str, *, hook: bool = True) -> None:
        """Write the notification when the user is away (and fire the Notification hook with it)."""
        style = self.settings()[0]
        if style == "off" or not self.away():
            return
        self.sent.append((kind, body))
        out = sequence(style, TITLE, body, os.environ)
        driver: Any = getattr(self.app, "_driver", None)
        if out and driver is not None and not driver.is_headless:
            driver.write(out)
        hooks = getattr(self.app._session, "hooks", None)
        if hook and hooks is not None:
            hooks.notify(kind, body)
