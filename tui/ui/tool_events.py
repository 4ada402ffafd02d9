"""The tools' events in the app: a call queued, started, streaming output, finished, or blocked by the sandbox.

A mixin of `EventController` (tui/ui/events.py), kept apart so that file stays about the loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.agent import events as ev

from .widgets.blocks import ToolCallBlock
from .widgets.conversation_model import BlockRecord, ToolRecord

if TYPE_CHECKING:
    from .app import AgentApp
    from .widgets.conversation_model import TurnRecord


class ToolHandlers:
    """Handlers the controller maps ToolQueued, ToolStarted, ToolOutput, ToolFinished and SandboxBlocked to."""

    app: AgentApp
    turn: TurnRecord | None
    turn_number: int
    _tools: dict[str, tuple[ToolRecord, ToolCallBlock | None]]

    async def _mount(self, widget: Any) -> None:
        raise NotImplementedError

    def _sync_tool(self, tool: ToolRecord) -> None:
        raise NotImplementedError

    async def _tool(self, tool_use_id: str, name: str) -> ToolRecord:
        if tool_use_id not in self._tools:  # no BlockStarted seen (e.g. a resumed turn)
            tool = ToolRecord(tool_use_id, name)
            if self.turn:
                self.turn.add(BlockRecord("tool", tool=tool))
            block = ToolCallBlock(tool)
            self._tools[tool_use_id] = (tool, block)
            await self._mount(block)
        return self._tools[tool_use_id][0]

    async def on_tool_queued(self, e: ev.ToolQueued) -> None:
        tool = await self._tool(e.tool_use_id, e.name)
        tool.label, tool.batch, tool.parallel = e.label, e.batch, e.parallel
        tool.state, tool.queued_at = "queued", e.ts
        self.app.tool_panel.add_tool(tool, self.turn_number)
        self._sync_tool(tool)

    async def on_tool_started(self, e: ev.ToolStarted) -> None:
        tool = await self._tool(e.tool_use_id, e.name)
        tool.state, tool.started_at = "running", e.ts
        self._sync_tool(tool)

    async def on_tool_output(self, e: ev.ToolOutput) -> None:
        entry = self._tools.get(e.tool_use_id)
        if entry is not None:
            entry[0].add_output(e.chunk)  # the panel's 0.1 s clock redraws it

    async def on_tool_finished(self, e: ev.ToolFinished) -> None:
        tool = await self._tool(e.tool_use_id, e.name)
        tool.state = e.status
        tool.is_error, tool.result_text = e.is_error, e.result_text
        tool.duration_ms, tool.finished_at = e.duration_ms, e.ts
        if tool.started_at is None:
            tool.started_at = e.ts - e.duration_ms / 1000
        self._sync_tool(tool)

    async def on_diagnostics(self, e: ev.DiagnosticsReported) -> None:
        """An edit's diagnostics: their count on its block's title, the errors of edited files on the status line."""
        from tui.text.wording import plural

        entry = self._tools.get(e.tool_use_id)
        if entry is not None:
            counts = [plural(e.errors, "error")] if e.errors else []
            counts += [plural(e.warnings, "warning")] if e.warnings else []
            entry[0].diagnostics = f"{', '.join(counts) or 'no errors'} ({e.server})"
            self._sync_tool(entry[0])
        lsp = getattr(self.app.session, "lsp", None)
        self.app.status.lsp_errors = lsp.error_count() if lsp is not None else 0

    async def on_lsp_problem(self, e: ev.LspProblem) -> None:
        """A language server failed or exited: named on the status line until /lsp is opened."""
        self.app.status.lsp_problem = e.server

    async def on_sandbox_blocked(self, e: ev.SandboxBlocked) -> None:
        entry = self._tools.get(e.tool_use_id)
        if entry is not None:
            entry[0].sandbox_blocked = e.blocked
            self.app.tool_panel.redraw()
