"""A real server from PyPI: `mcp-server-time`, installed once per test session into a temp folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.integration.mcp_helpers import pypi_env, pypi_servers
from tui.mcp.config import McpServerConfig
from tui.mcp.manager import McpManager
from tui.mcp.tools import build_tools
from tui.tools.base import SessionState, ToolContext


@pytest.fixture(scope="session")
def time_server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding `mcp_server_time` and the packages it needs beyond ours (skips when pip cannot get them)."""
    return pypi_servers(tmp_path_factory)


def test_mcp_server_time_from_pypi(time_server: Path, tmp_path: Path) -> None:
    config = McpServerConfig(
        "time",
        command=sys.executable,
        args=("-m", "mcp_server_time", "--local-timezone", "UTC"),
        env=pypi_env(time_server),
    )
    manager = McpManager([config], project_dir=tmp_path, log_dir=tmp_path / "logs")
    manager.start()
    try:
        assert manager.wait(timeout=60) and manager.states["time"].status == "connected", manager.states["time"].error
        tools = {t.name: t for t in build_tools(manager, 25_000, set())}
        assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= tools.keys()
        ctx = ToolContext(project_dir=tmp_path, state=SessionState(project_dir=tmp_path))
        result = tools["mcp__time__convert_time"].run(
            {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}, ctx
        )
        assert not result.is_error and "21:00" in result.text() and "Asia/Tokyo" in result.text()
    finally:
        manager.close()
