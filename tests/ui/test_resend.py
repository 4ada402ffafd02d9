"""Edit and resend from the inspector against the fake API: validation, the new answer beside the old with a diff, a fork."""

from __future__ import annotations

import json

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply
from tui.ui.app import AgentApp
from tui.ui.screens.resend_screen import ResendScreen

from .conftest import SIZE, type_prompt, wait_until


async def test_edit_resend_and_continue_from_here(offline_options, monkeypatch) -> None:
    with FakeAPI([reply("the original answer"), reply("a different answer")]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        app = AgentApp(offline_options(offline=False, transcript=True, model="claude-sonnet-5-5"), permission_grace_s=0)
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "say something")
            await wait_until(pilot, lambda: app.session.turn_count == 1 and not app.controller.busy, timeout=30)
            original_id, original_messages = app.session.session_id, list(app.session.messages)
            await pilot.press("f2")
            await wait_until(pilot, lambda: app.inspector is not None and app.inspector.selected is not None)
            app.inspector.action_edit_resend()
            await wait_until(pilot, lambda: isinstance(app.screen, ResendScreen) and app.screen.query("#resend-json"))
            screen = app.screen
            editor = screen.query_one("#resend-json")
            editor.text = editor.text[:-1]  # a closing brace short
            await wait_until(pilot, lambda: "Not valid JSON" in str(screen.query_one("#resend-status").render()))
            await pilot.press("ctrl+s")
            assert len(api.requests) == 1  # an invalid request is not sent
            body = json.loads(json.dumps(app.inspector.selected.body))
            body["messages"][0]["content"][0]["text"] = "say something else"
            editor.text = json.dumps(body, indent=2)
            await wait_until(pilot, lambda: "Valid request" in str(screen.query_one("#resend-status").render()))
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: screen.new_message is not None, timeout=30)
            assert api.requests[-1].body["messages"][0]["content"][0]["text"] == "say something else"
            assert "a different answer" in str(screen.query_one("#resend-new").render())
            assert "the original answer" in str(screen.query_one("#resend-original").render())
            assert app.session.messages == original_messages  # the session is not changed by a resend
            await pilot.press("ctrl+f")
            await wait_until(pilot, lambda: app.session.session_id != original_id)
            await wait_until(pilot, lambda: app.session.messages[-1]["content"][0]["text"] == "a different answer")
            assert app.session.messages[0]["content"][0]["text"] == "say something else"
