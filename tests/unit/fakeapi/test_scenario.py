"""The Claude Code comparison scenario plays end to end through the SDK with valid tool_result turns."""

from __future__ import annotations

from pathlib import Path

from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.scriptfile import load_script
from tests.unit.fakeapi.conftest import as_param, make_client, run_stream

SCENARIO = Path(__file__).resolve().parents[3] / "tests/fakeapi/scenarios/three_step.json"


def test_three_step_scenario_loop(fake_api, tmp_path):
    project = make_demo_project(tmp_path)
    api = fake_api(load_script(SCENARIO, project), token_delay=0.001)
    client = make_client(api)
    system = [{"type": "text", "text": "You are agent-tui.", "cache_control": {"type": "ephemeral"}}]
    messages = [{"role": "user", "content": "Look at a.py and b.py, find the TODOs, and fix the one in a.py."}]
    stop_reasons = []
    while True:
        final = run_stream(client, messages, system=system)
        stop_reasons.append(final.stop_reason)
        messages.append(as_param(final))
        if final.stop_reason != "tool_use":
            break
        results = [
            {"type": "tool_result", "tool_use_id": b.id, "content": f"ran {b.name}"}
            for b in final.content
            if b.type == "tool_use"
        ]
        messages.append({"role": "user", "content": list(reversed(results))})  # any order is valid
    assert stop_reasons == ["tool_use", "tool_use", "end_turn"]
    assert api.errors == [] and [r.status for r in api.requests] == [200, 200, 200]
    assert "TODO" in messages[-1]["content"][0]["text"]
