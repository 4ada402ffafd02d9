"""Engine events on the UI side: the Textual message that carries them, and the controller
that turns each one into widget changes.

The loop thread publishes on the bus; the app's inline subscriber only does
`post_message(EngineEvent(event))` (thread-safe, ~76 µs). Everything below runs on the UI
thread, in publish order, one event at a time.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches
from textual.message import Message
from textual.widget import MountError

from tui.agent import events as ev
from tui.agent.cost.pricing import web_searches
from tui.text.wording import plural

from .cost_events import CostHandlers
from .permission_events import PermissionHandlers
from .tool_belt_events import ToolBeltHandlers
from .tool_events import ToolHandlers
from .widgets.blocks import MarkerLine, ThinkingBlock, ToolCallBlock, UserPrompt, block_widget, format_seconds
from .widgets.conversation import TurnView
from .widgets.conversation_model import BlockRecord, ToolRecord, TurnRecord, image_records
from .widgets.status_line import human_tokens

if TYPE_CHECKING:
    from .app import AgentApp
    from .screens.permission_dialog import PermissionDialog
    from .widgets.reply_stream import ReplyStream

log = logging.getLogger(__name__)

INSPECTOR_EVENTS = (
    ev.RequestSent,
    ev.ResponseStarted,
    ev.ResponseFinished,
    ev.StopReasonHandled,
    ev.RequestCosted,
    ev.CacheMissed,
    ev.CompactionFinished,  # the Cost view
    # the timeline's tool bars and permission waits
    ev.ToolStarted,
    ev.ToolFinished,
    ev.PermissionRequested,
    ev.PermissionResolved,
    ev.MessagesSteered,
)
#: LoopStopped reasons that are a normal end and need no extra marker
QUIET_STOPS = ("end_turn",)


class EngineEvent(Message):
    """One engine event, posted from the loop thread to the app."""

    def __init__(self, event: ev.Event) -> None:
        super().__init__()
        self.event = event


def coalesce_deltas(batch: list[ev.Event]) -> list[ev.Event]:
    """`batch` with each run of consecutive deltas of one block merged into one delta (order kept)."""
    out: list[ev.Event] = []
    run: list[str] = []  # texts of the delta run ending out[-1]

    def close_run() -> None:
        last = out[-1] if out else None
        if len(run) > 1 and isinstance(last, ev.BlockDelta):
            out[-1] = dataclasses.replace(last, text="".join(run))

    for event in batch:
        last = out[-1] if out else None
        if (
            isinstance(event, ev.BlockDelta)
            and isinstance(last, ev.BlockDelta)
            and run
            and (last.index, last.iteration, last.delta_type, last.loop_path)
            == (event.index, event.iteration, event.delta_type, event.loop_path)
        ):
            run.append(event.text)
            continue
        close_run()
        run = [event.text] if isinstance(event, ev.BlockDelta) else []
        out.append(event)
    close_run()
    return out


class EngineEvents(Message):
    """Engine events are waiting in the app's inbox (posted once per batch, not per event)."""


