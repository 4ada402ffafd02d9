"""Read, Grep and Glob honour sandbox.deny_read, in every permission mode (the dispatcher and the real tools)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui.agent.loop.dispatch import Dispatcher
from tui.config.permissions import PermissionPolicy
from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import runtime
from tui.tools.base import SessionState, ToolContext
from tui.tools.glob_tool import GlobTool
from tui.tools.grep import GrepTool
from tui.tools.read import ReadTool


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("SECRET-KEY\n")
    (home / "notes.txt").write_text("SECRET-KEY is not here, just notes\n")
    previous = runtime.current()
    runtime._current = runtime.SandboxRuntime(SandboxSettings(deny_read=[str(home / ".ssh")]), str(home))
    yield home
    runtime._current.close()
    runtime._current = previous


def call(home: Path, name: str, tool_input: dict[str, object]) -> str:
    tools = {"Read": ReadTool(), "Grep": GrepTool(), "Glob": GlobTool()}
    ctx = lambda _id: ToolContext(project_dir=home, state=SessionState(project_dir=home))  # noqa: E731
    dispatcher = Dispatcher(
        tools,
        PermissionPolicy(mode="bypassPermissions", project_dir=home),
        ctx,
        lambda e: None,
        interactive=False,
        parallel=False,
    )
    outcome = dispatcher.run(
        [{"type": "tool_use", "id": "r1", "name": name, "input": tool_input}], threading.Event(), {}
    )
    return str(outcome.results[0]["content"])


def test_read_of_a_secret_is_refused_even_in_bypass(home: Path) -> None:
    text = call(home, "Read", {"file_path": str(home / ".ssh" / "id_rsa")})
    assert "SECRET-KEY" not in text and "sandbox.deny_read" in text
    assert "SECRET-KEY is not here" in call(home, "Read", {"file_path": str(home / "notes.txt")})


def test_grep_and_glob_leave_secrets_out_of_a_wider_search(home: Path) -> None:
    grep = call(home, "Grep", {"pattern": "SECRET-KEY", "path": str(home), "output_mode": "files_with_matches"})
    assert "notes.txt" in grep and "id_rsa" not in grep and ".ssh was left out (sandbox.deny_read)" in grep
    glob = call(home, "Glob", {"pattern": "**/*", "path": str(home)})
    assert "notes.txt" in glob and "id_rsa" not in glob
    assert "sandbox.deny_read" in call(home, "Grep", {"pattern": "x", "path": str(home / ".ssh")})


def test_turned_off_the_list_no_longer_applies(home: Path) -> None:
    runtime.current().toggled = False
    assert "SECRET-KEY" in call(home, "Read", {"file_path": str(home / ".ssh" / "id_rsa")})
    grep = call(home, "Grep", {"pattern": "SECRET-KEY", "path": str(home), "output_mode": "files_with_matches"})
    assert "id_rsa" in grep
