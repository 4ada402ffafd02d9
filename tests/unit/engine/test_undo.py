"""Undo round trips: the files of the last turn go back, created files go, Bash is listed as untracked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import DEMO_FILES, make_demo_project
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tui.agent.history.undo import apply_undo, plan_undo


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


def edit_turn(project: Path, new_name: str, marker: str) -> list:
    return [
        reply(tool_use("Read", {"file_path": "a.py"}), stop_reason="tool_use"),
        reply(
            text("Editing."),
            tool_use(
                "Edit", {"file_path": "a.py", "old_string": "return a + b", "new_string": f"return a + b  # {marker}"}
            ),
            tool_use("Write", {"file_path": new_name, "content": f"{marker}\n"}),
            tool_use("Bash", {"command": f"echo {marker} > bash-{marker}.txt"}),
            stop_reason="tool_use",
        ),
        reply(f"done {marker}"),
    ]


def test_undo_reverts_the_last_turn_then_the_one_before(monkeypatch, project):
    with FakeAPI(edit_turn(project, "one.txt", "first") + edit_turn(project, "two.txt", "second")) as api:
        session, _ = make_session(
            monkeypatch, api.base_url, project, permission_mode="bypassPermissions", transcript=False
        )
        session.run_turn("first change")
        after_first = (project / "a.py").read_text()
        session.run_turn("second change")
        assert api.errors == []
    assert "# second" in (project / "a.py").read_text() and (project / "two.txt").exists()

    plan = plan_undo(session)
    assert plan.turn_id == 2
    by_name = {Path(f.path).name: f for f in plan.files}
    assert by_name["a.py"].action == "restore" and by_name["two.txt"].action == "delete"
    assert "# second" in by_name["a.py"].diff(project) and "a.py (after undo)" in by_name["a.py"].diff(project)
    assert by_name["bash-second.txt"].action == "delete" and plan.bash_commands == []  # Bash is tracked
    lines = apply_undo(plan)
    assert any(line.startswith("restored a.py") for line in lines)
    assert any(line.startswith("deleted two.txt") for line in lines)
    assert (project / "a.py").read_text() == after_first and not (project / "two.txt").exists()
    assert not (project / "bash-second.txt").exists() and (project / "bash-first.txt").exists()
    assert str(project / "a.py") not in session.state.read_hashes

    plan = plan_undo(session)
    assert plan.turn_id == 1
    apply_undo(plan)
    assert (project / "a.py").read_text() == DEMO_FILES["a.py"] and not (project / "one.txt").exists()
    assert not (project / "bash-first.txt").exists()
    assert plan_undo(session).empty


def test_a_file_edited_twice_in_one_turn_returns_to_its_state_before_the_turn(tmp_path):
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession

    target = tmp_path / "f.txt"
    target.write_text("v3")
    session = AgentSession(AgentOptions(project_dir=tmp_path, transcript=False, offline=True), tools=[])
    session.turn_count = 1
    session.checkpoints.prompt(1, "edit twice", 0)
    session.checkpoints.before_write(target, b"v1", b"v2")
    session.checkpoints.before_write(target, b"v2", b"v3")
    plan = plan_undo(session)
    assert [f.previous for f in plan.files] == [b"v1"]
    apply_undo(plan)
    assert target.read_text() == "v1" and plan_undo(session).empty
