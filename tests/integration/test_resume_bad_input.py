"""Resuming damaged, read-only, vanished or special session files: said at once, nothing sent that the API refuses."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI, http_error
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tui.agent.events import LoopStopped, Notice
from tui.agent.history.resume import list_sessions, load_session, project_sessions_dir
from tui.agent.options import AgentOptions
from tui.cli.main import main

SID = "20250101-000000-abcdef"
USER = {"role": "user", "content": [{"type": "text", "text": "what is in a.py?"}]}
REPLY = {"role": "assistant", "content": [{"type": "text", "text": "It adds two numbers."}]}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


def session_file(project: Path, sid: str = SID) -> Path:
    folder = project_sessions_dir(AgentOptions(project_dir=project.resolve()))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{sid}.jsonl"


def write_lines(path: Path, lines: list[object]) -> None:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))


def header(sid: str = SID) -> dict:
    return {"type": "session", "session_id": sid, "model": "claude-sonnet-5-5", "created": "2025-01-01T00:00:00"}


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """chmod 444, and for root (who writes anyway) the immutable flag; undone afterwards."""
    path.chmod(0o444)
    flagged = False
    if os.access(path, os.W_OK):
        flagged = subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0
        if not flagged or os.access(path, os.W_OK):
            pytest.skip("cannot make a file read-only for this user")
    try:
        yield
    finally:
        if flagged:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o644)


def test_damaged_records_are_skipped_with_one_count_and_the_next_request_is_valid(monkeypatch, project):
    orphan = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01nowhere", "content": "x"}]}
    write_lines(
        session_file(project),
        [
            header(),
            {"type": "message", "message": USER},
            "{not json at all",
            [1, 2, 3],
            {"type": "message", "message": "hello"},
            {"type": "message", "message": {"role": "robot", "content": "beep"}},
            {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": 5}]}},
            {"type": "resumed", "usage": "lots", "turns": "many"},
            {"type": "message", "message": REPLY},
            {"type": "message", "message": orphan},
            '{"type": "message", "message": {"role": "user", "cont',
        ],
    )
    loaded = load_session(session_file(project))
    assert loaded.messages == [USER, REPLY]
    assert loaded.warnings == [
        f"Skipped 8 damaged records of {SID}.jsonl (its last line was cut off: the writer "
        "stopped mid-record); the rest was loaded."
    ]
    with FakeAPI([reply("fine")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.resume(SID)
        assert [n.text for n in rec.of(Notice)] == loaded.warnings
        session.run_turn("go on")
        session.close()
        assert api.errors == [] and [r.status for r in api.message_requests] == [200]
    assert load_session(session_file(project)).messages == session.messages


def test_a_tool_call_left_open_mid_history_is_answered_and_the_reason_is_right(monkeypatch, project):
    call = {"type": "tool_use", "id": "toolu_01open0000000000000000000", "name": "Read", "input": {"file_path": "a.py"}}
    write_lines(
        session_file(project),
        [
            header(),
            {"type": "event", "event": {"type": "TurnStarted", "turn_id": 1, "prompt": "x"}},
            {"type": "message", "message": USER},
            {
                "type": "message",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "Reading."}, call]},
            },
            {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "never mind"}]}},
            {"type": "message", "message": REPLY},
            {"type": "event", "event": {"type": "TurnStarted", "turn_id": 2, "prompt": "y"}},
            {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "and b.py?"}]}},
        ],
    )
    with FakeAPI([reply("b.py is empty.")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        loaded = session.resume(SID)
        session.run_turn("thanks")
        assert api.errors == []
        sent = api.message_requests[0].body["messages"]
    answer = sent[2]["content"][0]
    assert answer["tool_use_id"] == call["id"] and answer["is_error"]
    assert "agent-tui stopped" in answer["content"] and "by the user" not in answer["content"]
    assert loaded.notes and "did not finish: agent-tui stopped while it ran" in loaded.notes[0]
    assert any(n.level == "info" and "did not finish" in n.text for n in rec.of(Notice))


def test_the_reason_a_reply_was_cut_is_said_after_resume(monkeypatch, project, capfd):
    with FakeAPI([reply("I was about to", stop_reason="max_tokens"), reply("shorter")]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        assert main(["-p", "write an essay", "--cwd", str(project)]) == 0
        capfd.readouterr()
        assert main(["-c", "-p", "shorter please", "--cwd", str(project)]) == 0
        assert api.errors == []
    err = capfd.readouterr().err
    assert "The last turn ended early (max_tokens): The reply was cut by max_tokens." in err


def test_a_fifo_in_the_sessions_folder_is_skipped_and_said(monkeypatch, project, capfd):
    write_lines(
        session_file(project), [header(), {"type": "message", "message": USER}, {"type": "message", "message": REPLY}]
    )
    fifo = session_file(project, "20990101-000000-ffffff")
    os.mkfifo(fifo)
    skipped: list[str] = []
    assert [s.id for s in list_sessions(project, None, skipped)] == [SID]
    assert skipped == [f"Skipped {fifo.name} in the sessions folder: it is a FIFO (named pipe), not a session file."]
    with FakeAPI([reply("continued")]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        done: list[int] = []
        runner = threading.Thread(target=lambda: done.append(main(["-c", "-p", "go on", "--cwd", str(project)])))
        runner.start()
        runner.join(30)  # on a FIFO an open() would block for ever
        assert done == [0]
    out, err = capfd.readouterr()
    assert out.strip() == "continued" and skipped[0] in err
    assert main(["-r", str(fifo), "-p", "x", "--cwd", str(project)]) == 2
    assert "is not a session id" in capfd.readouterr().err  # a path is never taken
    assert main(["-r", fifo.stem, "-p", "x", "--cwd", str(project)]) == 2
    assert f"No saved session {fifo.stem!r}" in capfd.readouterr().err  # by id: skipped, never opened


def test_continue_print_mode_never_prints_the_previous_answer(monkeypatch, project, capfd):
    with FakeAPI([reply("The number is 42."), http_error(401)]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        assert main(["-p", "remember 42", "--cwd", str(project)]) == 0
        capfd.readouterr()
        assert main(["-c", "-p", "what number?", "--cwd", str(project)]) == 1
    out, err = capfd.readouterr()
    assert out == "" and "42" not in out
    assert [line for line in err.splitlines() if line.startswith("agent-tui: stopped")] == [
        "agent-tui: stopped (api_error): The API key was rejected (401 authentication_error): check ANTHROPIC_API_KEY."
    ]


def test_continue_print_mode_that_cannot_load_says_why_and_runs_nothing(monkeypatch, project, capfd):
    path = session_file(project)
    write_lines(path, [header(), {"type": "message", "message": USER}, {"type": "message", "message": REPLY}])
    with FakeAPI([reply("should not be asked")]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        path.unlink()
        os.mkfifo(path)  # replaced after listing would see it; here: named directly
        code = main(["-r", SID, "-p", "go on", "--cwd", str(project)])
        assert api.message_requests == []
    out, err = capfd.readouterr()
    assert code != 0 and out == "" and "It adds two numbers" not in out
    assert err.count("\n") >= 1 and "Traceback" not in err


def test_print_mode_forks_a_read_only_session_file_and_says_so(monkeypatch, project, capfd):
    path = session_file(project)
    write_lines(path, [header(), {"type": "message", "message": USER}, {"type": "message", "message": REPLY}])
    before = path.read_text()
    with read_only(path), FakeAPI([reply("saved elsewhere")]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        assert main(["-r", SID, "-p", "and now?", "--cwd", str(project)]) == 0
        assert api.errors == []
    err = capfd.readouterr().err
    assert f"The session file {path} is read-only; continuing in a new file," in err
    assert path.read_text() == before
    forked = [s for s in list_sessions(project) if s.id != SID]
    assert len(forked) == 1
    messages = load_session(forked[0].path).messages
    assert messages[:2] == [USER, REPLY] and messages[-1]["content"][0]["text"] == "saved elsewhere"


def test_app_session_on_a_read_only_file_says_so_at_once_and_forks_when_asked(monkeypatch, project):
    path = session_file(project)
    write_lines(path, [header(), {"type": "message", "message": USER}, {"type": "message", "message": REPLY}])
    with read_only(path), FakeAPI([reply("kept")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, interactive=True)
        session.resume(SID)
        lost = [n.text for n in rec.of(Notice) if "nothing more is saved" in n.text]
        assert lost and str(path) in lost[0] and "/fork" in lost[0]
        assert session.resume_notices and "/fork" in session.resume_notices[-1].text
        new_path = session.fork_transcript()
        session.run_turn("still there?")
        session.close()
        assert api.errors == []
    assert new_path != path and load_session(new_path).messages == session.messages


def test_a_session_file_deleted_while_in_use_is_said_and_forked_in_print_mode(monkeypatch, project):
    with FakeAPI(
        [
            reply(text("Reading."), tool_use("Read", {"file_path": "a.py"}), stop_reason="tool_use"),
            reply("a.py adds."),
            reply("second"),
        ]
    ) as api:
        first, _ = make_session(monkeypatch, api.base_url, project)
        first.run_turn("read a.py")
        first.close()
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.resume(first.session_id)
        first.transcript_path.unlink()
        session.run_turn("once more")
        session.close()
        assert api.errors == []
    said = [n.text for n in rec.of(Notice) if "was deleted or replaced" in n.text]
    assert len(said) == 1 and "continuing in a new file" in said[0]
    assert session.transcript_path != first.transcript_path
    assert load_session(session.transcript_path).messages == session.messages
    assert rec.of(LoopStopped)[-1].reason == "end_turn"
