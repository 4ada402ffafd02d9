"""The tool belt's events in the app: background tasks, web search results, the model's questions and plans.

A mixin of `EventController` (tui/ui/events.py), kept apart so that file stays about the loop.
"""

from __future__ import annotations

from concurrent.futures import InvalidStateError
from functools import partial
from typing import TYPE_CHECKING, Any

from tui.agent import events as ev

if TYPE_CHECKING:
    from .app import AgentApp
    from .widgets.blocks import ToolCallBlock
    from .widgets.conversation_model import ToolRecord


class ToolBeltHandlers:
    """Handlers the controller maps BackgroundShellChanged, UserQuestionAsked and search results to."""

    app: AgentApp
    turn_number: int
    _tools: dict[str, tuple[ToolRecord, ToolCallBlock | None]]

    async def add_marker(self, text: str, tone: str) -> None:
        raise NotImplementedError

    def _sync_tool(self, tool: ToolRecord) -> None:
        raise NotImplementedError

    def _update_running_state(self) -> None:
        raise NotImplementedError

    async def on_background_changed(self, e: ev.BackgroundShellChanged) -> None:
        self.app.status.background = len(self.app.session.state.tasks.running())
        if e.status != "running":
            code = f" (exit code {e.exit_code})" if e.exit_code is not None else ""
            await self.add_marker(
                f"background task {e.task_id} {e.status}{code}: {e.description}",
                "info" if e.status == "completed" else "warn",
            )

    def _server_tool_called(self, tool: ToolRecord, e: ev.BlockFinished) -> None:
        from .server_tools import search_label

        tool.label, tool.state, tool.started_at = search_label(e.block), "running", e.ts
        self._sync_tool(tool)

    async def _server_tool_result(self, e: ev.BlockFinished) -> None:
        from .server_tools import finish_search

        entry = self._tools.get(str(e.block.get("tool_use_id")))
        if entry is None:
            return
        tool, block = entry
        finish_search(tool, e.block, e.ts)
        self.app.tool_panel.add_tool(tool, self.turn_number)
        self._sync_tool(tool)
        if block is not None and not tool.is_error:
            block.collapsed = False  # the links are the point of a search

    async def on_mode_changed(self, e: ev.PermissionModeChanged) -> None:
        """The status line follows the mode, whoever changed it (a hook, the Agent SDK, Shift+Tab)."""
        self.app.status.mode = e.mode
        if e.by not in ("Shift+Tab", "the approved plan"):
            await self.add_marker(f"Permission mode: {e.mode} (set by {e.by})", "info")

    async def on_user_question(self, e: ev.UserQuestionAsked) -> None:
        from .screens.question_dialog import PlanDialog, QuestionDialog

        grace = self.app.permission_grace_s
        if e.kind == "plan":
            dialog: Any = PlanDialog(str(e.payload.get("plan", "")), e.reply, grace_s=grace)
        else:
            dialog = QuestionDialog(list(e.payload.get("questions", [])), e.reply, grace_s=grace)
        self.app.status.set_state(
            "waiting for approval", "of the plan" if e.kind == "plan" else "(answer the question)"
        )
        self.app.push_screen(dialog, callback=partial(self._user_answered, e))

    def _user_answered(self, e: ev.UserQuestionAsked, answer: dict[str, Any] | None) -> None:
        if e.reply.done():
            return
        if answer is not None and answer.get("choice") in ("auto", "ask"):  # the plan is approved: leave plan mode
            mode = "acceptEdits" if answer["choice"] == "auto" else "default"
            self.app.session.set_permission_mode(mode, "the approved plan")
            self.app.status.mode = self.app.session.permission_mode
        try:
            e.reply.set_result(answer if answer is not None else {"dismissed": True})
        except InvalidStateError:  # interrupted meanwhile
            pass
        self._update_running_state()
