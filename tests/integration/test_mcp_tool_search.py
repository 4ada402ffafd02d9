"""Tool search end to end: big MCP servers stay out of the first request until ToolSearch loads a tool."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeapi.script import reply, text, tool_use
from tests.integration.mcp_search_run import run_print


def test_tool_search_loads_a_deferred_tool_that_the_model_then_calls(tmp_path: Path) -> None:
    script = [
        reply(tool_use("ToolSearch", {"query": "select:mcp__tracker__tracker_get_1"}), stop_reason="tool_use"),
        reply(tool_use("mcp__tracker__tracker_get_1", {"target": "T-7"}), stop_reason="tool_use"),
        reply(text("Done."), stop_reason="end_turn"),
    ]
    proc, bodies = run_print(
        script, {"tracker": 40}, tmp_path / "on", extra=("--allowedTools", "mcp__tracker", "--output-format", "json")
    )
    assert proc.returncode == 0, proc.stderr
    first = [t["name"] for t in bodies[0]["tools"]]
    assert "ToolSearch" in first and not any(name.startswith("mcp__") for name in first)
    found = bodies[1]["messages"][-1]["content"][0]
    assert found["type"] == "tool_result" and '"name": "mcp__tracker__tracker_get_1"' in found["content"]
    second = [t["name"] for t in bodies[1]["tools"]]
    assert second[-1] == "mcp__tracker__tracker_get_1" and sum(n.startswith("mcp__") for n in second) == 1
    called = bodies[2]["messages"][-1]["content"][0]
    assert called["content"] == "tracker_get_1 ran on T-7 (limit 10)" and not called.get("is_error")
    assert json.loads(proc.stdout)["result"] == "Done."

    proc, bodies = run_print(
        [reply(text("ok"), stop_reason="end_turn")], {"tracker": 40}, tmp_path / "off", search="false"
    )
    assert proc.returncode == 0, proc.stderr
    sent = [t["name"] for t in bodies[0]["tools"]]
    assert "ToolSearch" not in sent and sum(n.startswith("mcp__tracker__") for n in sent) == 40
