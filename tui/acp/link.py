"""One ACP session: an AgentSession driven by prompts, its bus events pumped to the client as updates.

A subscriber of the bus like `tui/headless/run.py`: an inline handler hands each event to the asyncio
loop, where one pump sends the updates in bus order (text deltas that arrived together go as one
chunk). A prompt runs the same turn `-p` runs (commands, `@` files, hooks, the loop) on its own
thread; its answer is sent after every update of the turn, as the protocol wants.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from acp import RequestError, update_agent_message_text, update_agent_thought_text, update_tool_call
from acp.helpers import update_current_mode
from acp.schema import Cost, PromptResponse, SessionMode, SessionModeState, UsageUpdate
from pydantic import BaseModel

from tui.agent.events import (
    BlockDelta,
    ContextUsage,
    Event,
    LoopStopped,
    McpMessage,
    Notice,
    PermissionModeChanged,
    PermissionRequested,
    RequestSent,
    ResponseFinished,
    RetryScheduled,
    TodosUpdated,
    ToolFinished,
    ToolOutput,
    ToolQueued,
    ToolStarted,
    TurnStarted,
    UserQuestionAsked,
)
from tui.text.sanitize import visible

from . import updates
from .files import ClientFiles
from .prompt import PromptParts, attach_files, prompt_text, split
from .questions import ask_permission, ask_user

if TYPE_CHECKING:
    from tui.agent.door import Session

#: events no client shows: raw traffic, whole request bodies
_SKIP = (McpMessage, RequestSent, ResponseFinished)
_TEXT = {"text_delta": update_agent_message_text, "thinking_delta": update_agent_thought_text}
#: the live output of a running command shown to the client: its last this many characters
OUTPUT_TAIL = 20_000
#: who a mode change came from when the client itself asked (`session/set_mode`)
CLIENT = "the ACP client"
MODES = (
    ("default", "Default", "Ask before edits and commands"),
    ("acceptEdits", "Accept edits", "Edits in the project run without asking"),
    ("plan", "Plan", "Read-only tools until a plan is approved"),
    ("bypassPermissions", "Bypass permissions", "Nothing asks (deny rules still hold)"),
)


@dataclass
class _TurnOver:
    """Put in the queue after a prompt's last event: the pump answers the prompt when it reaches it."""

    refusal: str | None = None
    cancelled: bool = False


def error(sentence: str, code: int = -32603, **data: Any) -> RequestError:
    """A JSON-RPC error whose message is the sentence (`details` too: Toad shows that)."""
    return RequestError(code, sentence, {"details": sentence, **data})


