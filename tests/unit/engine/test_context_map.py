"""/context's figures: parts add up to the measured total, the biggest tool results are named, -p json carries them."""

from __future__ import annotations

import json

from tests.fakeapi.demo_project import make_demo_project
from tests.integration.test_headless import run_cli
from tui.agent.context.map import context_map
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession


def test_the_map_names_what_fills_the_window(tmp_path) -> None:
    session = AgentSession(AgentOptions(project_dir=tmp_path, transcript=False, offline=True))
    big = "x" * 40_000
    for n in range(6):
        session.messages += [
            {"role": "user", "content": [{"type": "text", "text": f"prompt {n}"}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {"file_path": f"f{n}.py"}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": big if n == 2 else "ok"}],
            },
        ]
    session.context.observe({"input_tokens": 100, "cache_read_input_tokens": 20_000, "output_tokens": 10})
    figures = context_map(session)
    assert figures["used"] == 20_110 and not figures["estimated"]
    assert abs(sum(p["tokens"] for p in figures["parts"]) - 20_110) < len(figures["parts"])
    assert figures["tool_results"][0]["label"] == "Read(f2.py)"
    assert figures["top"][0]["label"] == "turn: prompt 2"
    assert {"system", "tool", "turn"} <= set(figures["categories"])
    assert figures["cached_share"] == round(20_000 / 20_100, 3)
    assert figures["free"] == figures["window"] - 20_110
    assert figures["compaction_would_drop"]["messages"] > 0 and figures["compaction_threshold"] > 0


def test_print_mode_json_has_a_context_key(tmp_path) -> None:
    project = make_demo_project(tmp_path / "proj")
    done = run_cli(
        ["-p", "--offline", "--output-format", "json", "list the python files"],
        project,
        {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)},
    )
    context = json.loads(done.stdout)["context"]
    assert context["used"] > 0 and context["window"] == context["used"] + context["free"]
    assert any(p["label"] == "tool Read" for p in context["parts"])
