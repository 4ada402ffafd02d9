"""The MCP client manager against real servers: the kitchen test server (stdio, HTTP, SSE) and a raw one."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.integration.mcp_helpers import ROOT, free_port, kitchen, raw, wait_for_port
from tui.mcp.config import McpServerConfig
from tui.mcp.manager import McpManager
from tui.mcp.tools import McpTool, build_tools
from tui.tools.base import SessionState, ToolContext, ToolError, ToolInterrupted
from tui.tools.processes import read_stat


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One manager for the module: kitchen (stdio, with garbage on stdout), a raw server, a missing command."""
    folder = tmp_path_factory.mktemp("mcp")
    mark = folder / "mark.txt"
    messages: list[tuple[str, str, dict[str, Any]]] = []
    manager = McpManager(
        [
            kitchen("kitchen", "--garbage", "--mark", str(mark)),
            raw(),
            McpServerConfig("missing", command=str(folder / "no-such-server")),
        ],
        project_dir=folder,
        log_dir=folder / "logs",
        on_message=lambda server, direction, message: messages.append((server, direction, message)),
    )
    manager.start()
    assert manager.wait(timeout=60)
    yield manager, mark, messages
    manager.close()


def _ctx(tmp_path: Path) -> tuple[ToolContext, list[tuple[str, str]]]:
    out: list[tuple[str, str]] = []
    ctx = ToolContext(project_dir=tmp_path, state=SessionState(project_dir=tmp_path))
    ctx.emit_output = lambda chunk, stream="stdout": out.append((chunk, stream))
    return ctx, out


def _tool(manager: McpManager, name: str) -> McpTool:
    tools = {t.name: t for t in build_tools(manager, 2000, set())}
    return tools[name]  # type: ignore[return-value]


def test_connect_list_and_bad_input_each_one_sentence(servers: Any) -> None:
    manager, _, messages = servers
    kitchen_state, raw_state, missing = (manager.states[n] for n in ("kitchen", "raw", "missing"))
    assert kitchen_state.status == "connected" and raw_state.status == "connected"
    assert {"echo", "add", "picture", "slow"} <= {t["name"] for t in kitchen_state.tools}
    assert kitchen_state.resources[0]["uri"] == "notes://today" and kitchen_state.prompts[0]["name"] == "review"
    assert kitchen_state.warnings == [
        "kitchen wrote a line that is not JSON-RPC on stdout ('this is not JSON'); it was ignored."
    ]
    assert [t["name"] for t in raw_state.tools] == ["ok"]
    assert raw_state.warnings == [
        "raw offers the tool 'weird' whose input schema is not an object; that tool was skipped."
    ]
    assert missing.status == "failed" and "not found" in missing.error
    assert kitchen_state.log_path.read_text().count("kitchen: starting") == 1  # stderr went to its own log
    first = [(d, m.get("method")) for s, d, m in messages if s == "kitchen"][:3]
    assert first == [("send", "initialize"), ("recv", None), ("send", "notifications/initialized")]


def test_tools_offered_with_results_of_every_kind(servers: Any, tmp_path: Path) -> None:
    manager, _, _ = servers
    names = [t.name for t in build_tools(manager, 1000, {"Read"})]
    assert "mcp__kitchen__add" in names and "mcp__raw__ok" in names and "ListMcpResources" in names
    assert not any(n.startswith("mcp__missing") for n in names)
    ctx, _ = _ctx(tmp_path)
    assert _tool(manager, "mcp__kitchen__add").run({"a": 2, "b": 5}, ctx).content == "7"
    picture = _tool(manager, "mcp__kitchen__picture").run({}, ctx).content
    assert isinstance(picture, list) and picture[0]["type"] == "image"
    assert picture[0]["source"]["media_type"] == "image/png"
    failed = _tool(manager, "mcp__kitchen__fail").run({}, ctx)
    assert failed.is_error and "fail" in failed.text()
    huge = _tool(manager, "mcp__kitchen__huge").run({"chars": 50_000}, ctx).text()
    assert len(huge) < 8_500 and "more than the limit of 2,000" in huge
    resource = _tool(manager, "ReadMcpResource").run({"server": "kitchen", "uri": "notes://today"}, ctx).text()
    assert "buy milk" in resource


def test_progress_and_cancel_reach_the_server(servers: Any, tmp_path: Path) -> None:
    manager, mark, messages = servers
    ctx, out = _ctx(tmp_path)
    slow = _tool(manager, "mcp__kitchen__slow")
    assert slow.run({"seconds": 0.3}, ctx).text() == "slow done"
    assert ("3/3 · step 3\n", "progress") in out
    timer = threading.Timer(0.4, ctx.cancel.set)
    timer.start()
    with pytest.raises(ToolInterrupted):
        slow.run({"seconds": 20}, ctx)
    sent = [m for s, d, m in messages if s == "kitchen" and d == "send"]
    assert sent[-1]["method"] == "notifications/cancelled"
    _poll(lambda: "slow cancelled" in (mark.read_text() if mark.exists() else ""))