class SessionLink:
    """An AgentSession as one ACP session: prompts in, updates and questions out."""

    def __init__(
        self, acp_id: str, session: Session, client: Any, *, files_through_client: bool, err: TextIO | None = None
    ) -> None:
        self.id = acp_id
        self.session = session
        self.client = client
        self.err = err or sys.stderr
        self.files = ClientFiles(self, files_through_client)
        session.attach_editor(self.files)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.turn: asyncio.Future[PromptResponse] | None = None
        self.thread: threading.Thread | None = None
        self.cancel_requested = False
        self.stopped: LoopStopped | None = None
        self.gone = False
        #: the client went away while a turn ran (said when the session closes)
        self.left_mid_turn = False
        self.outputs: dict[str, str] = {}
        #: the file each queued Edit or Write names (absolute), to find its change when it finishes
        self.targets: dict[str, str] = {}
        self._dirty: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._mcp_ready = False
        self._sub: Any = None
        self._pump_task: asyncio.Task[None] | None = None

    # --- setting up ------------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Subscribe to the session's bus and start the pump on `loop`."""
        self.loop = loop
        self._sub = self.session.bus.subscribe(self._on_event, inline=True, name="acp")
        self._pump_task = loop.create_task(self._pump(), name=f"acp-pump-{self.id}")

    def modes(self) -> SessionModeState:
        """The permission modes a client may switch between (bypassPermissions only when started in it)."""
        reachable = self.session.allowed_modes()
        allowed = [SessionMode(id=m, name=n, description=d) for m, n, d in MODES if m in reachable]
        return SessionModeState(current_mode_id=self.session.permission_mode, available_modes=allowed)

    def set_mode(self, mode_id: str, by: str = CLIENT) -> None:
        """Switch the permission mode through the session's one rule; the client hears of every change but its own."""
        if problem := self.session.set_permission_mode(mode_id, by):
            offered = ", ".join(m.id for m in self.modes().available_modes)
            raise error(f"{problem.rstrip('.')}; this session offers {offered}.", -32602)

    # --- from the loop's threads -----------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        if not isinstance(event, _SKIP):
            self.post(event)

    def post(self, item: Any) -> None:
        """Hand `item` to the pump (any thread); dropped once the loop is closed (the client is gone)."""
        if self.loop is None:
            return
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:
            pass

    def call(self, coro: Any, cancel: threading.Event) -> Any:
        """Send a request to the client from a worker thread and wait for its answer (or the interrupt)."""
        assert self.loop is not None
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        while True:
            try:
                return future.result(timeout=0.05)
            except FutureTimeout:
                if cancel.is_set():
                    future.cancel()
                    raise FutureCancelled() from None

    def say(self, sentence: str) -> None:
        """One line on stderr (clients keep it in their agent log)."""
        try:
            self.err.write(visible(f"agent-tui acp: {sentence}") + "\n")
            self.err.flush()
        except (OSError, ValueError):
            pass

    def lost(self, exc: BaseException, what: str) -> None:
        """A request to the client failed: said once when the client is gone, each time otherwise."""
        if isinstance(exc, ConnectionError):
            if not self.gone:
                self.gone = True
                self.say(f"the client closed the connection; {what}.")
            if self.thread is not None and self.thread.is_alive():  # no one is there to see the turn go on
                self.left_mid_turn = True
                self.session.cancel()
            return
        self.say(f"{what} ({exc}).")

    # --- the pump ------------------------------------------------------------------------------

    async def _pump(self) -> None:
        while True:
            items = [await self.queue.get()]
            while not self.queue.empty():
                items.append(self.queue.get_nowait())
            kind = ""
            text: list[str] = []
            for item in items:
                if isinstance(item, BlockDelta) and item.loop_path == "main" and item.delta_type in _TEXT:
                    if kind != item.delta_type:
                        await self._flush_text(kind, text)
                        kind, text = item.delta_type, []
                    text.append(item.text)
                    continue
                await self._flush_text(kind, text)
                kind, text = "", []
                await self._handle(item)
            await self._flush_text(kind, text)
            for tool_use_id in sorted(self._dirty):
                await self._send(
                    update_tool_call(tool_use_id, content=[updates.text_content(self.outputs[tool_use_id])])
                )
            self._dirty.clear()

    async def _flush_text(self, kind: str, text: list[str]) -> None:
        if text and "".join(text):
            await self._send(_TEXT[kind]("".join(text)))

    async def _send(self, update: Any) -> None:
        if self.gone:
            return
        try:
            await self.client.session_update(session_id=self.id, update=update)
        except Exception as exc:  # noqa: BLE001 - the loop goes on; the transcript keeps everything
            self.lost(exc, "updates are no longer sent")

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, item: Any) -> None:
        if isinstance(item, BaseModel):  # an update made elsewhere (the available commands)
            await self._send(item)
        elif isinstance(item, _TurnOver):
            self._answer(item)
        elif isinstance(item, PermissionRequested):
            self._spawn(ask_permission(self, item))
        elif isinstance(item, UserQuestionAsked):
            self._spawn(ask_user(self, item))
        elif isinstance(item, ToolQueued):
            tool = self.session.dispatcher.tools.get(item.name)
            resolve = self.session.tool_context(item.tool_use_id).resolve
            if item.name in ("Edit", "Write") and isinstance(item.input.get("file_path"), str):
                self.targets[item.tool_use_id] = str(resolve(item.input["file_path"]))
            await self._send(updates.tool_started(item.tool_use_id, item.name, item.label, item.input, tool, resolve))
        elif isinstance(item, ToolStarted):
            await self._send(update_tool_call(item.tool_use_id, status="in_progress"))
        elif isinstance(item, ToolOutput):
            self.outputs[item.tool_use_id] = (self.outputs.get(item.tool_use_id, "") + item.chunk)[-OUTPUT_TAIL:]
            self._dirty.add(item.tool_use_id)
        elif isinstance(item, ToolFinished):
            self._dirty.discard(item.tool_use_id)
            self.outputs.pop(item.tool_use_id, None)
            await self._send(updates.tool_finished(item.tool_use_id, item.status != "done", self._result(item)))
        elif isinstance(item, PermissionModeChanged):  # a subagent's loop shares the mode: any loop's change counts
            if item.by != CLIENT:  # a plan approved, a hook's change: the client's mode picker follows
                await self._send(update_current_mode(item.mode))
        elif item.loop_path != "main":
            return
        elif isinstance(item, TodosUpdated):
            await self._send(updates.plan(item.todos))
        elif isinstance(item, Notice):
            self.say(item.text)
            if item.level != "info":
                await self._send(update_agent_message_text(f"\n\n[agent-tui] {item.text}\n\n"))
        elif isinstance(item, RetryScheduled):
            self.say(f"{item.reason}, retrying in {item.delay_s:.1f} s (attempt {item.attempt}/{item.max_attempts})")
        elif isinstance(item, ContextUsage):
            cost = Cost(amount=round(self.session.cost_usd, 6), currency="USD")
            await self._send(
                UsageUpdate(session_update="usage_update", used=item.used_tokens, size=item.window_tokens, cost=cost)
            )
        elif isinstance(item, TurnStarted) and self.cancel_requested:
            self.session.cancel()  # a cancel that came while the prompt was being prepared
        elif isinstance(item, LoopStopped):
            self.stopped = item

    def _result(self, item: ToolFinished) -> list[Any]:
        """What a finished call shows: the change an Edit or Write made as a diff, else its result text."""
        path = self.targets.pop(item.tool_use_id, None)
        change = self.files.take_write(path) if path and item.status == "done" else None
        if path and change is not None:
            return [updates.diff_content(path, *change)]
        return [updates.text_content(item.result_text)]

    # --- prompts ---------------------------------------------------------------------------

    async def prompt(self, blocks: list[Any]) -> PromptResponse:
        """Run one turn for the prompt; answered once every update of the turn has been sent."""
        if self.turn is not None:
            raise error(
                f"Session {self.id} is still answering a prompt; wait for its answer or send session/cancel first.",
                -32600,
            )
        parts = split(blocks)
        if not parts.text.strip() and not parts.files and not parts.context:
            raise error("The prompt is empty: send some text (or a resource) to answer.", -32602)
        assert self.loop is not None
        self.turn = self.loop.create_future()
        self.stopped, self.cancel_requested = None, False
        self.session.cancel_event.clear()
        self.thread = threading.Thread(target=self._run, args=(parts,), name=f"acp-turn-{self.id}", daemon=True)
        self.thread.start()
        try:
            return await self.turn
        except asyncio.CancelledError:
            self.session.cancel()  # the connection is closing: the turn ends as interrupted
            raise
        finally:
            self.turn = None

    def cancel(self) -> None:
        """`session/cancel`: the running turn (or the prompt being prepared) stops as interrupted."""
        self.cancel_requested = True
        self.session.cancel()

    def _run(self, parts: PromptParts) -> None:
        over = _TurnOver()
        try:
            over = self._turn(parts)
        except Exception as exc:  # noqa: BLE001 - a bug answers the prompt with an error, never a hang
            over = _TurnOver(refusal=f"Internal error: {type(exc).__name__}: {exc}")
        finally:
            self.post(over)

    def _turn(self, parts: PromptParts) -> _TurnOver:
        from tui.agent.prompt.pipeline import ACP

        session = self.session
        if session.mcp is not None and not self._mcp_ready:  # the first turn waits for every server, as -p does
            self._mcp_ready = True
            session.mcp.start_for_print(self.err)

        def resources(prompt: str, ask: Any) -> tuple[str, list[str]]:
            """ACP's own part: the resource blocks the client sent, after the prompt's `@` files."""
            files = attach_files(parts, session.attachment_rules(True), ask)
            return prompt_text(prompt, files, parts.context), parts.notices

        # a cancel before the turn starts is caught at its TurnStarted (see _pump)
        outcome = session.run_prompt(parts.text, source=ACP, extra=resources)
        return _TurnOver(refusal=outcome.refusal or None, cancelled=outcome.cancelled)

    def _answer(self, over: _TurnOver) -> None:
        turn = self.turn
        if turn is None or turn.done():
            return
        stopped = self.stopped
        if over.refusal:
            self.say(over.refusal)
            turn.set_exception(error(over.refusal))
        elif over.cancelled:
            turn.set_result(PromptResponse(stop_reason="cancelled"))
        elif stopped is None:
            turn.set_exception(error("The turn ended without saying why."))
        elif (reason := updates.STOP_REASONS.get(stopped.reason)) is not None:
            turn.set_result(PromptResponse(stop_reason=reason))  # type: ignore[arg-type]
        else:
            self.say(f"stopped ({stopped.reason}): {stopped.detail}")
            turn.set_exception(error(stopped.detail, reason=stopped.reason))

    # --- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """End the session: a running turn is interrupted, the transcript closed, its processes ended."""
        running = self.left_mid_turn or (self.thread is not None and self.thread.is_alive())
        self.session.cancel()
        if self.thread is not None:
            self.thread.join(10)
        if self._sub is not None:
            self._sub.close()
        where = self.session.transcript_path
        self.session.close()
        if running:
            self.say(
                f"the client left during a turn of session {self.id}; the turn was interrupted and the "
                f"conversation so far is kept in {where or 'no file (transcripts are off)'}."
            )
