"""A request that cannot fit the context window, even after compaction, is refused before it is sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI, http_error, reply
from tests.fakeapi.demo_project import make_demo_project
from tests.integration.helpers import make_session
from tui.agent.events import CompactionFinished, LoopStopped
from tui.agent.history.resume import load_session

WINDOW = 8000


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


def test_a_prompt_over_the_window_after_a_failed_compaction_is_refused_with_the_numbers(monkeypatch, project):
    script = [reply("one"), reply("two"), http_error(500, headers={"x-should-retry": "false"}), reply("three")]
    with FakeAPI(script) as api:
        session, rec = make_session(
            monkeypatch, api.base_url, project, context_window=WINDOW, max_tokens=300, max_retries=0
        )
        session.run_turn("first")
        session.run_turn("second")
        before = list(session.messages)
        session.run_turn("x " * 40_000)  # about 20 000 tokens
        stop = rec.of(LoopStopped)[-1]
        assert stop.reason == "context_full" and stop.is_error
        assert "not sent" in stop.detail and f"{WINDOW:,}-token context window" in stop.detail
        assert any(not c.ok for c in rec.of(CompactionFinished))  # compaction was tried and failed
        sent = len(api.message_requests)
        assert sent == 3  # two turns and the summary attempt: the prompt itself never went out
        assert session.messages == before
        session.run_turn("short again")
        assert session.last_assistant_text() == "three"
        assert api.errors == [] and api.message_requests[-1].status == 200
        session.close()
    assert load_session(session.transcript_path).messages == session.messages


def test_a_first_prompt_larger_than_the_window_is_refused_without_any_request(monkeypatch, project):
    with FakeAPI([reply("fits")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, context_window=WINDOW, max_tokens=300)
        session.run_turn("y " * 40_000)
        detail = rec.of(LoopStopped)[-1].detail
        used = int(detail.split("about ")[1].split(" tokens")[0].replace(",", ""))
        assert used > WINDOW and api.message_requests == []
        session.run_turn("small")
        assert session.last_assistant_text() == "fits" and api.errors == []
