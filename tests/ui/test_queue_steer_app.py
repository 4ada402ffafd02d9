"""Queue and steer in the app: Enter while a turn runs queues, Up and Esc take messages back, the loop steers.

The turn is held at a Gate tool call (tests/integration/helpers.py) while the test types, so the
order of things never depends on timing; the wire is the real SDK against the fake API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI, reply, text, tool_use
from tests.fakeapi.demo_project import make_demo_project
from tests.integration.helpers import with_gate
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog
from tui.ui.widgets.blocks import MarkerLine, UserPrompt

from .conftest import SIZE, type_prompt, wait_for_dialog, wait_until


def texts(message: dict[str, Any]) -> list[str]:
    return [b["text"] for b in message["content"] if b.get("type") == "text"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    root = tmp_path / "proj"
    root.mkdir()
    make_demo_project(root)
    return root


def gated_app(monkeypatch: pytest.MonkeyPatch, api: FakeAPI, project: Path) -> tuple[AgentApp, Any]:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    options = AgentOptions(project_dir=project, interactive=True, transcript=False, model="claude-sonnet-5-5")
    session = AgentSession(options)
    gate = with_gate(session)
    return AgentApp(options, session=session, permission_grace_s=0), gate


def queued_lines(app: AgentApp) -> list[str]:
    widget = app.query_one("#queued")
    if not widget.display or not widget.has_class("-some"):
        return []
    return [line for line in str(widget.render()).splitlines() if line.startswith("queued ")]


def markers(app: AgentApp) -> list[str]:
    return [str(m.render()) for m in app.conversation.query(MarkerLine)]


def prompts(app: AgentApp) -> list[str]:
    return [str(p.render()) for p in app.conversation.query(UserPrompt)]


async def test_enter_queues_up_and_esc_take_back_and_the_loop_steers(monkeypatch, project) -> None:
    script = [
        reply(text("Reading."), tool_use("Gate", {}), tool_use("Read", {"file_path": "a.py"}), stop_reason="tool_use"),
        reply(text("Done, c.py too."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        app, gate = gated_app(monkeypatch, api, project)
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "read a.py")
            await wait_until(pilot, gate.started.is_set, timeout=30)
            prompt = app.prompt_area

            await type_prompt(pilot, "also look at c.py")
            await type_prompt(pilot, "and keep it short")
            await wait_until(pilot, lambda: len(queued_lines(app)) == 2)
            assert queued_lines(app) == ["queued also look at c.py", "queued and keep it short"]
            assert prompts(app) == ["read a.py"] and prompt.text == ""  # queued, not sent as a turn

            await pilot.press("up")  # the newest comes back for editing
            await wait_until(pilot, lambda: prompt.text == "and keep it short")
            assert queued_lines(app) == ["queued also look at c.py"]
            prompt.insert(", please")
            await pilot.press("enter")
            await wait_until(pilot, lambda: len(queued_lines(app)) == 2)

            prompt.clear()
            await pilot.press("escape")  # Esc on an empty prompt takes them all back, oldest first
            await wait_until(pilot, lambda: prompt.text == "also look at c.py\nand keep it short, please")
            assert queued_lines(app) == [] and app.controller.busy  # and it did not interrupt
            prompt.clear()
            await type_prompt(pilot, "also look at c.py")
            await type_prompt(pilot, "and keep it short")
            await wait_until(pilot, lambda: len(queued_lines(app)) == 2)

            gate.opened.set()
            await wait_until(pilot, lambda: not app.controller.busy and not app.session.running, timeout=30)
            await pilot.pause()
            assert "steer: 2 messages added to request #2" in markers(app)
            assert prompts(app) == ["read a.py", "also look at c.py", "and keep it short"]
            assert queued_lines(app) == []

            await pilot.press("f2")  # the inspector: request #2 carries them, and says so
            await wait_until(pilot, lambda: app.inspector is not None and app.inspector.selected is not None)
            await pilot.pause()
            inspector: Any = app.inspector
            assert inspector.selected.steered == ("also look at c.py", "and keep it short")
            assert "steer: 2 messages after the tool results" in str(app.query_one("#inspector-selected").render())
            assert texts(inspector.view_json("request")["messages"][-1]) == ["also look at c.py", "and keep it short"]
        assert api.errors == []
        last = api.message_requests[1].body["messages"][-1]
    assert [b["type"] for b in last["content"]] == ["tool_result", "tool_result", "text", "text"]
    assert texts(last) == ["also look at c.py", "and keep it short"]


async def test_a_second_esc_interrupts_and_a_queue_left_by_the_interrupt_is_sent_at_once(monkeypatch, project) -> None:
    script = [
        reply(text("Waiting."), tool_use("Gate", {}), stop_reason="tool_use"),
        reply(text("On it."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        app, gate = gated_app(monkeypatch, api, project)
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "wait")
            await wait_until(pilot, gate.started.is_set, timeout=30)
            await type_prompt(pilot, "explain b.py instead")
            await wait_until(pilot, lambda: len(queued_lines(app)) == 1)
            app.prompt_area.insert("draft")
            await pilot.press("escape")  # the prompt is not empty: Esc interrupts, the queue stays
            await wait_until(pilot, lambda: len(api.message_requests) == 2 and not app.controller.busy, timeout=30)
            await pilot.pause()
            assert any("loop stopped (interrupted)" in m for m in markers(app))
            assert prompts(app) == ["wait", "explain b.py instead"]  # the queue became the next turn
            assert app.prompt_area.text == "draft"
        assert api.errors == []
        last = api.message_requests[1].body["messages"][-1]
    assert last["content"][0]["type"] == "tool_result" and texts(last)[-1] == "explain b.py instead"


async def test_a_permission_dialog_takes_the_keys_and_the_prompt_keeps_its_queue(monkeypatch, project) -> None:
    edit = {"file_path": "a.py", "old_string": "    # TODO: validate inputs", "new_string": "    # validated"}
    script = [
        reply(
            tool_use("Read", {"file_path": "a.py"}),
            tool_use("Gate", {}),
            tool_use("Edit", edit),
            stop_reason="tool_use",
        ),
        reply(text("Edited."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        app, gate = gated_app(monkeypatch, api, project)
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "fix a.py")
            await wait_until(pilot, gate.started.is_set, timeout=30)
            await type_prompt(pilot, "then run the tests")
            await wait_until(pilot, lambda: len(queued_lines(app)) == 1)
            gate.opened.set()
            await wait_for_dialog(pilot, PermissionDialog, timeout=30)
            await pilot.press("up")  # the dialog's key, not the queue's
            assert queued_lines(app) == ["queued then run the tests"] and app.prompt_area.text == ""
            await pilot.press("1")
            await wait_until(pilot, lambda: not app.controller.busy and not app.session.running, timeout=30)
        assert api.errors == []
        last = api.message_requests[1].body["messages"][-1]
    assert "# validated" in (project / "a.py").read_text()
    assert [b["type"] for b in last["content"]] == ["tool_result", "tool_result", "tool_result", "text"]
    assert texts(last) == ["then run the tests"]


async def test_a_message_queued_during_bash_mode_is_sent_when_it_ends(monkeypatch, project) -> None:
    with FakeAPI([reply(text("Answering the queued question."), stop_reason="end_turn")]) as api:
        app, _ = gated_app(monkeypatch, api, project)
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "!touch made.txt")  # bash mode: one Bash call, no model turn; it asks first
            await wait_for_dialog(pilot, PermissionDialog, timeout=30)
            await app.submit_prompt("what does b.py do?")  # typed while the command waits
            assert queued_lines(app) == ["queued what does b.py do?"]
            await pilot.pause()
            await pilot.press("1")
            await wait_until(
                pilot,
                lambda: len(api.message_requests) == 1 and not app.controller.busy and not app.session.running,
                timeout=30,
            )
            assert queued_lines(app) == [] and prompts(app)[-1] == "what does b.py do?"
        assert api.errors == []
        sent = api.message_requests[0].body["messages"][-1]
    assert texts(sent)[-1] == "what does b.py do?"
