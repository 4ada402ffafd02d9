"""A scripted stand-in for AgentSession: publishes one realistic turn of engine events.

The turn: thinking, text, three parallel reads, an Edit that asks for permission (and
really edits `project_dir/app.py` when allowed), then a final reply. Timestamps can be
fixed (`fixed_clock=True`) so snapshots are deterministic, and `delay` paces the steps
so interrupt tests have something to interrupt.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.agent import events as ev
from tui.agent.events.bus import EventBus
from tui.agent.events.permission import PermissionReply
from tui.agent.options import AgentOptions
from tui.agent.permission_mode import ModeMixin
from tui.agent.session_door import DoorMixin

REPLY_1 = "I'll look for the TODO markers first.\n\n"
REPLY_2 = "Found them. `app.py` has an unhandled empty input; I'll fix that one:\n\n```python\nif not text:\n    return 0\n```\n"
REPLY_3 = "Done: **`app.py`** now returns `0` for empty input.\n\n- checked 2 files\n- 1 TODO left in `util.py`\n"
DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,4 @@\n def main():\n-    # TODO: handle empty input\n+    if not text:\n+        return 0\n     return 1\n"


@dataclass
class FakePolicy:
    mode: str = "default"
    saved: list[str] = field(default_factory=list)


class FakeSession(ModeMixin, DoorMixin):
    """The AgentSession API the app drives, backed by a scripted turn."""

    def __init__(
        self,
        options: AgentOptions | None = None,
        *,
        delay: float = 0.0,
        fixed_clock: bool = False,
        offline: bool = True,
    ) -> None:
        self.options = options or AgentOptions(offline=True, interactive=True)
        self.bus = EventBus()
        self.policy = FakePolicy()
        self.delay = delay
        self.fixed_clock = fixed_clock
        self.offline = offline
        self.messages: list[dict[str, Any]] = []
        self.usage_totals: dict[str, int] = {}
        self.cost_usd = 0.0
        self.prepared = threading.Event()
        self.replies: list[PermissionReply] = []
        self.submitted: list[str] = []
        self.cleared = 0
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._pending: list[Future] = []
        self._t = 1_700_000_000.0
        self._turn = 0
        self.session_id = "fake"
        self.transcript_path = None

    # --- the API --------------------------------------------------------------------

    def prepare(self) -> None:
        self.prepared.set()

    def publish(self, event: ev.Event) -> None:
        self.bus.publish(event)

    def wake_with(self, waker: Any) -> None:
        """As AgentSession.wake_with: how the app starts a turn the session asks for."""
        self.waker = waker

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def submit(self, prompt: str) -> None:
        if self.running:
            raise RuntimeError("A turn is already running.")
        self.submitted.append(prompt)
        self._cancel.clear()
        self._thread = threading.Thread(target=self._run, args=(prompt,), daemon=True)
        self._thread.start()

    def run_prompt(self, text: str, *, source: Any = None, images: tuple[dict[str, Any], ...] = ()) -> Any:
        """The prompt pipeline of the scripted session: a plain prompt starts the scripted turn."""
        from tui.agent.prompt.pipeline import Submitted

        self.submit(text)
        return Submitted()

    def cancel(self) -> None:
        self._cancel.set()
        for future in self._pending:
            if not future.done():
                try:
                    future.set_result(PermissionReply(False, reason="interrupted"))
                except Exception:
                    pass

    def wait(self, timeout: float | None = None) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.running

    def clear(self) -> None:
        self.cleared += 1
        self.messages.clear()
        self.usage_totals = {}
        self.cost_usd = 0.0

    def last_assistant_text(self) -> str:
        return REPLY_3

    # --- the script -----------------------------------------------------------------

    def _ts(self) -> float:
        if self.fixed_clock:
            self._t += 0.25
            return self._t
        return time.time()

    def _pub(self, cls: type[ev.Event], **kw: Any) -> None:
        if self._cancel.is_set():
            raise _Interrupted
        self.bus.publish(cls(ts=self._ts(), **kw))
        if self.delay:
            self._cancel.wait(self.delay)

    def _stream_text(self, iteration: int, index: int, text: str) -> None:
        self._pub(ev.BlockStarted, iteration=iteration, index=index, block_type="text")
        for i in range(0, len(text), 4):
            self._pub(ev.BlockDelta, iteration=iteration, index=index, delta_type="text_delta", text=text[i : i + 4])
        self._pub(ev.BlockFinished, iteration=iteration, index=index, block={"type": "text", "text": text})

    def _response(self, iteration: int, stop_reason: str, action: str) -> None:
        usage = {
            "input_tokens": 120,
            "output_tokens": 80,
            "cache_read_input_tokens": 2400,
            "cache_creation_input_tokens": 0,
        }
        for k, v in usage.items():
            self.usage_totals[k] = self.usage_totals.get(k, 0) + v
        self.cost_usd += 0.0021
        self._pub(
            ev.ResponseFinished,
            iteration=iteration,
            message={"role": "assistant", "content": []},
            stop_reason=stop_reason,
            usage=usage,
            request_id=f"req_{iteration}",
            ttfb_ms=200,
            duration_ms=900,
            cost_usd=0.0021,
        )
        self._pub(ev.StopReasonHandled, iteration=iteration, stop_reason=stop_reason, action=action)

    def _run(self, prompt: str) -> None:
        self._turn += 1
        try:
            self._script(prompt)
            self._finish("end_turn", "", False)
        except _Interrupted:
            self._cancel.clear()
            self._finish("interrupted", "interrupted by the user", False)

    def _finish(self, reason: str, detail: str, is_error: bool) -> None:
        self.bus.publish(ev.LoopStopped(ts=self._ts(), reason=reason, detail=detail, is_error=is_error))
        self.bus.publish(
            ev.TurnFinished(
                ts=self._ts(),
                turn_id=self._turn,
                stop_reason=reason,
                is_error=is_error,
                num_iterations=3,
                duration_ms=2700,
                usage=dict(self.usage_totals),
                cost_usd=self.cost_usd,
                session_usage=dict(self.usage_totals),
                session_cost_usd=self.cost_usd,
            )
        )

    def _script(self, prompt: str) -> None:
        self._pub(ev.TurnStarted, turn_id=self._turn, prompt=prompt)
        # call 1: thinking, text, three parallel reads
        self._pub(
            ev.RequestSent,
            iteration=1,
            attempt=1,
            model=self.options.model,
            body={"model": self.options.model, "system": [{"type": "text", "text": "rules"}], "messages": []},
        )
        self._pub(ev.ResponseStarted, iteration=1, message_id="msg_1", request_id="req_1", ttfb_ms=200)
        self._pub(ev.BlockStarted, iteration=1, index=0, block_type="thinking")
        self._pub(ev.BlockDelta, iteration=1, index=0, delta_type="thinking_delta", text="The user wants TODOs. ")
        self._pub(
            ev.BlockFinished,
            iteration=1,
            index=0,
            block={"type": "thinking", "thinking": "The user wants TODOs. Grep, then read both files."},
        )
        self._stream_text(1, 1, REPLY_1)
        reads = [
            ("toolu_1", "Grep", "Grep(TODO)"),
            ("toolu_2", "Read", "Read(app.py)"),
            ("toolu_3", "Read", "Read(util.py)"),
        ]
        for i, (tid, name, _) in enumerate(reads, start=2):
            self._pub(ev.BlockStarted, iteration=1, index=i, block_type="tool_use", tool_use_id=tid, tool_name=name)
            self._pub(
                ev.BlockFinished, iteration=1, index=i, block={"type": "tool_use", "id": tid, "name": name, "input": {}}
            )
        self._response(1, "tool_use", "dispatching 3 tools, 3 in parallel")
        for tid, name, label in reads:
            self._pub(ev.ToolQueued, tool_use_id=tid, name=name, input={}, label=label, batch=1, parallel=True)
        for tid, name, _ in reads:
            self._pub(ev.ToolStarted, tool_use_id=tid, name=name, batch=1, parallel=True)
        for n, (tid, name, _) in enumerate(reads):
            self._pub(
                ev.ToolFinished,
                tool_use_id=tid,
                name=name,
                status="done",
                is_error=False,
                result_text=f"{name} result {n}\nline 2",
                duration_ms=250 * (n + 1),
                batch=1,
                parallel=True,
            )
        self._pub(ev.ToolResultsSent, iteration=1, message={"role": "user", "content": []})
        # call 2: an edit that needs approval
        self._pub(ev.RequestSent, iteration=2, attempt=1, model=self.options.model, body={"messages": []})
        self._pub(ev.ResponseStarted, iteration=2, message_id="msg_2", request_id="req_2", ttfb_ms=180)
        self._stream_text(2, 0, REPLY_2)
        self._pub(ev.BlockStarted, iteration=2, index=1, block_type="tool_use", tool_use_id="toolu_4", tool_name="Edit")
        self._pub(
            ev.BlockFinished,
            iteration=2,
            index=1,
            block={"type": "tool_use", "id": "toolu_4", "name": "Edit", "input": {}},
        )
        self._response(2, "tool_use", "dispatching 1 tool")
        self._pub(
            ev.ToolQueued,
            tool_use_id="toolu_4",
            name="Edit",
            input={"file_path": "app.py"},
            label="Edit(app.py)",
            batch=2,
            parallel=False,
        )
        reply = self._ask(
            "toolu_4", "Edit", "Edit(app.py)", {"kind": "diff", "text": DIFF, "path": "app.py"}, "Edit(app.py)"
        )
        self.replies.append(reply)
        if reply.allowed:
            self._pub(
                ev.PermissionResolved,
                tool_use_id="toolu_4",
                tool_name="Edit",
                allowed=True,
                scope=reply.scope,
                rule=reply.rule,
            )
            self._pub(ev.ToolStarted, tool_use_id="toolu_4", name="Edit", batch=2, parallel=False)
            target = Path(self.options.project_dir) / "app.py"
            if target.exists():
                target.write_text(
                    target.read_text().replace("# TODO: handle empty input", "if not text:\n        return 0")
                )
            self._pub(
                ev.ToolFinished,
                tool_use_id="toolu_4",
                name="Edit",
                status="done",
                is_error=False,
                result_text="Edited app.py (+2 -1)",
                duration_ms=40,
                batch=2,
                parallel=False,
            )
        else:
            self._pub(
                ev.PermissionResolved,
                tool_use_id="toolu_4",
                tool_name="Edit",
                allowed=False,
                scope="once",
                reason=reply.reason,
            )
            self._pub(
                ev.ToolFinished,
                tool_use_id="toolu_4",
                name="Edit",
                status="denied",
                is_error=True,
                result_text=f"The user denied this: {reply.reason}",
                duration_ms=0,
                batch=2,
                parallel=False,
            )
        # call 3: the final reply
        self._pub(ev.RequestSent, iteration=3, attempt=1, model=self.options.model, body={"messages": []})
        self._pub(ev.ResponseStarted, iteration=3, message_id="msg_3", request_id="req_3", ttfb_ms=150)
        self._stream_text(3, 0, REPLY_3)
        self._response(3, "end_turn", "turn ends")

    def _ask(self, tid: str, name: str, label: str, preview: dict[str, Any], rule: str) -> PermissionReply:
        future: Future = Future()
        self._pending.append(future)
        self._pub(
            ev.PermissionRequested,
            tool_use_id=tid,
            tool_name=name,
            input={},
            label=label,
            preview=preview,
            suggested_rule=rule,
            reason="Edit needs approval.",
            reply=future,
        )
        while not future.done():
            if self._cancel.wait(0.01):
                self.cancel()
        result = future.result()
        if self._cancel.is_set():
            self.bus.publish(
                ev.PermissionResolved(
                    ts=self._ts(), tool_use_id=tid, tool_name=name, allowed=False, scope="interrupted"
                )
            )
            raise _Interrupted
        return result


class _Interrupted(Exception):
    pass
