"""`agent-tui -p` with MCP servers, end to end: the fake API's model calls an MCP tool."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.mcp_helpers import ROOT

KITCHEN = {"command": sys.executable, "args": ["-m", "tests.mcp_servers.kitchen"], "cwd": str(ROOT)}


def _run(args: list[str], project: Path, home: Path, base_url: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "XDG_"))}
    env.update(
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="sk-test",
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        PYTHONPATH=str(ROOT),
    )
    return subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "-p", *args, "--cwd", str(project)],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )


def test_stream_json_lists_servers_and_the_model_calls_an_mcp_tool(tmp_path: Path) -> None:
    project = tmp_path / "untrusted"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": KITCHEN}}))  # untrusted: never started
    config = json.dumps({"mcpServers": {"kitchen": KITCHEN, "broken": {"command": str(tmp_path / "nope")}}})
    script = [
        reply(tool_use("mcp__kitchen__add", {"a": 2, "b": 3}), stop_reason="tool_use"),
        reply(text("2 + 3 = 5"), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        proc = _run(
            ["add 2 and 3", "--mcp-config", config, "--output-format", "stream-json", "--allowedTools", "mcp__kitchen"],
            project,
            tmp_path,
            api.base_url,
        )
        bodies = [r.body for r in api.message_requests]
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    init = lines[0]
    assert init["mcp_servers"] == [{"name": "kitchen", "status": "connected"}, {"name": "broken", "status": "failed"}]
    assert "mcp__kitchen__add" in init["tools"] and not any(t.startswith("mcp__proj") for t in init["tools"])
    sent = {t["name"]: t for t in bodies[0]["tools"]}
    assert sent["mcp__kitchen__add"]["description"] == "Add two numbers."
    assert sent["mcp__kitchen__add"]["input_schema"]["required"] == ["a", "b"]
    result = bodies[1]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["content"] == "5" and not result.get("is_error")
    assert not any(line["type"].startswith("mcp_") for line in lines)  # MCP traffic stays out of stream-json


def test_text_mode_warns_once_per_failed_server_and_trusted_project_servers_start(tmp_path: Path) -> None:
    project = tmp_path / "trusted"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": KITCHEN}}))
    settings = tmp_path / "config" / "agent-tui" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text(f'trusted_folders = ["{project}"]\n')
    config = json.dumps({"mcpServers": {"broken": {"command": str(tmp_path / "nope")}}})
    script = [
        reply(tool_use("mcp__proj__echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("It said echo: hi."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        proc = _run(
            ["say hi through proj", "--mcp-config", config, "--allowedTools", "mcp__proj__echo"],
            project,
            tmp_path,
            api.base_url,
        )
        bodies = [r.body for r in api.message_requests]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "It said echo: hi."
    warnings = [line for line in proc.stderr.splitlines() if "MCP server" in line]
    assert len(warnings) == 1 and warnings[0].startswith(
        "agent-tui: MCP server broken failed: the command was not found"
    )
    assert bodies[1]["messages"][-1]["content"][0]["content"] == "echo: hi"


def test_no_server_configured_never_imports_mcp(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from tui.cli.main import main\n"
        "rc = main(['-p', 'hello', '--offline', '--cwd', sys.argv[1]])\n"
        "loaded = [m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'tui.mcp'))]\n"
        "assert not loaded, loaded\n"
        "sys.exit(rc)\n"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60, env=env, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
