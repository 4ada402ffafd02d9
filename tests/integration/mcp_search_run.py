"""One `agent-tui -p` run against the fake API with many-tool MCP servers; the request bodies it sent.

Shared by the tool search test and its benchmark (tests/bench/bench_mcp_tool_search.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakeapi import FakeAPI
from tests.integration.mcp_helpers import ROOT


def many_tools_config(servers: dict[str, int]) -> str:
    """`--mcp-config` JSON for tests/mcp_servers/many_tools.py servers (name -> tool count)."""

    def entry(name: str, count: int) -> dict:
        return {
            "command": sys.executable,
            "cwd": str(ROOT),
            "args": ["-m", "tests.mcp_servers.many_tools", name, str(count)],
        }

    return json.dumps({"mcpServers": {name: entry(name, count) for name, count in servers.items()}})


def run_print(
    script: list[Any], servers: dict[str, int], home: Path, *, search: str = "auto", extra: tuple[str, ...] = ()
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """The finished run and the body of every /v1/messages request, in order (a model with a 200k window)."""
    project = home / "project"
    project.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "XDG_", "ENABLE_TOOL_SEARCH"))}
    with FakeAPI(script) as api:
        env.update(
            ANTHROPIC_BASE_URL=api.base_url,
            ANTHROPIC_API_KEY="sk-test",
            XDG_CONFIG_HOME=str(home / "config"),
            XDG_DATA_HOME=str(home / "data"),
            PYTHONPATH=str(ROOT),
            ENABLE_TOOL_SEARCH=search,
        )
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "tui.cli.main",
                "-p",
                "use the tracker",
                "--cwd",
                str(project),
                "--model",
                "claude-sonnet-4-5",
                "--mcp-config",
                many_tools_config(servers),
                *extra,
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        bodies = [r.body for r in api.message_requests]
    return proc, bodies
