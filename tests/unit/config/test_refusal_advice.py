"""Each `-p` refusal names what would let the call run, and never a flag that would not (the real dispatcher)."""

from __future__ import annotations

import threading
from pathlib import Path

from tui.agent.loop.dispatch import Dispatcher
from tui.config.permissions import PermissionPolicy
from tui.tools.base import SessionState, ToolContext
from tui.tools.bash import BashTool
from tui.tools.write import WriteTool


def _refusal(project: Path, policy: PermissionPolicy, name: str, tool_input: dict) -> str:
    tools = {"Write": WriteTool(), "Bash": BashTool()}
    ctx = lambda _id: ToolContext(project_dir=project, state=SessionState(project_dir=project))  # noqa: E731
    dispatcher = Dispatcher(tools, policy, ctx, lambda e: None, interactive=False, parallel=False)
    outcome = dispatcher.run(
        [{"type": "tool_use", "id": "c1", "name": name, "input": tool_input}], threading.Event(), {}
    )
    return str(outcome.results[0]["content"])


def test_a_write_outside_the_project_is_not_told_an_allow_rule_would_do(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    text = _refusal(
        project,
        PermissionPolicy(mode="acceptEdits", project_dir=project, allow=["Write"]),
        "Write",
        {"file_path": str(tmp_path / "elsewhere.txt"), "content": "x"},
    )
    assert f"{tmp_path / 'elsewhere.txt'} is outside the project folder" in text
    assert "--allowedTools" not in text and "acceptEdits" not in text and "bypassPermissions" in text


def test_an_ask_rule_names_itself_not_an_allow_rule(tmp_path: Path) -> None:
    text = _refusal(
        tmp_path,
        PermissionPolicy(project_dir=tmp_path, ask=["Bash(ls:*)"], allow=["Bash(ls:*)"]),
        "Bash",
        {"command": "ls", "description": "list"},
    )
    assert "The rule `Bash(ls:*)` (command line) asks for it and an allow rule does not override an ask rule" in text


def test_an_unmatched_command_gets_its_rule_and_no_accept_edits(tmp_path: Path, sandbox_off: object) -> None:
    text = _refusal(
        tmp_path, PermissionPolicy(project_dir=tmp_path), "Bash", {"command": "make build", "description": "b"}
    )
    assert "Rerun with --allowedTools 'Bash(make build *)' to allow it" in text and "acceptEdits" not in text
