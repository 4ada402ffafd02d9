"""`run_in_background` runs contained too, in bypassPermissions as in default mode, and when a hook adds the flag.

Bypass skips dialogs, never the sandbox: a background task writes only where a command may,
its protected-path creations are swept while it runs and named in its summary, and its whole
process tree is tracked and stopped as before.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, tool_use
from tests.integration.helpers import make_session
from tests.integration.test_exits import marked, marker, none_left
from tests.integration.test_hooks import hook, write_project
from tui.agent.loop.dispatch import Dispatcher
from tui.config.permissions import PermissionPolicy
from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import runtime
from tui.tools.base import SessionState, ToolContext
from tui.tools.bash import BashTool
from tui.tools.task_tools import TaskStopTool

pytestmark = pytest.mark.skipif(
    not runtime.SandboxRuntime().supported(), reason="no Landlock >= 4 / user namespaces here"
)


@pytest.fixture
def dirs(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    proj, out = tmp_path / "proj", tmp_path / "outside"
    proj.mkdir()
    out.mkdir()
    previous = runtime.current()
    runtime._current = runtime.SandboxRuntime(SandboxSettings(), str(proj))
    yield proj, out
    runtime._current.close()
    runtime._current = previous


def start(proj: Path, command: str, mode: str) -> tuple[str, SessionState]:
    """One `run_in_background` Bash call through the dispatcher (non-interactive: a call that would ask is refused)."""
    state = SessionState(project_dir=proj)
    dispatcher = Dispatcher(
        {"Bash": BashTool()},
        PermissionPolicy(mode=mode, project_dir=proj),
        lambda _id: ToolContext(project_dir=proj, state=state),
        lambda e: None,
        interactive=False,
        parallel=False,
    )
    block = {
        "type": "tool_use",
        "id": "t1",
        "name": "Bash",
        "input": {"command": command, "run_in_background": True, "description": "bg"},
    }
    return str(dispatcher.run([block], threading.Event(), {}).results[0]["content"]), state


@pytest.mark.parametrize("mode", ["bypassPermissions", "default"])
def test_a_background_command_is_contained_in_every_mode(dirs: tuple[Path, Path], mode: str) -> None:
    proj, out = dirs
    text, state = start(proj, f"echo x > {out}/bg.txt; echo '{{}}' > .mcp.json; sleep 1.5; echo done > in.txt", mode)
    for task in state.tasks.all():
        assert state.tasks.wait(task.id, 30)
    assert not (out / "bg.txt").exists(), text
    assert "Command running in background" in text and "runs in the sandbox" in text, text
    [task] = state.tasks.all()
    assert (proj / "in.txt").exists()
    assert not (proj / ".mcp.json").exists()  # swept while it ran, and said
    assert f"creating {proj}/.mcp.json (a protected path; removed)" in task.summary()
    assert f"writing {out}/bg.txt (outside the writable folders)" in task.summary()


def test_a_contained_background_tree_is_tracked_and_stopped(dirs: tuple[Path, Path]) -> None:
    proj, _ = dirs
    mark = marker()
    _text, state = start(proj, f"sleep {mark} & setsid sleep {mark} & echo up; sleep {mark}", "bypassPermissions")
    [task] = state.tasks.all()
    while len(marked(mark)) < 3:  # poll until the three sleeps run
        threading.Event().wait(0.02)
    ctx = ToolContext(project_dir=proj, state=state)
    assert TaskStopTool().run({"task_id": task.id}, ctx).text().startswith(f"Stopped task {task.id}")
    assert none_left(mark) == []


def test_a_hook_that_adds_run_in_background_keeps_the_command_contained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verdict is made on the input the hook rewrote: a background command, contained in bypass mode."""
    proj, out = tmp_path / "proj", tmp_path / "outside"
    proj.mkdir()
    out.mkdir()
    updated = {"command": f"echo x > {out}/hook.txt; echo ok > in.txt", "run_in_background": True}
    write_project(
        proj,
        hook(
            "PreToolUse", "Bash", json={"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": updated}}
        ),
    )
    script = [
        reply(tool_use("Bash", {"command": "true", "description": "run"}, id="t1"), stop_reason="tool_use"),
        reply("Done."),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(
            monkeypatch, api.base_url, proj, permission_mode="bypassPermissions", transcript=False
        )
        session.run_turn("go")
        result = next(b for b in api.message_requests[1].body["messages"][-1]["content"] if b["type"] == "tool_result")
    [task] = session.state.tasks.all()
    assert session.state.tasks.wait(task.id, 30)
    assert (proj / "in.txt").exists() and not (out / "hook.txt").exists()
    assert "runs in the sandbox" in json.dumps(result)
    session.close()


def test_a_permission_hook_that_rewrites_the_call_to_leave_the_sandbox_does_not_answer_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dirs: tuple[Path, Path]
) -> None:
    """A PermissionRequest hook allowed a contained call and rewrote it to leave the sandbox: `-p` cannot ask, so no."""
    proj, out = dirs
    runtime._current = runtime.SandboxRuntime(SandboxSettings(auto_allow=False), str(proj))  # contained calls ask
    updated = {"command": f"echo x > {out}/left.txt", "dangerouslyDisableSandbox": True}
    write_project(
        proj,
        hook(
            "PermissionRequest",
            "Bash",
            json={
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {"behavior": "allow", "updatedInput": updated},
                }
            },
        ),
    )
    script = [
        reply(tool_use("Bash", {"command": "echo ok > in.txt", "description": "run"}, id="t1"), stop_reason="tool_use"),
        reply("Done."),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, proj, transcript=False)
        session.run_turn("go")
        result = next(b for b in api.message_requests[1].body["messages"][-1]["content"] if b["type"] == "tool_result")
    session.close()
    assert not (out / "left.txt").exists()
    assert result.get("is_error") and "was not granted" in json.dumps(result), result


def test_files_agent_tui_writes_while_a_background_command_runs_stay(dirs: tuple[Path, Path]) -> None:
    """The first "always allow" makes `.agent-tui/` while a contained dev server runs: the sweep leaves it."""
    from tui.config.rule_files import write_settings_file

    proj, _ = dirs
    _, state = start(proj, "sleep 2.5", "bypassPermissions")
    [task] = state.tasks.all()
    write_settings_file(proj / ".agent-tui" / "settings.local.toml", {"permissions": {"allow": ["Bash(make)"]}})
    assert state.tasks.wait(task.id, 30)
    assert (proj / ".agent-tui" / "settings.local.toml").exists() and not task.blocked
