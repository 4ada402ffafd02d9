"""Helpers for MCP tests: configs for the test servers, free ports, and waiting for an HTTP server."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

from tui.mcp.config import McpServerConfig

ROOT = Path(__file__).resolve().parents[2]


def kitchen(name: str = "kitchen", *extra: str) -> McpServerConfig:
    """The kitchen test server over stdio."""
    return McpServerConfig(name, command=sys.executable, args=("-m", "tests.mcp_servers.kitchen", *extra), cwd=str(ROOT))


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
