"""Compacting a history larger than one summary request: pieces within the window, a note for what is left
out, and an interrupt that leaves the history as it was (against the fake API)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.caching import count_tokens
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import reply
from tests.fakeapi.validate import check_tool_pairing
from tests.integration.helpers import make_session
from tests.integration.test_compaction import synthetic_history
from tui.agent.context.compaction import INSTRUCTION, SUMMARY_HEADER
from tui.agent.context.compaction_pieces import MAX_PIECES
from tui.agent.context.summary_words import CARRIED_HEADER
from tui.agent.events import CompactionFinished, LoopStopped, RequestSent
from tui.agent.history.resume import load_session

WINDOW = 20_000


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


def is_summary(body: dict[str, Any]) -> bool:
    last = body["messages"][-1]["content"][-1]
    return isinstance(last, dict) and str(last.get("text", "")).startswith(INSTRUCTION[:40])


def answering() -> Any:
    """Summary requests get "summary N", any other request "carrying on"."""
    count = iter(range(1, 1000))

    def answer(body: dict[str, Any]) -> Any:
        return reply(f"summary {next(count)}") if is_summary(body) else reply("carrying on")

    return answer


def summary_bodies(api: FakeAPI) -> list[dict[str, Any]]:
    return [r.body for r in api.message_requests if is_summary(r.body)]


def test_a_history_several_windows_large_is_summarised_in_pieces_each_within_the_window(monkeypatch, project):
    history = synthetic_history(120)  # about 100,000 tokens: five windows
    with FakeAPI(answering()) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, context_window=WINDOW, max_tokens=1000)
        session.messages = list(history)
        session.run_turn("next step")
        assert api.errors == []
        bodies = summary_bodies(api)
    assert 1 < len(bodies) <= MAX_PIECES
    for body in bodies:  # the API's count (the fake's: 4 characters a token, compact JSON) plus the reply's room
        assert count_tokens(body) + body["max_tokens"] <= WINDOW
        assert check_tool_pairing(body["messages"]) is None
    for n, body in enumerate(bodies[1:], 1):  # each piece starts from the summary of the ones before it
        assert body["messages"][0]["content"][0]["text"] == f"{CARRIED_HEADER}\n\nsummary {n}"
    summary = session.messages[0]["content"][0]["text"]
    assert summary.startswith(SUMMARY_HEADER) and f"summary {len(bodies)}" in summary
    assert "left out of this summary unread" in summary and "“prompt 0 ppp" in summary  # says what and from where
    finished = rec.of(CompactionFinished)[0]
    assert finished.ok and f"in {len(bodies)} requests" in finished.detail and "left out" in finished.detail
    assert finished.plan["requests"] == len(bodies) and finished.plan["left_out"]["messages"] > 0  # the app's marker
    from tui.ui.cost_events import compaction_note

    assert f"written in {len(bodies)} requests; the oldest " in compaction_note(finished.plan)
    assert session.last_assistant_text() == "carrying on"


def test_a_history_just_over_one_request_is_summarised_whole_in_two(monkeypatch, project):
    history = synthetic_history(30)  # about 25,000 tokens
    with FakeAPI(answering()) as api:
        session, _rec = make_session(monkeypatch, api.base_url, project, context_window=WINDOW, max_tokens=1000)
        session.messages = list(history)
        result = session.compact()
        bodies = summary_bodies(api)
        assert api.errors == []
    assert result.ok and len(bodies) == 2
    assert all(count_tokens(b) + b["max_tokens"] <= WINDOW for b in bodies)
    assert "left out" not in session.messages[0]["content"][0]["text"]
    assert bodies[0]["messages"][0]["content"][0]["text"].startswith("prompt 0 ")  # from the very first prompt


def test_a_message_larger_than_the_window_is_shortened_in_the_request_only(monkeypatch, project):
    history = synthetic_history(8, chars=200)
    result_index = next(i for i, m in enumerate(history) if m["content"][0]["type"] == "tool_result")
    history[result_index]["content"][0]["content"] = "x" * 200_000  # a 50,000-token tool result
    with FakeAPI(answering()) as api:
        session, _rec = make_session(monkeypatch, api.base_url, project, context_window=WINDOW, max_tokens=1000)
        session.messages = [dict(m) for m in history]
        result = session.compact()
        bodies = summary_bodies(api)
        assert api.errors == []
    assert result.ok and all(count_tokens(b) + b["max_tokens"] <= WINDOW for b in bodies)
    sent = [b for body in bodies for m in body["messages"] for b in m["content"] if b.get("type") == "tool_result"]
    assert any("characters left out]" in str(b["content"]) for b in sent)
    assert history[result_index]["content"][0]["content"] == "x" * 200_000  # the history itself is untouched


def cancel_at_request(session: Any, number: int) -> None:
    """Interrupt (as Esc or Ctrl+C does) when the `number`th summary request is sent."""
    seen = []

    def on_event(event: Any) -> None:
        if isinstance(event, RequestSent) and event.iteration == 0:
            seen.append(event)
            if len(seen) == number:
                threading.Timer(0.05, session.cancel).start()  # while its reply streams

    session.bus.subscribe(on_event, inline=True)


def test_an_interrupted_compaction_leaves_the_history_and_the_transcript_as_they_were(monkeypatch, project):
    history = synthetic_history(120)
    with FakeAPI(answering(), token_delay=0.05) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, context_window=WINDOW, max_tokens=1000)
        session.messages = list(history)
        session.transcript.write({"type": "history", "reason": "test", "messages": session.messages})
        cancel_at_request(session, 2)
        result = session.compact()
        session.close()
    assert result.interrupted and not result.ok and "unchanged" in result.detail
    assert session.messages == history
    assert load_session(session.transcript_path).messages == history
    assert rec.of(CompactionFinished)[0].interrupted
    assert session.context.stuck_at is None  # the next prompt may compact again


def test_an_interrupt_during_automatic_compaction_ends_the_turn_as_interrupted(monkeypatch, project):
    history = synthetic_history(120)
    with FakeAPI(answering(), token_delay=0.05) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, context_window=WINDOW, max_tokens=1000)
        session.messages = list(history)
        cancel_at_request(session, 1)
        session.run_turn("next step")
        sent = len(api.message_requests)
    stop = rec.of(LoopStopped)[-1]
    assert stop.reason == "interrupted" and "compacted" in stop.detail  # not context_full
    assert sent <= 1  # no second piece, no main request
    assert session.messages[:-1] == history  # nothing summarised away; the prompt stays, as after any interrupt
    assert session.messages[-1]["content"][-1]["text"] == "next step"


def test_continue_on_a_session_three_windows_large_offline_answers_after_a_bounded_compaction(tmp_path: Path) -> None:
    """`agent-tui -c -p hi --offline`: the offline model writes each piece's summary, the answer is printed."""
    import json
    import os
    import subprocess
    import sys

    from tests.integration.test_exits import big_session

    project = tmp_path / "proj"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update({"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")})
    path = big_session(tmp_path / "data", project, pairs=700)  # ~290,000 tokens; the offline window is 200,000
    proc = subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "-c", "-p", "hi", "--offline"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "offline demo model" in proc.stdout  # this turn's answer, found after the history shrank under it
    assert "into a summary, written in 2 requests" in proc.stderr and "left out" not in proc.stderr
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    summary = next(e for e in entries if e["type"] == "compaction")["summary"]
    assert "## The user's prompts" in summary and "user 69" in summary  # the offline model's extract
    events = [e["event"] for e in entries if e["type"] == "event"]
    usages = [e["usage"] for e in events if e["type"] == "ResponseFinished" and e["iteration"] == 0]
    inputs = [u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] for u in usages]
    assert len(inputs) == 2 and all(n + 8192 <= 200_000 for n in inputs), inputs  # as the offline model counted


