"""Permission rules for MCP tools, as Claude Code reads them; the gate asks by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.config.permissions import PermissionPolicy
from tui.mcp.manager import McpManager
from tui.mcp.tools import McpTool
from tui.tools.base import SessionState, ToolContext


def _tool(server: str, name: str, read_only: bool = False) -> McpTool:
    manager = McpManager([], project_dir=Path("/tmp"))
    spec = {"name": name, "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": read_only}}
    return McpTool(manager, server, spec, f"mcp__{server}__{name}", 25_000)


@pytest.mark.parametrize(
    ("allow", "deny", "expected"),
    [
        ([], [], "ask"),
        (["mcp__git"], [], "allow"),
        (["mcp__git__*"], [], "allow"),
        (["mcp__git__status"], [], "allow"),
        (["mcp__git__log"], [], "ask"),
        (["mcp__gitx"], [], "ask"),
        (["mcp__git"], ["mcp__git__status"], "deny"),
        (["mcp__git__status"], ["mcp__git"], "deny"),
        ([], ["mcp__*"], "deny"),
    ],
)
def test_server_and_tool_rules_deny_wins(tmp_path: Path, allow: list[str], deny: list[str], expected: str) -> None:
    policy = PermissionPolicy(mode="default", allow=allow, deny=deny, project_dir=tmp_path)
    ctx = ToolContext(project_dir=tmp_path, state=SessionState(project_dir=tmp_path))
    assert policy.check(_tool("git", "status"), {}, ctx).decision == expected


def test_read_only_hint_runs_alongside_but_never_allows(tmp_path: Path) -> None:
    tool = _tool("git", "status", read_only=True)
    policy = PermissionPolicy(mode="acceptEdits", project_dir=tmp_path)
    ctx = ToolContext(project_dir=tmp_path, state=SessionState(project_dir=tmp_path))
    assert tool.is_concurrency_safe({}) and not _tool("git", "commit").is_concurrency_safe({})
    assert policy.check(tool, {}, ctx).decision == "ask"
    assert "git › status" in tool.label({"path": "."}, ctx)
