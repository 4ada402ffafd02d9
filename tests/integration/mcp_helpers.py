"""Helpers for MCP tests: configs for the test servers, real servers from PyPI, free ports, waiting for a port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui.mcp.config import McpServerConfig

ROOT = Path(__file__).resolve().parents[2]
#: the real servers the tests run and what they need beyond our venv (which has `mcp`, `click`, `pydantic`)
PYPI_PACKAGES = ("mcp-server-time", "tzlocal", "tzdata", "mcp-server-git", "gitpython", "gitdb", "smmap")
#: the folder they were installed into this session, or why they could not be
_installed: dict[str, Path | str] = {}


def pypi_servers(factory: pytest.TempPathFactory) -> Path:
    """A folder holding `mcp_server_time` and `mcp_server_git`, installed once per session (skips if pip cannot)."""
    if "target" not in _installed:
        target = factory.mktemp("pypi-mcp-servers")
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), *PYPI_PACKAGES],
            capture_output=True,
            text=True,
            timeout=180,
        )
        _installed["target"] = (
            target
            if proc.returncode == 0
            else (f"the MCP servers could not be installed from PyPI: {proc.stderr.strip()[-300:]}")
        )
    found = _installed["target"]
    if isinstance(found, str):
        pytest.skip(found)
    return found


def pypi_env(target: Path) -> dict[str, str]:
    """The environment that lets a server run from `target` with our venv's packages."""
    return {"PYTHONPATH": os.pathsep.join([str(target), *sys.path[1:]])}


def kitchen(name: str = "kitchen", *extra: str) -> McpServerConfig:
    """The kitchen test server over stdio."""
    return McpServerConfig(
        name, command=sys.executable, args=("-m", "tests.mcp_servers.kitchen", *extra), cwd=str(ROOT)
    )


def raw(name: str = "raw") -> McpServerConfig:
    return McpServerConfig(name, command=sys.executable, args=("-m", "tests.mcp_servers.raw"), cwd=str(ROOT))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")
