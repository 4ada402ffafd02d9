"""/rewind and /undo never write through a symbolic link a command put in a file's (or a folder's) place.

Real sessions against the fake API: the model edits, then a Bash command swaps in a link to a
file (or folder) outside the project; restoring replaces the link, leaves its target alone and
says so for each path.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import DEMO_FILES, make_demo_project
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tui.agent.rewind import rewind, rewind_entries
from tui.agent.undo import apply_undo, plan_undo


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """A demo project and, beside it, a folder standing for the user's home (`~/.bashrc` and a notes file)."""
    outside = tmp_path / "home"
    outside.mkdir()
    (outside / ".bashrc").write_text("# the user's rc\n")
    (outside / "new.txt").write_text("the user's own new.txt\n")
    return make_demo_project(tmp_path / "proj"), outside


def edit_then(command: str) -> list:
    """One turn: edit a.py, write sub/new.txt, then run `command`."""
    return [
        reply(tool_use("Read", {"file_path": "a.py"}), stop_reason="tool_use"),
        reply(
            text("Editing."),
            tool_use("Edit", {"file_path": "a.py", "old_string": "return a + b", "new_string": "return a + b  # x"}),
            tool_use("Write", {"file_path": "sub/new.txt", "content": "made by the turn\n"}),
            stop_reason="tool_use",
        ),
        reply(tool_use("Bash", {"command": command}), stop_reason="tool_use"),
        reply("done"),
    ]


def run(monkeypatch: pytest.MonkeyPatch, project: Path, script: list):
    with FakeAPI(script) as api:
        session, _ = make_session(
            monkeypatch, api.base_url, project, permission_mode="bypassPermissions", transcript=False
        )
        session.run_turn("change things")
        assert api.errors == []
    return session


def test_undo_replaces_a_link_to_a_file_outside_and_leaves_its_target(monkeypatch, world) -> None:
    project, home = world
    session = run(monkeypatch, project, edit_then(f"rm a.py && ln -s {home}/.bashrc a.py"))
    assert (project / "a.py").is_symlink()
    plan = plan_undo(session)
    item = next(f for f in plan.files if f.path.endswith("a.py"))
    assert item.action == "replace link" and item.link == f"{home}/.bashrc"
    assert "# the user's rc" not in item.diff(project)  # the link's target is not read either
    lines = apply_undo(plan)
    assert (home / ".bashrc").read_text() == "# the user's rc\n"
    assert not (project / "a.py").is_symlink() and (project / "a.py").read_text() == DEMO_FILES["a.py"]
    assert (
        f"restored a.py (it had become a link to {home}/.bashrc: the link was replaced, its target not touched)"
        in lines
    )


def test_rewind_refuses_a_folder_that_now_leads_outside(monkeypatch, world) -> None:
    project, home = world
    session = run(monkeypatch, project, edit_then(f"mv sub sub-old && ln -s {home} sub"))
    entry = rewind_entries(session)[0]
    result = rewind(session, entry, "code")
    assert (home / "new.txt").read_text() == "the user's own new.txt\n"  # not deleted through the link
    assert (project / "a.py").read_text() == DEMO_FILES["a.py"]
    assert result.unrestored == ["sub/new.txt"]
    assert any(
        line.startswith(f"could not restore sub/new.txt: its folder now leads to {home}, outside the project")
        for line in result.lines
    ), result.lines


def test_rewind_removes_a_link_put_where_a_created_file_was(monkeypatch, world) -> None:
    project, home = world
    session = run(monkeypatch, project, edit_then(f"rm sub/new.txt && ln -s {home}/new.txt sub/new.txt"))
    result = rewind(session, rewind_entries(session)[0], "code")
    assert not os.path.lexists(project / "sub" / "new.txt") and (home / "new.txt").exists()
    assert f"removed the link sub/new.txt (it pointed to {home}/new.txt, which was not touched)" in result.lines


def test_a_link_that_was_there_when_the_checkpoint_was_taken_is_still_followed(monkeypatch, world) -> None:
    """An Edit through a project's own link (current -> v2.txt) is restored where it was made, the link kept."""
    project, _ = world
    (project / "v2.txt").write_text("version two\n")
    (project / "current").symlink_to("v2.txt")
    script = [
        reply(tool_use("Read", {"file_path": "current"}), stop_reason="tool_use"),
        reply(
            tool_use("Edit", {"file_path": "current", "old_string": "two", "new_string": "2"}), stop_reason="tool_use"
        ),
        reply("done"),
    ]
    session = run(monkeypatch, project, script)
    assert (project / "v2.txt").read_text() == "version 2\n"
    result = rewind(session, rewind_entries(session)[0], "code")
    assert (project / "current").is_symlink() and (project / "v2.txt").read_text() == "version two\n"
    assert result.lines == ["restored current"]
