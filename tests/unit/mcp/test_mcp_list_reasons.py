"""`agent-tui mcp list/get` as `claude mcp list/get` 2.1.332: why a connection failed, and the order of the scopes.

Nothing listens on 127.0.0.1:9 (the discard port), so HTTP and SSE are refused at once; `python -c pass` exits
before it answers, which closes the connection.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tui.config.settings import load_settings
from tui.mcp.cli import main
from tui.mcp.config import McpServerConfig
from tui.mcp.status import CLOSED, REFUSED, failure_reason


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


def run(project: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv), project)
    return code, capsys.readouterr().out


def test_a_failed_connection_says_why_after_a_dash(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["add", "-t", "http", "web", "http://127.0.0.1:9/mcp"],
        ["add", "-s", "user", "-t", "sse", "old", "http://127.0.0.1:9/sse"],
        ["add", "js", "--", sys.executable, "-c", "pass"],
    ):
        assert run(project, capsys, *argv)[0] == 0
    code, out = run(project, capsys, "list")
    assert code == 0
    assert out.splitlines()[2:] == [
        f"old: http://127.0.0.1:9/sse (SSE) - ✘ Failed to connect — SSE error: {REFUSED}",
        f"web: http://127.0.0.1:9/mcp (HTTP) - ✘ Failed to connect — {REFUSED}",
        f"js: {sys.executable} -c pass - ✘ Failed to connect — {CLOSED}",
    ]
    code, out = run(project, capsys, "get", "web")
    assert code == 0
    assert f"  Status: ✘ Failed to connect\n  Issue: {REFUSED}\n  Type: http\n" in out


def test_list_shows_user_then_project_then_local_servers(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Claude Code's order, not the order agent-tui loads them in (local before project)."""
    assert run(project, capsys, "add", "loc", "--", sys.executable, "-c", "pass")[0] == 0
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": {"command": "x"}}}))
    assert run(project, capsys, "add", "-s", "user", "usr", "--", sys.executable, "-c", "pass")[0] == 0
    assert not load_settings(project).trusted  # the project server waits: it is shown where Claude Code shows it
    _, out = run(project, capsys, "list")
    assert [line.split(":")[0] for line in out.splitlines()[2:]] == ["usr", "proj", "loc"]


@pytest.mark.parametrize(
    ("error", "transport", "reason"),
    [
        (ConnectionRefusedError(111, "Connection refused"), "http", REFUSED),
        (ConnectionRefusedError(111, "Connection refused"), "sse", f"SSE error: {REFUSED}"),
        (
            FileNotFoundError(2, "No such file or directory"),
            "stdio",
            "ENOENT: no such file or directory, posix_spawn 'srv'",
        ),
        (TimeoutError(), "stdio", 'MCP server "s" connection timed out after 2000ms'),
        (ExceptionGroup("g", [ValueError("bad answer\nmore")]), "http", "bad answer"),
    ],
)
def test_failure_reasons_in_claude_codes_words(error: BaseException, transport: str, reason: str) -> None:
    server = (
        McpServerConfig(name="s", transport=transport, command="srv")
        if transport == "stdio"
        else McpServerConfig(name="s", transport=transport, url="http://127.0.0.1:9/x")
    )
    assert failure_reason(error, server, 2.0) == reason
