"""Subagent events on the UI side: nested into the Agent call's block, the tool panel and the dialog queue.

The main loop's events go through `EventController`; an event whose `loop_path` is not `main`
comes here. A subagent's tool calls become child records of the Agent call that started it
(counted on that call's folded title, drawn live inside the block once opened, deeper agents
indented), rows of the tool panel under the agent's name, and its permission requests join the
one dialog queue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.agent import events as ev
from tui.text.wording import plural

from .widgets.conversation_model import ToolRecord
from .widgets.status_line import human_tokens

if TYPE_CHECKING:
    from .events import EventController


class SubagentEvents:
    """Keeps each subagent's tool records and redraws the Agent block they belong to."""

    def __init__(self, controller: EventController) -> None:
        self.controller = controller
        #: loop path of a subagent -> the Agent call that started it
        self.agents: dict[str, ToolRecord] = {}
        #: (loop path, tool_use id) -> record, for every subagent's calls (ids may repeat across agents)
        self.tools: dict[tuple[str, str], ToolRecord] = {}
        #: loop path -> the tool_use id of the top-level Agent call whose block shows it
        self.top: dict[str, str] = {}
        self.handlers: dict[type[ev.Event], Any] = {
            ev.SubagentStarted: self.on_started,
            ev.SubagentFinished: self.on_finished,
        }

    def clear(self) -> None:
        self.agents.clear()
        self.tools.clear()
        self.top.clear()

    def _record(self, loop_path: str, tool_use_id: str) -> ToolRecord | None:
        if loop_path == "main":
            entry = self.controller._tools.get(tool_use_id)
            return entry[0] if entry is not None else None
        return self.tools.get((loop_path, tool_use_id))

    def _redraw(self, loop_path: str) -> None:
        """Redraw the top-level Agent block holding `loop_path`, at most once per frame.

        The tool panel needs no call: its 0.1 s clock redraws it while any call is unfinished.
        """
        entry = self.controller._tools.get(self.top.get(loop_path, ""))
        if entry is not None and entry[1] is not None:
            self.controller._sync_soon(entry[1])

    async def on_started(self, e: ev.SubagentStarted) -> None:
        record = self._record(e.loop_path, e.tool_use_id)
        if record is None:
            return
        record.agent_path = e.agent_path
        self.agents[e.agent_path] = record
        self.top[e.agent_path] = self.top.get(e.loop_path, e.tool_use_id)
        # the block stays folded (its title says how far the subagent got; the tool panel lists its calls):
        # unfolding eight blocks at once, and folding them again, re-laid out the whole conversation each time
        self._redraw(e.agent_path)

    async def on_finished(self, e: ev.SubagentFinished) -> None:
        record = self.agents.get(e.agent_path)
        if record is None:
            return
        parts = [plural(e.tool_uses, "tool call"), f"{human_tokens(e.total_tokens)} tokens"]
        if e.worktree_branch:
            parts.append(f"branch {e.worktree_branch}")
        record.agent_summary = " · ".join(parts)
        for child in record.children:
            if not child.is_final:
                child.state = "interrupted"
        self._redraw(e.agent_path)  # the fold is the user's: a block they opened stays open

    async def handle(self, e: ev.Event) -> None:
        """One event of a subagent's loop."""
        handler = self.handlers.get(type(e))
        if handler is not None:
            await handler(e)
        elif isinstance(e, ev.ToolQueued):
            parent = self.agents.get(e.loop_path)
            child = ToolRecord(
                e.tool_use_id, e.name, label=e.label, batch=e.batch, parallel=e.parallel, state="queued", queued_at=e.ts
            )
            self.tools[(e.loop_path, e.tool_use_id)] = child
            if parent is not None:
                parent.children.append(child)
            self.controller.app.tool_panel.add_tool(child, self.controller.turn_number, e.loop_path)
            self._redraw(e.loop_path)
        elif isinstance(e, (ev.ToolStarted, ev.ToolFinished, ev.PermissionResolved)):
            self._update(e)
        elif isinstance(e, ev.ToolOutput):
            if (known := self.tools.get((e.loop_path, e.tool_use_id))) is not None:
                known.add_output(e.chunk)
        elif isinstance(e, ev.PermissionRequested):
            if (known := self.tools.get((e.loop_path, e.tool_use_id))) is not None:
                known.state = "waiting"
                self._redraw(e.loop_path)
            await self.controller.on_permission_requested(e)
        elif isinstance(e, ev.ResponseFinished):
            self.controller.add_usage(e)
        elif isinstance(e, ev.Notice):
            await self.controller.on_notice(e)

    def _update(self, e: ev.ToolStarted | ev.ToolFinished | ev.PermissionResolved) -> None:
        child = self.tools.get((e.loop_path, e.tool_use_id))
        if isinstance(e, ev.PermissionResolved):
            self.controller.withdraw_if_shown(e)
            if child is not None and child.state == "waiting":
                child.state = "queued" if e.allowed else "denied"
        elif child is None:
            return
        elif isinstance(e, ev.ToolStarted):
            child.state, child.started_at = "running", e.ts
        else:
            child.state, child.is_error, child.result_text = e.status, e.is_error, e.result_text
            child.duration_ms, child.finished_at = e.duration_ms, e.ts
            if child.started_at is None:
                child.started_at = e.ts - e.duration_ms / 1000
        self._redraw(e.loop_path)
