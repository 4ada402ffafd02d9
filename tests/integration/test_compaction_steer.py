"""Compaction you can see and steer, on the wire: ask/off, pins and memory files surviving it, rewinding past it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI, reply
from tests.fakeapi.demo_project import make_demo_project
from tests.integration.helpers import make_session
from tests.integration.test_compaction import synthetic_history
from tui.agent.context.compaction import SUMMARY_HEADER
from tui.agent.context.map import context_map
from tui.agent.context.pins import PINNED_HEADER
from tui.agent.events import CompactionFinished, CompactionProposed, CompactionStarted, MessagePinned, Notice
from tui.agent.history.resume import load_session
from tui.agent.history.rewind import rewind, rewind_entries

PIN = "Always answer in French, and never touch b.py."


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_demo_project(tmp_path / "proj")
    (root / "AGENTS.md").write_text("# House rules\n- Use four spaces.\n")
    return root


def system_text(body: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in body["system"])


def user_texts(message: dict[str, Any]) -> list[str]:
    return [b["text"] for b in message["content"] if b.get("type") == "text"]


def test_a_pinned_prompt_and_the_memory_files_survive_every_compaction(
    monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    script = [reply(f"answer {n}") for n in range(8)]
    script[4:4] = [reply("SUMMARY one.")]
    script[7:7] = [reply("SUMMARY two.")]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn(f"#pin {PIN}")
        for n in range(3):
            session.run_turn(f"question {n}")
        (project / "AGENTS.md").write_text("# House rules\n- Use tabs now.\n")  # edited before the compaction
        assert session.compact().ok
        session.run_turn("after the first compaction")
        session.run_turn("more")
        assert session.compact().ok
        session.run_turn("after the second compaction")
        assert api.errors == []
        bodies = [r.body for r in api.message_requests]
    assert user_texts(bodies[0]["messages"][0]) == [PIN]  # sent without `#pin `
    assert [e.text for e in rec.of(MessagePinned)] == [PIN] and session.pins == [PIN]
    for after in (bodies[5], bodies[8]):  # the first request after each compaction
        first = user_texts(after["messages"][0])
        assert first[0].startswith(SUMMARY_HEADER)
        assert f"{PINNED_HEADER}\n{PIN}" in first  # verbatim, whatever the summary said
        assert "Use tabs now." in system_text(after) and "Use four spaces." not in system_text(after)
    assert "Use four spaces." in system_text(bodies[3])  # before: the file as it was then
    assert load_session(session.transcript_path).pins == [PIN]  # kept across a resume


def test_pin_last_prompt_pins_the_newest_prompt(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    with FakeAPI([reply("ok")]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, transcript=False)
        assert session.pin_last_prompt() == "There is no prompt to pin yet."
        session.run_turn("keep this one")
    assert session.pin_last_prompt().startswith("Pinned") and session.pins == ["keep this one"]
    assert session.pin_last_prompt() == "That prompt is already pinned."


def near_threshold(session: Any) -> None:
    """Set the window so the next request passes the compaction threshold but still fits."""
    used, _ = session.context.current()
    session.options.context_window = used + 700


def answering(session: Any, answer: dict[str, Any], plans: list[dict[str, Any]]) -> None:
    def on_event(event: Any) -> None:
        if isinstance(event, CompactionProposed):
            plans.append(event.plan)
            event.reply.set_result(answer)

    session.bus.subscribe(on_event, inline=True)


def test_ask_shows_the_plan_and_not_now_leaves_the_history(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    plans: list[dict[str, Any]] = []
    with FakeAPI([reply("went on")]) as api:
        session, rec = make_session(
            monkeypatch, api.base_url, project, transcript=False, interactive=True, compaction="ask", max_tokens=300
        )
        session.messages = synthetic_history(12)
        session.turn_count = 12
        near_threshold(session)
        answering(session, {"choice": "later"}, plans)
        session.run_turn("next step")
    assert len(api.message_requests) == 1 and rec.of(CompactionStarted) == []
    [plan] = plans
    assert plan["possible"] and plan["summarised"]["turns"].startswith("turns 1–")
    assert plan["kept"]["turns"].endswith("13") and plan["summarised"]["tokens"] > plan["kept"]["tokens"] > 0
    assert plan["summarised"]["messages"] + plan["kept"]["messages"] == plan["messages"]
    assert any("Compaction postponed" in e.text for e in rec.of(Notice))


def test_ask_with_a_focus_compacts_with_it(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    plans: list[dict[str, Any]] = []
    with FakeAPI([reply("SUMMARY."), reply("went on")]) as api:
        session, rec = make_session(
            monkeypatch, api.base_url, project, transcript=False, interactive=True, compaction="ask", max_tokens=300
        )
        session.messages = synthetic_history(12)
        near_threshold(session)
        answering(session, {"choice": "focus", "focus": "the parser bug"}, plans)
        session.run_turn("next step")
        summary_request = api.message_requests[0].body
    assert "Pay particular attention to: the parser bug" in user_texts(summary_request["messages"][-1])[-1]
    [finished] = rec.of(CompactionFinished)
    assert finished.ok and finished.plan["cut"] == len(finished.dropped) and finished.dropped[0]["role"] == "user"


@pytest.mark.parametrize(("mode", "interactive", "compacts"), [("off", True, False), ("ask", False, True)])
def test_off_never_compacts_and_print_mode_cannot_ask(
    monkeypatch: pytest.MonkeyPatch, project: Path, mode: str, interactive: bool, compacts: bool
) -> None:
    with FakeAPI([reply("SUMMARY."), reply("went on")] if compacts else [reply("went on")]) as api:
        session, rec = make_session(
            monkeypatch,
            api.base_url,
            project,
            transcript=False,
            interactive=interactive,
            compaction=mode,
            max_tokens=300,
        )
        session.messages = synthetic_history(12)
        near_threshold(session)
        asked = []
        session.bus.subscribe(lambda e: asked.append(e) if isinstance(e, CompactionProposed) else None, inline=True)
        session.run_turn("next step")
    assert asked == [] and bool(rec.of(CompactionStarted)) is compacts and session.last_assistant_text() == "went on"


def test_rewind_returns_to_a_prompt_before_the_compaction(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    script = [reply(f"answer {n}") for n in range(4)] + [reply("SUMMARY."), reply("after")]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        for n in range(4):
            session.run_turn(f"question {n}")
        before = list(session.messages)
        assert session.compact().ok
        session.run_turn("after the compaction")
        figures = context_map(session)
        entries = rewind_entries(session)
        assert [e.prompt for e in entries] == [*(f"question {n}" for n in range(4)), "after the compaction"]
        rewind(session, entries[1], "conversation")
    assert session.messages == before[:2]  # the history as it was before "question 1", summary gone
    last = figures["last_compaction"]
    assert last["summary"] == "SUMMARY." and len(last["dropped"]) == last["plan"]["cut"] > 0
    assert last["dropped"][0]["text"] == "question 0"


def test_the_rewind_list_counts_a_compacted_history_without_reading_it(
    monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    """Each prompt before a compaction counts in the history the compaction replaced, kept as a blob on disk. The
    list read and parsed that blob once per prompt (a long day: hundreds of times the whole history, seconds and a
    burst of memory that Python's allocator kept), then once per compacted conversation; now the blob's message
    count is kept with it, and only a store written before that reads the blob, once."""
    from tui.agent.history.checkpoints import Checkpoints

    script = [reply(f"answer {n}") for n in range(6)] + [reply("SUMMARY."), reply("after")]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        for n in range(6):
            session.run_turn(f"question {n}")
        history = list(session.messages)
        assert session.compact().ok
        session.run_turn("after the compaction")
        read = Checkpoints.messages_blob
        reads: list[str] = []

        def counted(self: Checkpoints, name: str) -> list[dict[str, Any]]:
            reads.append(name)
            return read(self, name)

        monkeypatch.setattr(Checkpoints, "messages_blob", counted)
        cps = session.checkpoints
        assert list(cps.compacted_lengths.values()) == [len(history)]
        assert cps.manifest is not None
        again = Checkpoints(cps.manifest.parent, cps.session_id, project)  # a resume reads the count back
        assert again.compacted_lengths == cps.compacted_lengths
        entries = rewind_entries(session)
        assert reads == []
        cps.compacted_lengths.clear()  # a store from before the count was kept
        older = rewind_entries(session)
    expected = [*(f"question {n}" for n in range(6)), "after the compaction"]
    assert [e.prompt for e in entries] == [e.prompt for e in older] == expected
    assert [e.msg for e in entries] == [e.msg for e in older]
    assert len(reads) == 1
