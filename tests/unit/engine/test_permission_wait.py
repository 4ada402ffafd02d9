"""The dispatcher's permission path: one helper publishes every resolution, and a question's answer is awaited
on its future (woken by the answer, an interrupt or a rule), never polled."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from tui.agent.events import Event, PermissionRequested, PermissionResolved
from tui.agent.events.permission import PermissionReply
from tui.agent.loop import dispatch_permission
from tui.agent.loop.dispatch import Dispatcher, DispatchOutcome
from tui.agent.loop.permission_gate import PendingAsks
from tui.config.permissions import PermissionPolicy
from tui.tools.base import SessionState, ToolContext
from tui.tools.cancel_signal import CancelSignal
from tui.tools.write import WriteTool

ROOT = Path(__file__).resolve().parents[3]


class _Asked:
    """A dispatcher run on its own thread until it asks; the events it published."""

    def __init__(self, project: Path, policy: Any, cancel: CancelSignal) -> None:
        self.events: list[Event] = []
        self.asked = threading.Event()
        ctx = lambda _id: ToolContext(project_dir=project, state=SessionState(project_dir=project))  # noqa: E731
        self.dispatcher = Dispatcher(
            {"Write": WriteTool()}, policy, ctx, self._publish, interactive=True, parallel=False
        )
        block = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "a.txt", "content": "x"}}
        self.outcome: DispatchOutcome | None = None
        self.thread = threading.Thread(target=self._run, args=(block, cancel), daemon=True)
        self.thread.start()
        assert self.asked.wait(30), "the Write was never asked about"

    def _publish(self, event: Event) -> None:
        self.events.append(event)
        if isinstance(event, PermissionRequested):
            self.asked.set()

    def _run(self, block: dict[str, Any], cancel: CancelSignal) -> None:
        self.outcome = self.dispatcher.run([block], cancel, {})

    @property
    def question(self) -> PermissionRequested:
        return next(e for e in self.events if isinstance(e, PermissionRequested))

    def resolved(self) -> list[PermissionResolved]:
        self.thread.join(30)
        assert not self.thread.is_alive(), "the wait did not end"
        return [e for e in self.events if isinstance(e, PermissionResolved)]


class _CountingPolicy(PermissionPolicy):
    """A policy that counts how often its mode is read (the old wait read it every 50 ms)."""

    reads = 0

    def __getattribute__(self, name: str) -> Any:
        if name == "mode" and threading.current_thread().name != "MainThread":
            type(self).reads += 1
        return super().__getattribute__(name)


def test_a_waiting_question_reads_nothing_until_something_happens(tmp_path: Path, sandbox_off: object) -> None:
    policy = _CountingPolicy(project_dir=tmp_path)
    asked = _Asked(tmp_path, policy, CancelSignal())
    before = _CountingPolicy.reads
    threading.Event().wait(0.4)  # the span a poll would have looked eight times
    assert _CountingPolicy.reads == before
    asked.question.reply.set_result(PermissionReply(True))
    assert [(e.allowed, e.scope) for e in asked.resolved()] == [(True, "once")]
    assert (tmp_path / "a.txt").read_text() == "x"


def test_an_interrupt_ends_the_wait_and_withdraws_the_question(tmp_path: Path, sandbox_off: object) -> None:
    cancel = CancelSignal()
    asked = _Asked(tmp_path, PermissionPolicy(project_dir=tmp_path), cancel)
    cancel.set()
    assert [(e.allowed, e.scope) for e in asked.resolved()] == [(False, "interrupted")]
    assert asked.question.reply.cancelled()
    assert asked.outcome is not None and asked.outcome.interrupted
    assert not (tmp_path / "a.txt").exists()


def test_a_mode_change_elsewhere_settles_the_waiting_question(tmp_path: Path, sandbox_off: object) -> None:
    policy = PermissionPolicy(project_dir=tmp_path)
    asked = _Asked(tmp_path, policy, CancelSignal())
    policy.mode = "acceptEdits"  # Shift+Tab in the app, set_permission_mode over the SDK
    assert [(e.allowed, e.scope) for e in asked.resolved()] == [(True, "rule")]
    assert asked.question.reply.cancelled() and (tmp_path / "a.txt").read_text() == "x"


def test_an_answer_given_by_a_failing_front_end_is_a_denial(tmp_path: Path, sandbox_off: object) -> None:
    asked = _Asked(tmp_path, PermissionPolicy(project_dir=tmp_path), CancelSignal())
    asked.question.reply.set_exception(RuntimeError("the dialog broke"))
    assert [(e.allowed, e.scope) for e in asked.resolved()] == [(False, "once")]
    assert asked.outcome is not None and [d["tool_use_id"] for d in asked.outcome.denials] == ["w1"]


def test_a_wait_without_a_cancel_signal_is_refused_in_one_sentence() -> None:
    with pytest.raises(TypeError, match="needs a CancelSignal"):
        dispatch_permission.await_reply(Future(), threading.Event(), None, lambda: None)


def test_a_question_settled_twice_at_once_is_resolved_once() -> None:
    """Two threads settle together (the answering one and the waiting one, told of the new rule)."""
    pending, future, allowed = PendingAsks(), Future[Any](), []

    class Allow:
        decision, reason, rule = "allow", "", "Write"

    def verdict_now() -> Allow:
        if len(allowed) == 0 and not verdict_now.nested:  # type: ignore[attr-defined]
            verdict_now.nested = True  # type: ignore[attr-defined]
            pending.settle()  # the other thread settles first, and its waiter forgets the question
            pending.remove("w1")
        return Allow()

    verdict_now.nested = False  # type: ignore[attr-defined]
    pending.add("w1", future, verdict_now, allowed.append)
    pending.settle()
    assert len(allowed) == 1 and future.cancelled()


def test_cancel_signal_calls_its_watchers_once_set_and_at_once_when_already_set() -> None:
    signal, calls = CancelSignal(), []
    stop = signal.watch(lambda: calls.append("first"))
    signal.set()
    signal.watch(lambda: calls.append("late"))
    stop()
    signal.set()
    assert calls == ["first", "late", "late"]


def test_one_helper_publishes_every_resolved_permission() -> None:
    text = "".join(p.read_text() for p in (ROOT / "tui" / "agent" / "loop").glob("dispatch*.py"))
    assert text.count("PermissionResolved(") == 1
    assert "timeout=" not in text  # the answer is awaited, not polled
