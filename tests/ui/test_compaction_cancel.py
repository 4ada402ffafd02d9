"""Esc or Ctrl+C while /compact runs cancels it, says so, and leaves the history as it was (a real session
against the fake API)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI, reply
from tests.integration.test_compaction import synthetic_history

from .conftest import SIZE, type_prompt, wait_until
from .test_cost_app import marker_texts, priced_app
from .test_cost_app import project as project  # the fixture


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_a_key_while_compacting_cancels_and_the_history_stays(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    history = synthetic_history(6, chars=100)
    with FakeAPI([reply("word " * 400)], token_delay=0.05) as api:  # a summary that would take 20 s
        app = priced_app(api, project, tmp_path, monkeypatch)
        async with app.run_test(size=SIZE) as pilot:
            app.session.messages = list(history)
            await type_prompt(pilot, "/compact")
            await wait_until(pilot, lambda: app.compacting and api.requests, timeout=30)
            await pilot.press(key)
            await wait_until(pilot, lambda: not app.compacting, timeout=10)
            said = lambda: [t for t in marker_texts(app) if "compaction cancelled" in t]  # noqa: E731
            await wait_until(pilot, said, timeout=10)
            assert app.session.messages == history
            assert not any("Press Ctrl+C again" in str(n.message) for n in app._notifications)


async def test_a_message_typed_while_compacting_is_sent_after_it(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = synthetic_history(6, chars=100)
    with FakeAPI([reply("word " * 400), reply("went on")], token_delay=0.05) as api:
        app = priced_app(api, project, tmp_path, monkeypatch)
        async with app.run_test(size=SIZE) as pilot:
            app.session.messages = list(history)
            await type_prompt(pilot, "/compact")
            await wait_until(pilot, lambda: app.compacting and api.message_requests, timeout=30)
            await type_prompt(pilot, "carry on")  # queued, not a second turn beside the compaction
            assert not app.controller.busy and not app.session.running
            await pilot.press("ctrl+c")  # (Esc would first take the queued message back, as while a turn runs)
            await wait_until(pilot, lambda: app.session.last_assistant_text() == "went on", timeout=30)
            assert app.session.messages[: len(history)] == history
            assert app.session.messages[len(history)]["content"][-1]["text"] == "carry on"
