"""The front door (tui/agent/door.py): AgentSession has every operation and view, and each operation does the whole
change a front end used to make by assigning attributes."""

from __future__ import annotations

import json
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from tui.agent.door import Session
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.config.hooks_config import HookSpec


def _session(tmp_path: Path, **options: Any) -> AgentSession:
    return AgentSession(AgentOptions(project_dir=tmp_path, offline=True, **{"transcript": False, **options}))


def _members() -> set[str]:
    names = {n for n in vars(Session) if not n.startswith("_")}
    return names | set(getattr(Session, "__annotations__", {}))


def test_an_agent_session_has_every_view_and_operation_of_the_door(tmp_path: Path) -> None:
    session = _session(tmp_path)
    missing = sorted(name for name in _members() if not hasattr(session, name))
    assert missing == []
    assert {"submit", "cancel", "set_model", "set_permission_mode", "resend_from", "rewind"} <= _members()


def test_the_views_are_read_only_properties_of_the_protocol() -> None:
    views = [n for n, v in vars(Session).items() if isinstance(v, property)]
    assert {"options", "messages", "state", "usage_totals", "policy"} <= set(views)
    assert all(vars(Session)[n].fset is None for n in views)


def test_model_thinking_and_effort_change_through_operations(tmp_path: Path) -> None:
    session = _session(tmp_path, model="claude-sonnet-4-5")
    session.set_model("claude-opus-4-1")
    session.set_thinking(False)
    session.set_effort("high")
    assert (session.options.model, session.options.thinking, session.options.effort) == (
        "claude-opus-4-1",
        False,
        "high",
    )
    session.set_effort(None)
    assert session.options.effort is None


def test_hook_context_and_the_editor_are_attached_through_operations(tmp_path: Path) -> None:
    session = _session(tmp_path)
    block = {"type": "text", "text": "from a SessionStart hook"}
    session.add_hook_context([block])
    session.add_hook_context([block])
    assert session.hook_context == [block, block]
    editor = object()
    session.attach_editor(editor)
    assert session.state.editor is editor
    assert session.tool_context("t1").state is session.state


def test_resend_from_forks_into_a_new_session_holding_the_history(tmp_path: Path) -> None:
    session = _session(tmp_path, transcript=True)
    session.append_message({"role": "user", "content": [{"type": "text", "text": "first"}]})
    old_id, old_path = session.session_id, session.transcript_path
    history = [
        {"role": "user", "content": [{"type": "text", "text": "edited"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "answer"}]},
    ]
    session.resend_from(history)
    assert session.session_id != old_id and session.transcript_path != old_path
    assert session.messages == history
    assert session.transcript_path is not None
    records = [json.loads(line) for line in session.transcript_path.read_text().splitlines()]
    record = next(r for r in records if r.get("type") == "history")
    assert record["messages"] == history and old_id in record["reason"]
    assert old_path is not None and "edited" not in old_path.read_text()  # the original file is left as it was


def test_the_agent_sdk_plugs_in_through_operations(tmp_path: Path) -> None:
    session = _session(tmp_path)
    assert session.hooks is None and not session.dispatcher.interactive
    session.answer_through_front_end()
    assert session.dispatcher.interactive
    calls: list[Any] = []
    spec = HookSpec("PreToolUse", None, "", 5.0, Path("sdk"), False, callback="hook_0")
    session.add_hooks([spec], lambda run, cancel: calls.append(run))
    assert session.hooks is not None and session.dispatcher.hooks is session.hooks
    assert session.options.hooks is not None and session.options.hooks.hooks == [spec]
    assert session.options.hooks.invoke is not None
    first = session.hooks
    session.add_hooks([spec], lambda run, cancel: None)
    assert session.hooks is first and len(first.config.hooks) == 2


def test_start_mcp_starts_a_runtime_once_and_sdk_servers_go_through_the_channel(tmp_path: Path) -> None:
    session = _session(tmp_path)
    assert session.mcp is None
    session.reach_sdk_servers(lambda request: Future())  # no runtime: nothing to route, nothing fails
    runtime = session.start_mcp()
    assert session.mcp is runtime and session.tool_search is not None
    assert session.start_mcp() is runtime

    def request(message: dict[str, Any]) -> Future[dict[str, Any]]:
        return Future()

    session.reach_sdk_servers(request)
    assert runtime.manager.sdk_channel is request
    session.close()
