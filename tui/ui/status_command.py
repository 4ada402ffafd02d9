"""Runs the `statusLine` command when what it is told about changes, at most every 300 ms, off the UI thread."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches

from .threads import call_soon_from_thread

if TYPE_CHECKING:
    from .app import AgentApp

#: Claude Code refreshes its status line at most this often
REFRESH_S = 0.3


class StatusCommandRefresher:
    """Checks every REFRESH_S whether the session changed; if so (and no run is going), runs the command."""

    def __init__(self, app: AgentApp, command: str) -> None:
        self.app = app
        self.command = command
        self.started = time.monotonic()
        self.signature: Any = None
        self.running = False
        self.runs = 0
        self.timer = app.set_interval(REFRESH_S, self.tick)
        self.tick()

    def _signature(self) -> Any:
        session = self.app.session
        usage = tuple(sorted((session.usage_totals or {}).items()))
        return (
            session.options.model,
            getattr(session.policy, "mode", ""),
            session.cost_usd,
            len(session.messages),
            usage,
            self.app.status.state,
        )

    def tick(self) -> None:
        if self.running:
            return
        try:
            signature = self._signature()
        except NoMatches:  # the app is closing and its footer is gone: nothing to refresh
            return
        if signature == self.signature:
            return
        from tui.hooks.status_command import status_payload

        self.signature, self.running = signature, True
        payload = status_payload(self.app.session, duration_ms=int((time.monotonic() - self.started) * 1000))
        self.app.run_worker(partial(self._run, payload), thread=True, group="status-line", exit_on_error=False)

    def _run(self, payload: dict[str, Any]) -> None:
        from tui.hooks.status_command import run_status_command

        try:
            line = run_status_command(self.command, payload, Path(self.app.options.project_dir))
        except Exception:  # a status line is decoration: it never takes the app down
            line = ""
        call_soon_from_thread(self.app, self._show, line)

    def _show(self, line: str) -> None:
        self.running = False
        self.runs += 1
        try:
            self.app.status.custom = line
        except NoMatches:  # the app closed while the command ran
            pass


def start(app: AgentApp, command: str) -> StatusCommandRefresher:
    """Begin refreshing the footer's status text from `command`."""
    refresher = StatusCommandRefresher(app, command)
    app.status_command = refresher  # type: ignore[attr-defined]
    return refresher