def test_an_earlier_summary_among_the_messages_left_out_is_carried_into_the_first_piece(monkeypatch, project):
    earlier = {"role": "user", "content": [{"type": "text", "text": f"{SUMMARY_HEADER}\n\nThe user wants tests."}]}
    history = synthetic_history(120)
    history[0] = {"role": "user", "content": [*earlier["content"], *history[0]["content"]]}
    with FakeAPI(answering()) as api:
        session, _rec = make_session(monkeypatch, api.base_url, project, context_window=WINDOW, max_tokens=1000)
        session.messages = list(history)
        assert session.compact().ok
        first = summary_bodies(api)[0]
    lead = first["messages"][0]["content"][0]["text"]
    assert lead.startswith(CARRIED_HEADER) and "The user wants tests." in lead
    assert "part 1 of" in first["messages"][-1]["content"][-1]["text"]  # told what its first message holds
    assert "The summary of an earlier compaction among them is kept." in session.messages[0]["content"][0]["text"]


def test_the_plan_forecasts_the_requests_and_what_is_left_out(monkeypatch, project):
    from tui.agent.context.compaction_plan import compaction_plan
    from tui.ui.screens.compaction_dialog import pieces_line

    with FakeAPI(answering()) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, context_window=WINDOW, max_tokens=1000)
        session.messages = synthetic_history(120)
        plan = compaction_plan(session)
        assert session.compact().ok
        sent = len(summary_bodies(api))
    assert plan["requests"] == sent == MAX_PIECES and plan["left_out"] == rec.of(CompactionFinished)[0].plan["left_out"]
    assert f"it takes {MAX_PIECES}, and the oldest " in pieces_line(plan)
    session.messages = synthetic_history(3)
    assert "left_out" not in compaction_plan(session) and pieces_line(compaction_plan(session)) == ""


def test_a_summary_request_the_api_counts_as_too_long_is_planned_again_with_its_count(monkeypatch, project):
    """An API whose tokenizer counts half as many tokens again as the estimate: the first request is refused with
    the API's words, the pieces are planned again from its count, and every request then fits."""
    from tests.fakeapi.script import http_error

    refused: list[int] = []
    normal = answering()

    def strict(body: dict[str, Any]) -> Any:
        counted = count_tokens(body) * 3 // 2
        if is_summary(body) and counted > WINDOW:
            refused.append(counted)
            return http_error(400, message=f"prompt is too long: {counted} tokens > {WINDOW} maximum")
        return normal(body)

    with FakeAPI(strict) as api:
        session, _rec = make_session(
            monkeypatch, api.base_url, project, context_window=WINDOW, max_tokens=1000, max_retries=0
        )
        session.messages = synthetic_history(30)
        result = session.compact()
        bodies = summary_bodies(api)
    assert result.ok, result.detail
    counts = [count_tokens(b) * 3 // 2 for b in bodies]
    assert len(refused) == 1 and [n for n in counts if n > WINDOW] == refused  # one refusal, then all fit
    again = bodies[counts.index(refused[0]) + 1 :]
    assert len(again) > 2  # planned again from the first piece: more, smaller pieces than the two first planned
