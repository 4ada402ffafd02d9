"""The permission queue of the event controller: one dialog at a time, answered or withdrawn."""

from __future__ import annotations

from collections import deque
from concurrent.futures import InvalidStateError
from functools import partial
from pathlib import Path
from typing import Any

from tui.agent import events as ev
from tui.agent.events import PermissionReply

#: after an answer that adds a rule, the next queued dialog waits at most this long for the engine's word
RULE_WAIT_S = 0.5


class PermissionHandlers:
    """EventController's permission handlers (it holds `app`, `_tools`, `_permissions` and `dialog`)."""

    app: Any
    dialog: Any
    _tools: dict[str, Any]
    _permissions: deque[ev.PermissionRequested]
    _sync_tool: Any
    _update_running_state: Any
    #: the tool call whose answer added a rule, until the engine applies it (set on first use)
    _rule_pending: str | None

    async def on_permission_requested(self, e: ev.PermissionRequested) -> None:
        entry = self._tools.get(e.tool_use_id) if e.loop_path == "main" else None
        if entry is not None:
            entry[0].state = "waiting"
            self._sync_tool(entry[0])
        self._permissions.append(e)
        if self.dialog is not None:
            self.dialog.set_queued(len(self._permissions))
        self._show_next_permission()

    def _show_next_permission(self) -> None:
        if self.dialog is not None or getattr(self, "_rule_pending", None) is not None:
            return
        while self._permissions and self._permissions[0].reply.done():
            self._permissions.popleft()
        if not self._permissions:
            self._update_running_state()
            return
        from .screens.permission_dialog import PermissionDialog, rule_places

        request = self._permissions.popleft()
        policy = getattr(self.app.session, "policy", None)
        project_dir = getattr(policy, "project_dir", None) or self.app.options.project_dir
        places = rule_places(Path(project_dir), getattr(policy, "trusted", True))
        self.dialog = PermissionDialog(
            request, grace_s=self.app.permission_grace_s, queued=len(self._permissions), places=places
        )
        self.app.status.set_state("waiting for approval")
        self.app.push_screen(self.dialog, callback=partial(self._permission_answered, request))

    def _permission_answered(self, request: ev.PermissionRequested, reply: PermissionReply | None) -> None:
        self.dialog = None
        if reply is not None and not request.reply.done():
            try:
                request.reply.set_result(reply)
            except InvalidStateError:  # the engine resolved it (interrupt) in the meantime
                pass
        if reply is not None and reply.allowed and reply.scope in ("session", "always") and self._permissions:
            # the rule it adds may settle the questions queued behind it (dispatch's PendingAsks): show the
            # next one after the engine has said so, not a dialog that would close again at once
            self._rule_pending = request.tool_use_id
            self.app.set_timer(RULE_WAIT_S, partial(self._rule_applied, request.tool_use_id))
            return
        self._show_next_permission()

    def _rule_applied(self, tool_use_id: str) -> None:
        if getattr(self, "_rule_pending", None) == tool_use_id:
            self._rule_pending = None
            self._show_next_permission()

    async def on_permission_resolved(self, e: ev.PermissionResolved) -> None:
        self._rule_applied(e.tool_use_id)
        self.withdraw_if_shown(e)
        entry = self._tools.get(e.tool_use_id)
        if entry is not None and entry[0].state == "waiting":
            entry[0].state = "queued" if e.allowed else "denied"
            self._sync_tool(entry[0])

    def withdraw_if_shown(self, e: ev.PermissionResolved) -> None:
        shown = self.dialog.event if self.dialog is not None else None
        if shown is not None and (shown.tool_use_id, shown.loop_path) == (e.tool_use_id, e.loop_path):
            self.dialog.withdraw()  # answered elsewhere (interrupt): close it, answer nothing

    def withdraw_permissions(self) -> None:
        self._permissions.clear()
        if self.dialog is not None:
            self.dialog.withdraw()
