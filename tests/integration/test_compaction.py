"""Context meter and compaction against the fake API, on synthetic long histories."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import http_error, reply
from tests.fakeapi.validate import check_tool_pairing
from tests.integration.helpers import make_session
from tui.agent.context.compaction import INSTRUCTION, SUMMARY_HEADER, choose_cut, compacted_history
from tui.agent.events import CompactionFinished, CompactionStarted, ContextUsage, ResponseFinished
from tui.agent.history.resume import load_session


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


def synthetic_history(turns: int, chars: int = 800, seed: int = 1) -> list[dict]:
    """Turns of prompt, tool call, tool result, answer: a long, valid history."""
    rng = random.Random(seed)
    messages: list[dict] = []
    for t in range(turns):
        messages.append({"role": "user", "content": [{"type": "text", "text": f"prompt {t} " + "p" * chars}]})
        if rng.random() < 0.7:
            tid = f"toolu_01synthetic{t:04d}xxxxxxxxxx"
            messages.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": f"checking {t}"},
                        {"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": "a.py"}},
                    ],
                }
            )
            messages.append(
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": "r" * chars}]}
            )
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"answer {t} " + "a" * chars}]})
    return messages


def test_context_usage_is_published_after_each_response(monkeypatch, project):
    with FakeAPI([reply("hi")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, context_window=50_000)
        session.run_turn("hello")
    usage = rec.of(ResponseFinished)[0].usage
    meter = rec.of(ContextUsage)[-1]
    expected = sum(
        int(usage.get(k) or 0)
        for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")
    )
    assert meter.used_tokens == expected > 0
    assert meter.window_tokens == 50_000 and meter.estimated is False
    assert rec.of(CompactionStarted) == []


def test_automatic_compaction_before_the_request_that_would_pass_the_threshold(monkeypatch, project):
    history = synthetic_history(12)  # about 11,000 tokens: one summary request cannot hold it, three do
    script = [reply("Part one."), reply("Parts one and two."), reply("SUMMARY: the user is reading a.py.")]
    with FakeAPI([*script, reply("carrying on")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, context_window=8000, max_tokens=300)
        session.messages = list(history)
        session.run_turn("next step")
        assert api.errors == []
        *summary_reqs, main_req = (r.body for r in api.message_requests)
    assert len(summary_reqs) == 3
    for summary_req in summary_reqs:
        assert INSTRUCTION[:40] in summary_req["messages"][-1]["content"][-1]["text"]
        assert "tools" in summary_req and summary_req["max_tokens"] <= 300
    assert "Part one." in summary_reqs[1]["messages"][0]["content"][0]["text"]  # the running summary goes on
    started, finished = rec.of(CompactionStarted)[0], rec.of(CompactionFinished)[0]
    assert started.automatic and finished.ok and finished.messages_after < finished.messages_before
    sent = main_req["messages"]
    assert SUMMARY_HEADER in sent[0]["content"][0]["text"] and "SUMMARY: the user" in sent[0]["content"][0]["text"]
    # the recent turns are verbatim, the prompt of this turn last
    kept = len(sent) - 1
    tail = [*history, {"role": "user", "content": [{"type": "text", "text": "next step"}]}][-kept:]
    assert [m["content"] for m in sent[1:-1]] == [m["content"] for m in tail[:-1]]
    assert session.last_assistant_text() == "carrying on"
    # resume replays the compaction
    assert load_session(session.transcript_path).messages == session.messages


def test_manual_compact_with_focus_keeps_tool_pairs(monkeypatch, project):
    history = synthetic_history(6, chars=100, seed=3)
    with FakeAPI([reply("Short summary."), reply("ok")]) as api:
        session, _rec = make_session(monkeypatch, api.base_url, project)
        session.messages = list(history)
        result = session.compact("the TODO in a.py")
        assert result.ok
        assert "the TODO in a.py" in api.message_requests[0].body["messages"][-1]["content"][-1]["text"]
        assert "the TODO in a.py" in session.messages[0]["content"][0]["text"]
        assert check_tool_pairing(session.messages) is None
        session.run_turn("continue")
        assert api.errors == []


def test_a_failed_summary_leaves_the_history_unchanged(monkeypatch, project):
    history = synthetic_history(6, chars=100)
    with FakeAPI([http_error(400)]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.messages = list(history)
        result = session.compact()
    assert not result.ok and "unchanged" in result.detail
    assert session.messages == history
    assert rec.of(CompactionFinished)[0].ok is False


def test_too_little_history_is_reported_not_compacted(monkeypatch, project):
    with FakeAPI([]) as api:
        session, _rec = make_session(monkeypatch, api.base_url, project)
        session.messages = synthetic_history(1, chars=10)[:2]
        result = session.compact()
        assert api.message_requests == []
    assert not result.ok and "too little" in result.detail


@pytest.mark.parametrize("seed", range(40))
def test_every_cut_keeps_the_history_valid(seed):
    rng = random.Random(seed)
    history = synthetic_history(rng.randint(2, 9), chars=5, seed=seed)
    if rng.random() < 0.5:  # a turn still in progress: ends with tool results
        history = (
            history[:-1]
            if history[-1]["role"] == "assistant"
            and history[-2]["role"] == "user"
            and history[-2]["content"][0]["type"] == "tool_result"
            else history
        )
    cut = choose_cut(history, keep=rng.randint(1, 8))
    if cut is None:
        return
    new = compacted_history("sum", "", history[cut:])
    assert new[0]["role"] == "user" and new[0]["content"][0]["text"].startswith(SUMMARY_HEADER)
    assert all(a["role"] != b["role"] for a, b in itertools.pairwise(new))
    assert check_tool_pairing(new) is None
