"""MCP benchmarks: a call's overhead over the bare SDK's round trip, and the first frame with 3 servers vs none.

Overhead: the same `echo` call of the kitchen test server, timed through agent-tui (the engine
thread hops to the MCP loop thread, the result is converted) and through the SDK alone (one
`ClientSession` on its own event loop, the server's own time plus the transport); the figure is
the difference of the medians. First frame: the launch benchmark's headless child with three
stdio servers configured, against the same child with none, in the same run.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.fakeapi.demo_project import make_demo_project

from .bench_launch import headless_once
from .common import REPO, Settings, bench_env, median, precompile_sources, row

ECHO = {"text": "ping"}


def _kitchen_config(name: str) -> Any:
    from tui.mcp.config import McpServerConfig

    return McpServerConfig(name, command=sys.executable, args=("-m", "tests.mcp_servers.kitchen"), cwd=str(REPO))


async def _bare_sdk(calls: int) -> list[float]:
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "tests.mcp_servers.kitchen"], cwd=str(REPO))
    with open(os.devnull, "w") as quiet:
        times = await _calls(stdio_client(params, errlog=quiet), calls)
    return times


async def _calls(transport: Any, calls: int) -> list[float]:
    from mcp import ClientSession

    times: list[float] = []
    async with transport as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for _ in range(calls + 10):
            start = time.perf_counter()
            await session.call_tool("echo", ECHO)
            times.append(time.perf_counter() - start)
    return times[10:]


def _ours(calls: int, folder: Path) -> list[float]:
    from tui.mcp.manager import McpManager
    from tui.mcp.tools import build_tools
    from tui.tools.base import SessionState, ToolContext

    manager = McpManager([_kitchen_config("kitchen")], project_dir=folder, log_dir=folder / "logs")
    manager.start()
    try:
        manager.wait(timeout=60)
        tool = {t.name: t for t in build_tools(manager, 25_000, set())}["mcp__kitchen__echo"]
        ctx = ToolContext(project_dir=folder, state=SessionState(project_dir=folder))
        times: list[float] = []
        for _ in range(calls + 10):
            start = time.perf_counter()
            tool.run(ECHO, ctx)
            times.append(time.perf_counter() - start)
        return times[10:]
    finally:
        manager.close()


def measure(settings: Settings) -> list[dict[str, Any]]:
    calls = settings.reps(300, 60)
    folder = Path(tempfile.mkdtemp(prefix="bench-mcp-"))
    bare = median(asyncio.run(_bare_sdk(calls)))
    ours = median(_ours(calls, folder))
    overhead_ms = (ours - bare) * 1000
    rows = [
        row(
            "MCP call overhead over the server's own round trip (echo, stdio)",
            overhead_ms,
            bare * 1000,
            "≤ 5 ms median",
            unit="ms",
            met=overhead_ms <= 5,
            ratio=ours / bare,
            baseline_label="bare SDK ClientSession call, this run",
            note=f"median of {calls} calls each; agent-tui's call took {ours * 1000:.2f} ms",
        )
    ]

    reps = settings.reps(7, 2)
    precompile_sources()
    project = make_demo_project(folder / "project")
    (folder / "home").mkdir()
    env = bench_env(folder / "home", TERM="xterm-256color", COLORTERM="truecolor")
    config = json.dumps(
        {
            "mcpServers": {
                f"s{i}": {"command": sys.executable, "cwd": str(REPO), "args": ["-m", "tests.mcp_servers.kitchen"]}
                for i in range(3)
            }
        }
    )
    without = {**env, "BENCH_CLI_ARGS": json.dumps(["--offline"])}  # both read the flags and settings as the CLI
    with_mcp = {**env, "BENCH_CLI_ARGS": json.dumps(["--offline", "--mcp-config", config])}
    headless_once("agent", without, project)  # warm the page cache
    headless_once("agent", with_mcp, project)
    none, three = [], []
    for _ in range(reps):
        none.append(headless_once("agent", without, project)[0])
        three.append(headless_once("agent", with_mcp, project)[0])
    rows.append(
        row(
            "launch to first frame with 3 MCP servers configured",
            median(three),
            median(none),
            "≤ 1.05× none",
            unit="s",
            met=median(three) <= 1.05 * median(none),
            baseline_label="no server, this run",
            note="headless, options built by the CLI's own code; servers connect after the first frame",
        )
    )
    return rows