def test_list_changed_refreshes_between_turns(servers: Any, tmp_path: Path) -> None:
    manager, _, _ = servers
    ctx, _ = _ctx(tmp_path)
    _tool(manager, "mcp__kitchen__grow").run({}, ctx)
    _poll(lambda: "tools" in manager.states["kitchen"].changed)
    assert "grown" not in {t["name"] for t in manager.states["kitchen"].tools}  # not in the middle of a turn
    assert manager.refresh_changed()
    assert "grown" in {t["name"] for t in manager.states["kitchen"].tools}


def test_crash_mid_call_shows_stderr_and_reconnects(servers: Any, tmp_path: Path) -> None:
    manager, _, _ = servers
    ctx, _ = _ctx(tmp_path)
    pid = manager.connection("kitchen").pid
    with pytest.raises(ToolError, match="kitchen could not complete the call"):
        _tool(manager, "mcp__kitchen__crash").run({}, ctx)
    _poll(lambda: manager.states["kitchen"].status == "failed")
    state = manager.states["kitchen"]
    assert "closed the connection" in state.error and "about to crash: goodbye" in state.stderr_tail
    with pytest.raises(ToolError, match="not connected"):
        McpTool(manager, "kitchen", {"name": "echo"}, "mcp__kitchen__echo", 100).run({"text": "x"}, ctx)
    manager.reconnect("kitchen")
    assert manager.wait(["kitchen"], timeout=30) and state.status == "connected"
    assert manager.connection("kitchen").pid != pid
    assert _tool(manager, "mcp__kitchen__echo").run({"text": "again"}, ctx).text() == "echo: again"


def test_slow_start_times_out_and_close_ends_the_process_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TIMEOUT", "1500")
    assert McpManager([], project_dir=tmp_path).start_timeout == 1.5
    monkeypatch.delenv("MCP_TIMEOUT")
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "500")
    sleepy = replace(kitchen("sleepy", "--slow-start", "30"), timeout=1.5)  # "timeout": 1500 in .mcp.json
    manager = McpManager([sleepy, kitchen("quick")], project_dir=tmp_path, log_dir=tmp_path / "logs")
    manager.start()
    assert manager.wait(timeout=40)
    assert manager.states["sleepy"].status == "failed"
    assert manager.states["sleepy"].error == "it did not finish starting within 1.5 s (its timeout setting)"
    _poll(lambda: "kitchen: starting" in manager.states["sleepy"].stderr_tail)
    ctx, _ = _ctx(tmp_path)
    with pytest.raises(ToolError, match=r"did not answer within 0.5 s \(MCP_TOOL_TIMEOUT\)"):
        _tool(manager, "mcp__quick__slow").run({"seconds": 5}, ctx)
    pid = manager.connection("quick").pid
    assert pid is not None and read_stat(pid) is not None
    manager.close()
    assert read_stat(pid) is None or read_stat(pid).state == "Z"  # type: ignore[union-attr]


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_http_and_sse_transports(tmp_path: Path, transport: str) -> None:
    port = free_port()
    server = _serve(transport, port)
    try:
        path = "/mcp" if transport == "http" else "/sse"
        config = McpServerConfig(
            "web",
            transport,
            url=f"http://127.0.0.1:{port}{path}",  # type: ignore[arg-type]
            headers={"X-Test": "1"},
        )
        manager = McpManager([config], project_dir=tmp_path, log_dir=tmp_path / "logs")
        manager.start()
        assert manager.wait(timeout=30) and manager.states["web"].status == "connected", manager.states["web"].error
        ctx, _ = _ctx(tmp_path)
        assert _tool(manager, "mcp__web__echo").run({"text": "over http"}, ctx).text() == "echo: over http"
        if transport == "http":  # the server goes away and comes back: reconnected with backoff, as Claude Code
            os.killpg(server.pid, 9)
            server.wait()
            with pytest.raises(ToolError, match="web could not complete the call"):
                _tool(manager, "mcp__web__echo").run({"text": "gone"}, ctx)
            _poll(lambda: "reconnecting in 1 s (attempt 1 of 5)" in manager.states["web"].error)
            server = _serve(transport, port)
            _poll(lambda: manager.states["web"].status == "connected", timeout=40)
            assert _tool(manager, "mcp__web__echo").run({"text": "back"}, ctx).text() == "echo: back"
        manager.close()
    finally:
        os.killpg(server.pid, 9)
        server.wait()


def _serve(transport: str, port: int) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.mcp_servers.kitchen", f"--{transport}", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    wait_for_port(port)
    return server


def _poll(test: Any, timeout: float = 20.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not test():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


def test_a_stdio_server_that_exits_leaving_a_child_on_its_stdout_fails_at_once(tmp_path: Path) -> None:
    child = tmp_path / "child.pid"
    script = f'setsid sleep 60 & echo $! > "{child}"; echo "bye" >&2; exit 3'
    config = McpServerConfig("leaver", command="/bin/sh", args=("-c", script), timeout=600)
    manager = McpManager([config], project_dir=tmp_path, log_dir=tmp_path / "logs")
    manager.start()
    assert manager.wait(timeout=60)  # main waited for the 600 s start timeout: the child held stdout open
    state = manager.states["leaver"]
    assert state.status == "failed" and "closed the connection" in state.error
    _poll(lambda: read_stat(int(child.read_text())) is None or read_stat(int(child.read_text())).state == "Z")
    manager.close()
