"""--add-dir and /add-dir: added working directories count as the project for tools, permissions and the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import reply, tool_use
from tests.integration.helpers import make_session
from tests.integration.test_headless import run_cli
from tui.agent.events import ToolFinished
from tui.config.permissions import PermissionPolicy
from tui.sandbox import runtime
from tui.tools.base import SessionState, ToolContext
from tui.tools.bash import BashTool
from tui.tools.registry import default_tools


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    project, other = tmp_path / "proj", tmp_path / "lib"
    make_demo_project(project)
    other.mkdir()
    (other / "util.py").write_text("# TODO: share this\n")
    return project, other


def test_writes_and_file_commands_in_an_added_dir_count_as_inside_the_project(dirs):
    project, other = dirs
    tools = {t.name: t for t in default_tools()}
    state = SessionState(project_dir=project)
    ctx = ToolContext(project_dir=project, state=state)
    write = {"file_path": str(other / "new.py"), "content": "x = 1\n"}
    policy = PermissionPolicy(mode="acceptEdits", project_dir=project, allow=["Edit"])
    assert policy.check(tools["Write"], write, ctx).decision == "ask"  # outside the project: always asks
    assert policy.check(tools["Bash"], {"command": f"ls {other}"}, ctx).decision == "ask"
    policy.extra_dirs.append(other)
    assert policy.check(tools["Write"], write, ctx).decision == "allow"
    assert (
        policy.check(
            tools["Edit"], {"file_path": str(other / "util.py"), "old_string": "a", "new_string": "b"}, ctx
        ).decision
        == "allow"
    )
    assert policy.check(tools["Bash"], {"command": f"ls {other}"}, ctx).decision == "allow"  # read-only, inside
    assert (
        policy.check(tools["Write"], {"file_path": str(other / ".git" / "config"), "content": ""}, ctx).decision
        == "ask"
    )
    for name, tool_input in (
        ("Read", {"file_path": str(other / "util.py")}),
        ("Grep", {"pattern": "TODO", "path": str(other)}),
        ("Glob", {"pattern": "*.py", "path": str(other)}),
    ):
        assert policy.check(tools[name], tool_input, ctx).decision == "allow"


def test_a_session_with_an_added_dir_edits_there_and_the_system_prompt_names_it(monkeypatch, dirs):
    project, other = dirs
    script = [
        reply(
            tool_use("Grep", {"pattern": "TODO", "path": str(other)}),
            tool_use("Write", {"file_path": str(other / "shared.py"), "content": "SHARED = 1\n"}),
            stop_reason="tool_use",
        ),
        reply("done"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, permission_mode="acceptEdits", add_dirs=[other])
        session.run_turn("share the util")
        assert api.errors == []
        system = api.message_requests[0].body["system"][-1]["text"]
    assert f"Additional working directories: {other}" in system
    assert [e.is_error for e in rec.of(ToolFinished)] == [False, False]
    assert (other / "shared.py").read_text() == "SHARED = 1\n"


@pytest.mark.skipif(not runtime.SandboxRuntime().supported(), reason="no Landlock >= 4 / user namespaces here")
def test_the_sandbox_lets_bash_write_in_an_added_dir(dirs):
    project, other = dirs
    previous = runtime.current()
    runtime._current = runtime.SandboxRuntime(runtime.SandboxSettings(), str(project))
    try:
        state = SessionState(project_dir=project)
        run = lambda: BashTool().run({"command": f"echo hi > {other}/out.txt"}, ToolContext(project, state))  # noqa: E731
        refused = run()
        assert refused.meta["sandboxed"] and refused.is_error and not (other / "out.txt").exists()
        state.extra_dirs.append(other)
        assert not run().is_error and (other / "out.txt").read_text() == "hi\n"
        (other / ".git").mkdir()
        hooks = BashTool().run(
            {"command": f"mkdir -p {other}/.git/hooks && echo x > {other}/.git/hooks/pre-commit"},
            ToolContext(project, state),
        )
        assert not (other / ".git" / "hooks" / "pre-commit").exists(), hooks.text()  # protected as the project's
    finally:
        runtime._current.close()
        runtime._current = previous


def test_print_mode_takes_add_dir_and_keeps_the_prompt_after_it(dirs):
    project, other = dirs
    script = [
        reply(tool_use("Write", {"file_path": str(other / "x.py"), "content": "X = 1\n"}), stop_reason="tool_use"),
        reply("written"),
    ]
    with FakeAPI(script) as api:
        proc = run_cli(
            ["-p", "--permission-mode", "acceptEdits", "--add-dir", str(other), "write x"],
            project,
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test"},
        )
        assert proc.returncode == 0, proc.stderr
        first = api.message_requests[0].body
    assert first["messages"][0]["content"][0]["text"] == "write x"
    assert f"Additional working directories: {other}" in first["system"][-1]["text"]
    assert (other / "x.py").read_text() == "X = 1\n"
    missing = run_cli(["-p", "hi", "--offline", "--add-dir", str(project / "nope")], project)
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"agent-tui: --add-dir: {project / 'nope'} is not a directory."
