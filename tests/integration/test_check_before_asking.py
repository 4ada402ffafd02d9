"""A call that cannot succeed fails at once: the model hears why, and the user is never asked about it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, tool_use
from tests.integration.helpers import make_session
from tui.agent.events import PermissionRequested, ToolFinished
from tui.agent.events.permission import PermissionReply


def _run(monkeypatch: pytest.MonkeyPatch, project: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, Any]:
    """Run one turn whose model makes `calls` one after another; every question is answered "allow once"."""
    script = [reply(tool_use(name, data), stop_reason="tool_use") for name, data in calls] + [reply("done")]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, interactive=True)
        session.bus.subscribe(
            lambda e: e.reply.set_result(PermissionReply(True, "once")) if isinstance(e, PermissionRequested) else None,
            inline=True,
        )
        session.run_turn("go")
        assert api.errors == []
    return rec.of(PermissionRequested), rec.of(ToolFinished)


@pytest.fixture
def project(tmp_path: Path, sandbox_off: object) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "app.py").write_text("x = 1\ny = 1\n")
    (folder / "pkg").mkdir()
    return folder


@pytest.mark.parametrize(
    "calls, message",
    [
        ([("Edit", {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 2"})], "has not been read yet"),
        ([("Write", {"file_path": "app.py", "content": "z = 3\n"})], "has not been read yet"),
        (
            [
                ("Read", {"file_path": "app.py"}),
                ("Edit", {"file_path": "app.py", "old_string": "w = 9", "new_string": "w = 8"}),
            ],
            "String to replace not found",
        ),
        (
            [
                ("Read", {"file_path": "app.py"}),
                ("Edit", {"file_path": "app.py", "old_string": "= 1", "new_string": "= 2"}),
            ],
            "Found 2 matches",
        ),
        ([("Edit", {"file_path": "gone.py", "old_string": "a", "new_string": "b"})], "File does not exist"),
        ([("Edit", {"file_path": "pkg", "old_string": "a", "new_string": "b"})], "is a directory"),
        ([("Write", {"file_path": "pkg", "content": "a"})], "is a directory"),
        ([("Bash", {"command": "echo a\x00b"})], "NUL byte"),
        ([("WebFetch", {"url": "not a url", "prompt": "what"})], "Invalid URL"),
        ([("Agent", {"subagent_type": "nobody", "description": "d", "prompt": "p"})], "Unknown subagent_type"),
    ],
    ids=[
        "edit-unread",
        "write-unread",
        "edit-not-found",
        "edit-not-unique",
        "edit-missing-file",
        "edit-directory",
        "write-directory",
        "bash-nul",
        "webfetch-bad-url",
        "agent-unknown",
    ],
)
def test_a_call_that_would_fail_is_refused_before_any_question(
    monkeypatch: pytest.MonkeyPatch, project: Path, calls: list[tuple[str, dict[str, Any]]], message: str
) -> None:
    asked, finished = _run(monkeypatch, project, calls)
    assert asked == []
    last = finished[-1]
    assert last.is_error and message in last.result_text, last.result_text
    assert (project / "app.py").read_text() == "x = 1\ny = 1\n"


def test_a_call_that_can_succeed_still_asks_and_runs(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    asked, finished = _run(
        monkeypatch,
        project,
        [
            ("Read", {"file_path": "app.py"}),
            ("Edit", {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}),
            ("Write", {"file_path": "new.py", "content": "n = 1\n"}),
        ],
    )
    assert [e.tool_name for e in asked] == ["Edit", "Write"]
    assert not finished[-1].is_error
    assert (project / "app.py").read_text() == "x = 2\ny = 1\n"
    assert (project / "new.py").read_text() == "n = 1\n"
