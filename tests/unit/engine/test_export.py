"""Export writes readable Markdown and a copy of the raw transcript."""

from __future__ import annotations

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tui.agent.history.export import export_session


def test_export_markdown_and_jsonl(monkeypatch, tmp_path):
    project = make_demo_project(tmp_path / "proj")
    script = [
        reply(text("Looking."), tool_use("Read", {"file_path": "a.py"}), stop_reason="tool_use"),
        reply("It adds numbers."),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        session.run_turn("What does a.py do?")
    md, raw = export_session(session)
    assert md.parent == project / ".agent-tui" / "exports" and raw is not None
    content = md.read_text()
    assert "## User\n\nWhat does a.py do?" in content and "It adds numbers." in content
    assert "**Tool call** `Read`: `a.py`" in content and "def add" in content
    assert "stopped (end_turn)" in content
    assert raw.read_bytes() == session.transcript_path.read_bytes()
    custom, _ = export_session(session, tmp_path / "out" / "talk.md")
    assert custom == tmp_path / "out" / "talk.md" and custom.exists()
    session.close()
