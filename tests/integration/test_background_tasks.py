"""Background tasks through the loop: the model is told when one ends, events say so, and `-p` leaves no orphan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tests.integration.test_exits import env, marker, none_left, start, temp_files  # noqa: F401 (env is a fixture)
from tui.agent.events import BackgroundShellChanged


def test_a_finished_task_is_announced_in_the_next_request(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    script = [
        reply(tool_use("Bash", {"command": "echo built", "run_in_background": True, "description": "build"}),
              stop_reason="tool_use"),
        reply(text("Started."), stop_reason="end_turn"),
        reply(text("It finished."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, permission_mode="bypassPermissions",
                                    transcript=False)
        session.run_turn("build it in the background")
        [task] = session.state.tasks.all()
        assert session.state.tasks.wait(task.id, 30)
        session.run_turn("is it done?")
        bodies = [r.body for r in api.message_requests]
    assert "task-notification" not in json.dumps(bodies[1])  # not yet finished when the tool result went out
    last_user = bodies[2]["messages"][-1]["content"]
    notes = [b["text"] for b in last_user if b["type"] == "text" and "<task-notification>" in b["text"]]
    assert len(notes) == 1
    assert f"<task-id>{task.id}</task-id>" in notes[0] and "<status>completed</status>" in notes[0]
    assert 'Background command "build" completed (exit code 0)' in notes[0]
    assert [e.status for e in rec.of(BackgroundShellChanged)] == ["running", "completed"]
    session.close()


def test_print_mode_ends_background_tasks_when_it_ends(tmp_path: Path, env: dict[str, str]) -> None:  # noqa: F811
    mark = marker()
    script = [
        reply(tool_use("Bash", {"command": f"sleep {mark} & sleep {mark}", "run_in_background": True}),
              stop_reason="tool_use"),
        reply(text("Left it running."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        proc = start(["start a server", "--output-format", "json"], tmp_path, env, api.base_url)
        out, err = proc.communicate(timeout=60)
        result = api.message_requests[1].body["messages"][-1]["content"][0]["content"]
    assert proc.returncode == 0, err
    assert "Command running in background with ID: b" in result
    assert json.loads(out)["result"] == "Left it running."
    assert none_left(mark) == [], "a background task must end with the -p run"
    assert temp_files(env) == []