class EventController(PermissionHandlers, ToolBeltHandlers, CostHandlers, ToolHandlers):
    """Maps engine events to the conversation, tool panel, status line, inspector and dialogs."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self.busy = False
        self.turn_number = 0
        self.turn: TurnRecord | None = None
        self.view: TurnView | None = None
        self._local_turn_pending = False
        self._blocks: dict[int, tuple[BlockRecord, Any]] = {}
        self._reply: ReplyStream | None = None
        self._tools: dict[str, tuple[ToolRecord, ToolCallBlock | None]] = {}
        self._dirty: set[Any] = set()
        self.batch: list[ev.Event] = []  # the engine events being handled together (frame_budget.py)
        self._flush_scheduled = False
        self._permissions: deque[ev.PermissionRequested] = deque()
        self.dialog: PermissionDialog | None = None
        self._inspector_failed = False
        self._closed = False
        self.handlers: dict[type[ev.Event], Callable[[Any], Awaitable[None]]] = {
            ev.TurnStarted: self.on_turn_started,
            ev.RequestSent: self.on_request_sent,
            ev.ResponseStarted: self.on_response_started,
            ev.BlockStarted: self.on_block_started,
            ev.BlockDelta: self.on_block_delta,
            ev.BlockFinished: self.on_block_finished,
            ev.ResponseFinished: self.on_response_finished,
            ev.StopReasonHandled: self.on_stop_reason,
            ev.ToolQueued: self.on_tool_queued,
            ev.ToolStarted: self.on_tool_started,
            ev.ToolOutput: self.on_tool_output,
            ev.ToolFinished: self.on_tool_finished,
            ev.PermissionRequested: self.on_permission_requested,
            ev.PermissionResolved: self.on_permission_resolved,
            ev.RetryScheduled: self.on_retry,
            ev.LoopStopped: self.on_loop_stopped,
            ev.TurnFinished: self.on_turn_finished,
            ev.Notice: self.on_notice,
            ev.ContextUsage: self.on_context_usage,
            ev.CompactionStarted: self.on_compaction_started,
            ev.CompactionFinished: self.on_compaction_finished,
            ev.FileChangedOutside: self.on_file_changed_outside,
            ev.TodosUpdated: self.on_todos_updated,
            ev.BackgroundShellChanged: self.on_background_changed,
            ev.UserQuestionAsked: self.on_user_question,
            ev.PermissionModeChanged: self.on_mode_changed,
            ev.HookStarted: self.on_hook_event,
            ev.HookFinished: self.on_hook_event,
            ev.SandboxBlocked: self.on_sandbox_blocked,
            ev.DiagnosticsReported: self.on_diagnostics,
            ev.LspProblem: self.on_lsp_problem,
            ev.CacheMissed: self.on_cache_missed,
            ev.CompactionProposed: self.on_compaction_proposed,
            ev.MessagePinned: self.on_message_pinned,
        }
        from .mcp_glue import mcp_handlers

        self.handlers.update(mcp_handlers(app))  # MCP (tui/ui/mcp_glue.py)
        from .prompt_queue import queue_handlers

        self.handlers.update(queue_handlers(self))  # messages typed while a turn runs (tui/ui/prompt_queue.py)
        from .notifier import Notifier

        self.notifier = Notifier(app)  # a dialog or a long turn's end, while the terminal is not focused
        from .subagent_events import SubagentEvents

        self.subagents = SubagentEvents(self)  # events of subagent loops (loop_path other than main)
        self.handlers.update(self.subagents.handlers)

    @property
    def closed(self) -> bool:
        """True once the app is shutting down: events still in flight are dropped."""
        return self._closed or bool(getattr(self.app, "_exit", False)) or not self.app.is_running

    def close(self) -> None:
        """Stop handling events (the app is quitting) and the reply's flush timer."""
        self._closed = True
        if self._reply is not None:
            self._reply.cancel()

    async def handle(self, event: ev.Event) -> None:
        if self.closed:
            return
        if isinstance(event, INSPECTOR_EVENTS):
            self.record_in_inspector(event)
        handler = self.handlers.get(type(event)) if event.loop_path == "main" else self.subagents.handle
        if handler is None:
            return
        try:
            await handler(event)
        except (NoMatches, MountError):
            if not self.closed:
                raise
            log.debug("dropped %s: the app is shutting down", event.type)
        self.notifier.observe(event)

    # --- helpers --------------------------------------------------------------------

    @property
    def conversation(self):
        return self.app.conversation

    async def _mount(self, widget: Any) -> None:
        if self.view is None:
            await self._start_turn()
        assert self.view is not None
        await self.view.mount(widget)
        self.conversation.content_added()

    async def add_marker(self, text: str, tone: str) -> None:
        """A one-line note in the current turn (or a new turn when idle)."""
        if self.turn is None:
            await self._start_turn()
        assert self.turn is not None
        self.turn.add(BlockRecord("marker", text, tone=tone, done=True))
        await self._mount(MarkerLine(text, tone))

    async def _start_turn(self) -> None:
        self.turn_number += 1
        self.turn = TurnRecord(self.turn_number)
        self.view = await self.conversation.start_turn(self.turn)
        self._blocks.clear()

    def _sync_soon(self, widget: Any) -> None:
        """Redraw `widget` at most once per frame however many deltas arrive."""
        self._dirty.add(widget)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self.app.set_timer(1 / 30, self._flush)

    def _content_added(self) -> None:
        if not self.closed:
            self.conversation.content_added()

    def _flush(self) -> None:
        self._flush_scheduled = False
        dirty, self._dirty = self._dirty, set()
        for widget in dirty:
            if widget.is_attached:
                widget.sync()
        self._content_added()

    def _sync_tool(self, tool: ToolRecord) -> None:
        _, block = self._tools.get(tool.tool_use_id, (tool, None))
        if block is not None and block.is_attached:
            block.sync()
        self.app.tool_panel.redraw()
        self._update_running_state()

    def _update_running_state(self) -> None:
        if self.dialog is not None:
            return
        running = sum(1 for t, _ in self._tools.values() if t.state == "running")
        if running:
            self.app.status.set_state("running", plural(running, "tool"))

    def record_in_inspector(self, event: ev.Event) -> None:
        if self._inspector_failed:
            return
        try:
            self.app.record_api_event(event)
        except Exception:  # the inspector must never take the conversation down
            self._inspector_failed = True
            log.exception("inspector failed to record %s", event.type)
            self.app.notify("The inspector failed; see the log.", severity="error")

    async def _freeze_live(self, final_text: str | None = None) -> None:
        """Replace the streaming reply's live tail with its cheap frozen form."""
        reply, self._reply = self._reply, None
        if reply is not None:
            await reply.finish(final_text)

    # --- user actions ---------------------------------------------------------------

    async def begin_local_turn(self, prompt: str) -> None:
        """Show the prompt at once (the engine may still be importing the SDK)."""
        self.busy = True
        self.app.set_busy(True)
        await self._start_turn()
        assert self.turn is not None
        self.turn.add(BlockRecord("user", prompt, done=True))
        await self._mount(UserPrompt(prompt))
        self._local_turn_pending = True
        self.conversation.jump_to_bottom()
        self.app.status.set_state("starting")

    def abort_local_turn(self) -> None:
        self.busy = False
        self._local_turn_pending = False
        self.app.set_busy(False)
        self.app.status.set_state("idle")
        from .prompt_queue import send_stranded

        send_stranded(self.app)

    # --- the turn -------------------------------------------------------------------

    async def on_turn_started(self, e: ev.TurnStarted) -> None:
        if not self._local_turn_pending:  # a turn submitted from elsewhere (PROMPT, tests)
            self.busy = True
            self.app.set_busy(True)
            await self._start_turn()
            assert self.turn is not None
            self.turn.add(BlockRecord("user", e.prompt, done=True))
            await self._mount(UserPrompt(e.prompt))
        self._local_turn_pending = False
        for record in image_records(e.images):  # the prompt's pictures, drawn under it (widgets/image_view.py)
            if self.turn is not None:
                self.turn.add(record)
            await self._mount(block_widget(record))
        self.app.status.set_state("waiting for model")
        from .prompt_queue import refresh

        refresh(self.app)  # a queue left by the last turn is this turn's prompt now

    async def on_request_sent(self, e: ev.RequestSent) -> None:
        self._blocks.clear()
        if e.iteration == 0:  # a compaction's summary request
            self.app.status.set_state("compacting")
            return
        parts = [f"call {e.iteration}"] * (e.iteration > 1)
        if e.attempt > 1:  # a retry: the status line keeps counting while it connects, not only while it waits
            parts.append(f"retry {e.attempt}/{getattr(self, '_max_attempts', e.attempt)}")
        self.app.status.set_state("waiting for model", f"({', '.join(parts)})" if parts else "")

    async def on_response_started(self, e: ev.ResponseStarted) -> None:
        self.app.status.set_state("streaming")

    async def on_block_started(self, e: ev.BlockStarted) -> None:
        if e.block_type == "text":
            record = BlockRecord("text")
            if self.turn:
                self.turn.add(record)
            from .frame_budget import finished_in_batch

            await self._freeze_live()
            # all of it arrived for this frame: drawn in its finished form when it ends (on_block_finished)
            self._blocks[e.index] = (record, None if finished_in_batch(self.batch, e) else await self._live(record))
            self.app.status.set_state("streaming")
        elif e.block_type in ("thinking", "redacted_thinking"):
            record = BlockRecord("thinking")
            if self.turn:
                self.turn.add(record)
            block = ThinkingBlock(record)
            self._blocks[e.index] = (record, block)
            await self._mount(block)
            self.app.status.set_state("thinking")
        elif e.block_type in ("tool_use", "server_tool_use") and e.tool_use_id:
            tool = ToolRecord(e.tool_use_id, e.tool_name or "tool")
            record = BlockRecord("tool", tool=tool)
            if self.turn:
                self.turn.add(record)
            call_block = ToolCallBlock(tool)
            self._tools[tool.tool_use_id] = (tool, call_block)
            self._blocks[e.index] = (record, call_block)
            await self._mount(call_block)

    async def _live(self, record: BlockRecord) -> ReplyStream:
        """A live Markdown tail for the text block `record`, mounted, and the stream that feeds it."""
        from .widgets.reply_stream import LiveReply, ReplyStream  # Textual Markdown: not at start-up

        live = LiveReply()
        self._reply = reply = ReplyStream(record, live, on_flush=self._content_added)
        live.stream = reply
        await self._mount(live)
        return reply

    async def on_block_delta(self, e: ev.BlockDelta) -> None:
        entry = self._blocks.get(e.index)
        if entry is None:
            return
        record, widget = entry
        if e.delta_type == "text_delta" and widget is None:
            record.text += e.text  # a reply drawn when it ends
        elif e.delta_type == "text_delta" and widget is self._reply and widget is not None:
            widget.feed(e.text)  # buffered: one Markdown write per frame, however fast tokens come
        elif e.delta_type == "thinking_delta":
            record.text += e.text
            self._sync_soon(widget)

    async def on_block_finished(self, e: ev.BlockFinished) -> None:
        if e.block.get("type") == "web_search_tool_result":
            await self._server_tool_result(e)
            return
        entry = self._blocks.get(e.index)
        if entry is None:
            return
        record, widget = entry
        record.done = True
        if record.tool is not None and e.block.get("type") == "server_tool_use":
            self._server_tool_called(record.tool, e)
        if record.kind == "text":
            if widget is None:  # arrived whole: no live Markdown mounted and removed in the same frame
                from .widgets.reply_stream import TAIL_CHARS, frozen_chunks

                record.text = e.block.get("text", record.text)
                if len(record.text) > TAIL_CHARS:  # a long one is cut as the live tail's end cuts it
                    widget = await self._live(record)
                else:
                    for chunk in frozen_chunks(record.text):  # what the live tail's end mounts
                        await self._mount(chunk)
            if widget is not None and widget is self._reply:
                await self._freeze_live(e.block.get("text", record.text))
            elif widget is not None:
                record.text = e.block.get("text", record.text)
        elif record.kind == "thinking":
            record.text = e.block.get("thinking", record.text)
            self._sync_soon(widget)

    async def on_response_finished(self, e: ev.ResponseFinished) -> None:
        await self._freeze_live()
        self.add_usage(e)

    def add_usage(self, e: ev.ResponseFinished) -> None:
        """Count a response's tokens and cost in the status line (a subagent's too)."""
        status = self.app.status
        usage = dict(status.usage or {})
        for key in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            usage[key] = usage.get(key, 0) + int(e.usage.get(key) or 0)
        usage["web_search_requests"] = usage.get("web_search_requests", 0) + web_searches(e.usage)
        status.usage = usage
        status.cost_usd += e.cost_usd

    async def on_stop_reason(self, e: ev.StopReasonHandled) -> None:
        tone = "stop-warn" if e.stop_reason in ("max_tokens", "refusal", None) else "stop"
        await self.add_marker(f"{e.stop_reason or 'no stop_reason'} → {e.action}", tone)

    # --- loop end -------------------------------------------------------------------

    async def on_retry(self, e: ev.RetryScheduled) -> None:
        status = f" (HTTP {e.status})" if e.status else ""
        await self.add_marker(
            f"↻ {e.reason}{status}, retrying in {e.delay_s:g} s, attempt {e.attempt}/{e.max_attempts}", "retry"
        )
        self._max_attempts = e.max_attempts
        self.app.status.set_state("waiting for model", f"(retry {e.attempt}/{e.max_attempts})")

    async def on_loop_stopped(self, e: ev.LoopStopped) -> None:
        await self._freeze_live()
        self.withdraw_permissions()
        for tool, _ in self._tools.values():
            if not tool.is_final:
                tool.state = "interrupted"
                self._sync_tool(tool)
        if e.reason not in QUIET_STOPS:
            tone = "error" if e.is_error else "warn"
            detail = f": {e.detail}" if e.detail else ""
            await self.add_marker(f"■ loop stopped ({e.reason}){detail}", tone)

    async def on_turn_finished(self, e: ev.TurnFinished) -> None:
        await self._freeze_live()
        u = e.usage
        total_in = sum(
            int(u.get(k) or 0) for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        )
        calls = plural(e.num_iterations, "call")
        await self.add_marker(
            f"{calls} · {format_seconds(e.duration_ms / 1000)} · {human_tokens(total_in)} in / "
            f"{human_tokens(int(u.get('output_tokens') or 0))} out · ${e.cost_usd:.4f}",
            "summary",
        )
        self.app.status.usage = dict(e.session_usage)
        self.app.status.cost_usd = e.session_cost_usd
        self._tools.clear()
        self.subagents.clear()
        self.busy = False
        self.app.set_busy(False)
        self.app.status.set_state("idle")
        from .prompt_queue import send_stranded

        send_stranded(self.app)  # typed just as the turn ended, after the engine looked for a next prompt
        from . import gc_tuning
        from .frame_budget import when_quiet

        when_quiet(self.app, gc_tuning.collect_after_turn)  # the turn's garbage, once its last frame is drawn

    async def on_hook_event(self, e: ev.HookEvent) -> None:
        from .hook_view import show_hook_event  # only once a hook has run

        await show_hook_event(self, e)

    async def on_notice(self, e: ev.Notice) -> None:
        await self.add_marker(e.text, e.level)
        if e.level != "info":
            self.app.notify(e.text, severity=e.level)

    # --- context, compaction, files, todos --------------------------------------------

    async def on_context_usage(self, e: ev.ContextUsage) -> None:
        self.app.status.set_context(e.used_tokens, e.window_tokens, e.estimated)

    async def on_file_changed_outside(self, e: ev.FileChangedOutside) -> None:
        await self.add_marker(f"↯ {e.path} changed outside the agent (it will re-read it before editing)", "info")

    async def on_todos_updated(self, e: ev.TodosUpdated) -> None:
        self.app.tool_panel.set_todos(list(e.todos))
