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
from tui.agent.history.rewind import rewind, rewind_entries
from tui.agent.history.undo import apply_undo, plan_undo


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
        line.startswith(
            f"could not restore sub/new.txt: a folder on its path is now a link (made since the checkpoint) "
            f"leading to {home}, outside the project"
        )
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


def _two_turns(monkeypatch: pytest.MonkeyPatch, project: Path, first: list, then: str):
    """`first` (a turn's replies), then a second turn that runs `then`; returns the session."""
    with FakeAPI([*first, reply(tool_use("Bash", {"command": then}), stop_reason="tool_use"), reply("ok")]) as api:
        session, _ = make_session(
            monkeypatch, api.base_url, project, permission_mode="bypassPermissions", transcript=False
        )
        session.run_turn("write the hook script")
        session.run_turn("tidy up")
        assert api.errors == []
    return session


WRITE_HOOK = [
    reply(
        tool_use("Write", {"file_path": "tools/pre-commit", "content": "#!/bin/sh\necho pwned\n"}),
        stop_reason="tool_use",
    ),
    reply("written"),
]


def _git_repo(project: Path) -> Path:
    import subprocess

    subprocess.run(
        ["git", "init", "-q", str(project)], check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}
    )
    return project / ".git" / "hooks"


@pytest.mark.parametrize("how", ["rewind", "undo", "rewind the second turn"])
def test_a_folder_replaced_by_a_link_into_git_hooks_is_never_written_through(monkeypatch, world, how) -> None:
    """The attack: turn 1 writes tools/pre-commit, turn 2 makes `tools` a link to .git/hooks; restoring must not
    write (or delete) .git/hooks/pre-commit, and names the path it refused."""
    project, _ = world
    hooks = _git_repo(project)
    hooks.mkdir(exist_ok=True)
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 0\n")  # the user's own hook, kept
    before = sorted(p.name for p in hooks.iterdir())
    session = _two_turns(monkeypatch, project, WRITE_HOOK, f"rm -r tools && ln -s {hooks} tools")
    if how == "undo":
        lines = apply_undo(plan_undo(session))
    else:
        entries = rewind_entries(session)
        lines = rewind(session, entries[0] if how == "rewind" else entries[1], "code").lines
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
    assert sorted(p.name for p in hooks.iterdir()) == before
    assert any(
        line.startswith("could not restore tools/pre-commit: a folder on its path is now a link") for line in lines
    ), lines


def test_a_folder_link_inside_the_project_is_refused_too(monkeypatch, world) -> None:
    project, _ = world
    (project / "elsewhere").mkdir()
    (project / "elsewhere" / "pre-commit").write_text("kept\n")
    session = _two_turns(monkeypatch, project, WRITE_HOOK, "rm -r tools && ln -s elsewhere tools")
    result = rewind(session, rewind_entries(session)[0], "code")
    assert (project / "elsewhere" / "pre-commit").read_text() == "kept\n", result.lines
    assert result.unrestored == ["tools/pre-commit"], result.lines
    assert any(f"leading to {os.path.realpath(project / 'elsewhere')}; nothing was written" in x for x in result.lines)


def test_restoring_never_writes_into_a_hooks_folder(monkeypatch, world) -> None:
    """core.hooksPath names `tools`: a file there is git's hook; it is neither restored nor deleted."""
    import subprocess

    project, _ = world
    _git_repo(project)
    subprocess.run(["git", "-C", str(project), "config", "core.hooksPath", "tools"], check=True)
    session = _two_turns(monkeypatch, project, WRITE_HOOK, "true")
    (project / "tools" / "pre-commit").write_text("exit 1\n")  # changed since, as the user or git left it
    result = rewind(session, rewind_entries(session)[0], "code")  # to before the hook existed: a delete
    assert (project / "tools" / "pre-commit").read_text() == "exit 1\n"
    assert result.unrestored == ["tools/pre-commit"], result.lines
    assert "a protected place" in result.lines[-1]


@pytest.mark.parametrize("folder", [".git", ".claude", ".agent-tui"])
def test_a_protected_folder_is_refused_whatever_the_links(tmp_path: Path, folder: str) -> None:
    from tui.agent.history.restore_paths import locate

    (tmp_path / folder).mkdir()
    where = locate(str(tmp_path / folder / "x"), None, tmp_path)
    assert where.problem.startswith(f"it is in {os.path.realpath(tmp_path / folder)}, a protected place")
