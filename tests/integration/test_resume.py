"""Resume and durability: saved sessions replay to exactly the API history they had."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tui.agent.events import Notice
from tui.agent.history.resume import SessionNotFound, find_session, list_sessions, load_session
from tui.cli.main import main


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


def two_turn_script(project: Path) -> list:
    return [
        reply(
            text("Reading."),
            tool_use("Read", {"file_path": "a.py"}, id="toolu_01fixedREAD00000000000000"),
            stop_reason="tool_use",
        ),
        reply("a.py adds two numbers."),
        reply("You are welcome."),
    ]


def wire_messages(api: FakeAPI) -> str:
    return json.dumps(api.message_requests[-1].body["messages"], sort_keys=True)


def test_next_request_after_resume_equals_the_uninterrupted_one(monkeypatch, project):
    with FakeAPI(two_turn_script(project)) as api:
        straight, _ = make_session(monkeypatch, api.base_url, project)
        straight.run_turn("What does a.py do?")
        straight.run_turn("Thanks!")
        straight.close()
        expected = wire_messages(api)
        assert api.errors == []
    with FakeAPI(two_turn_script(project)) as api:
        first, _ = make_session(monkeypatch, api.base_url, project)
        first.run_turn("What does a.py do?")
        first.close()
        second, _rec = make_session(monkeypatch, api.base_url, project)
        loaded = second.resume(first.session_id)
        assert loaded.warnings == [] and loaded.repairs == []
        assert second.messages == first.messages
        assert second.usage_totals == first.usage_totals and second.usage_totals["output_tokens"] > 0
        assert second.cost_usd == pytest.approx(first.cost_usd)
        assert second.turn_count == 1 and second.session_id == first.session_id
        second.run_turn("Thanks!")
        second.close()
        assert api.errors == []
        assert wire_messages(api) == expected
    # one file, appended to; a third load sees all three exchanges
    again = load_session(first.transcript_path)
    assert [m["role"] for m in again.messages] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert again.turns == 2


def test_list_sessions_newest_first_with_picker_facts(monkeypatch, project):
    with FakeAPI([reply("one"), reply("two")]) as api:
        older, _ = make_session(monkeypatch, api.base_url, project)
        older.run_turn("first session prompt")
        older.close()
        time.sleep(0.02)
        newer, _ = make_session(monkeypatch, api.base_url, project)
        newer.run_turn("second session prompt")
        newer.close()
    os.utime(older.transcript_path, (time.time() - 60, time.time() - 60))
    sessions = list_sessions(project)
    assert [s.id for s in sessions] == [newer.session_id, older.session_id]
    top = sessions[0]
    assert top.first_prompt == "second session prompt" and top.turns == 1
    assert top.tokens > 0 and top.cost > 0 and top.model == "claude-sonnet-5-5" and top.started
    assert find_session(project, newer.session_id[-6:]) == newer.transcript_path
    with pytest.raises(SessionNotFound):
        find_session(project, "no-such-session")


def write_transcript(path: Path, records: list[dict], tail: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail)


def test_half_written_line_and_unanswered_tool_use_are_repaired(monkeypatch, project):
    from tui.agent.history.resume import project_sessions_dir
    from tui.agent.options import AgentOptions

    folder = project_sessions_dir(AgentOptions(project_dir=project.resolve()))
    path = folder / "20250101-000000-abcdef.jsonl"
    tool = {"type": "tool_use", "id": "toolu_01pending0000000000000000", "name": "Read", "input": {"file_path": "a.py"}}
    write_transcript(
        path,
        [
            {"type": "session", "session_id": "20250101-000000-abcdef", "model": "claude-sonnet-5-5", "created": "x"},
            {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "read a.py"}]}},
            {"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}, tool]}},
        ],
        tail='{"type": "message", "message": {"role": "user", "cont',
    )
    loaded = load_session(path)
    assert len(loaded.warnings) == 1 and "cut off" in loaded.warnings[0]
    assert loaded.messages[-1]["content"][0]["tool_use_id"] == tool["id"]
    with FakeAPI([reply("fine")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.resume("abcdef")
        assert any("cut off" in n.text for n in rec.of(Notice))
        session.run_turn("go on")
        session.close()
        assert api.errors == []
        sent = api.message_requests[0].body["messages"]
    assert sent[-1]["content"][0]["type"] == "tool_result" and sent[-1]["content"][-1]["text"] == "go on"
    # the broken line stays isolated: every later record parses and the history reloads the same
    assert load_session(path).messages == session.messages


def test_a_session_open_elsewhere_is_forked_not_shared(monkeypatch, project):
    with FakeAPI([reply("one"), reply("two")]) as api:
        owner, _ = make_session(monkeypatch, api.base_url, project)
        owner.run_turn("hello")  # owner keeps its file open and locked
        other, rec = make_session(monkeypatch, api.base_url, project)
        other.resume(owner.session_id)
        assert other.session_id != owner.session_id
        assert any("another agent-tui process" in n.text for n in rec.of(Notice))
        other.run_turn("and again")
        other.close()
        owner.close()
        assert api.errors == []
    assert "and again" not in owner.transcript_path.read_text()
    assert load_session(owner.transcript_path).messages == owner.messages
    assert load_session(other.transcript_path).messages == other.messages


def test_unwritable_data_dir_is_a_warning_not_a_crash(monkeypatch, project, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    with FakeAPI([reply("still answers")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, sessions_dir=blocker / "sessions")
        session.run_turn("hi")
        session.close()
    warnings = [n.text for n in rec.of(Notice) if n.level == "warning"]
    assert any("could not be written" in w for w in warnings)
    assert any("Checkpoints cannot be saved" in w and "keeps them in memory" in w for w in warnings)
    assert session.last_assistant_text() == "still answers"


def test_cli_continue_and_resume_picker_in_print_mode(monkeypatch, project, capfd):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    with FakeAPI([reply("first answer"), reply("second answer")]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        assert main(["-p", "remember 42", "--cwd", str(project)]) == 0
        assert main(["-c", "-p", "what number?", "--cwd", str(project)]) == 0
        assert api.errors == []
        sent = api.message_requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[0]["content"][0]["text"] == "remember 42"
    capfd.readouterr()
    assert main(["-r", "-p", "x", "--cwd", str(project)]) == 2
    err = capfd.readouterr().err
    assert "needs a session id" in err and "remember 42" in err and "Traceback" not in err
    assert main(["-r", "nope", "-p", "x", "--cwd", str(project)]) == 2
    assert "No saved session 'nope'" in capfd.readouterr().err


# --- kill -9 ------------------------------------------------------------------------------


def start_cli(args: list[str], project: Path, base_url: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_BASE_URL=base_url, ANTHROPIC_API_KEY="sk-test")
    return subprocess.Popen(
        [sys.executable, "-m", "tui.cli.main", *args, "--cwd", str(project)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def transcript_has(project: Path, needle: str) -> bool:
    sessions = list_sessions(project)
    return bool(sessions) and needle in sessions[0].path.read_text()


def test_kill_9_mid_stream_then_continue(monkeypatch, project):
    long_reply = reply("word " * 400)
    with FakeAPI([long_reply, reply("resumed fine")], token_delay=0.01) as api:
        proc = start_cli(["-p", "tell a long story"], project, api.base_url)
        try:
            wait_for(lambda: transcript_has(project, "tell a long story") and len(api.message_requests) == 1)
            time.sleep(0.3)  # well inside the streamed reply
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(5)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        assert main(["-c", "-p", "shorter please", "--cwd", str(project)]) == 0
        assert api.errors == []
        sent = api.message_requests[-1].body["messages"]
    assert len(sent) == 1 and [b["text"] for b in sent[0]["content"]] == ["tell a long story", "shorter please"]


def test_kill_9_mid_tool_then_resume_by_id(monkeypatch, project):
    script = [
        reply(text("Running it."), tool_use("Bash", {"command": "sleep 3"}), stop_reason="tool_use"),
        reply("ok, moving on"),
    ]
    with FakeAPI(script) as api:
        proc = start_cli(["-p", "run the slow thing", "--permission-mode", "bypassPermissions"], project, api.base_url)
        try:
            wait_for(lambda: transcript_has(project, '"tool_use"'))
            time.sleep(0.2)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(5)
        session_id = list_sessions(project)[0].id
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        assert main(["-r", session_id, "-p", "skip it", "--cwd", str(project)]) == 0
        assert api.errors == []
        sent = api.message_requests[-1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"][1]["name"] == "Bash"
    results = sent[2]["content"]
    assert results[0]["type"] == "tool_result" and results[0]["is_error"] is True
    assert results[-1]["text"] == "skip it"
