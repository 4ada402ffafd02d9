"""Request building: system[] blocks, tools[], cache breakpoints, no sampling fields."""

from __future__ import annotations

from pathlib import Path

from tui.agent.api.request import build_request, build_system, build_tools, count_breakpoints, mark_messages


def body_for(messages, tmp_path: Path):
    return build_request(
        model="claude-sonnet-5-5",
        max_tokens=1000,
        system=build_system(tmp_path, "claude-sonnet-5-5", "# Memory\nuse tabs"),
        tools=build_tools(
            [
                {"name": "Read", "description": "d", "input_schema": {"type": "object"}},
                {"name": "Bash", "description": "d", "input_schema": {"type": "object"}},
            ]
        ),
        messages=messages,
    )


def test_system_is_an_array_with_a_stable_cached_first_block(tmp_path):
    system = build_system(tmp_path, "m", "# Memory\nuse tabs")
    assert system[0]["cache_control"] == {"type": "ephemeral"}
    assert "agent-tui" in system[0]["text"]
    assert system[1]["text"].startswith("# Memory") and "cache_control" not in system[1]
    env = system[-1]["text"]
    assert f"Working directory: {tmp_path}" in env and "Is a git repository: no" in env and "date" in env


def test_environment_names_the_git_branch(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/feature-x\n")
    env = build_system(tmp_path, "m")[-1]["text"]
    assert "branch feature-x" in env


def test_body_has_the_required_fields_and_no_sampling_fields(tmp_path):
    body = body_for([{"role": "user", "content": [{"type": "text", "text": "hi"}]}], tmp_path)
    assert body["stream"] is True and body["max_tokens"] == 1000
    assert not {"temperature", "top_p", "top_k"} & body.keys()
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in body["tools"][0]


def test_the_message_breakpoint_moves_forward_and_history_is_untouched(tmp_path):
    history = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "x"}, {"type": "tool_use", "id": "t1", "name": "Read", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]},
    ]
    body = body_for(history, tmp_path)
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in body["messages"][0]["content"][0]
    assert all("cache_control" not in b for m in history for b in m["content"])
    assert count_breakpoints(body) == 3


def test_a_big_exchange_gets_a_second_message_breakpoint_but_never_more_than_four(tmp_path):
    uses = [{"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {}} for i in range(12)]
    results = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "r"} for i in range(12)]
    history = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": uses},
        {"role": "user", "content": results},
    ]
    body = body_for(history, tmp_path)
    assert body["messages"][0]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert count_breakpoints(body) == 4


def test_thinking_blocks_and_empty_text_are_never_marked():
    marked = mark_messages(
        [
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}, {"type": "thinking", "thinking": "", "signature": "s"}],
            }
        ]
    )
    assert marked[0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in marked[0]["content"][1]


def test_sdk_params_send_the_same_body(tmp_path):
    from tui.agent.api.request import sdk_params

    body = body_for([{"role": "user", "content": [{"type": "text", "text": "hi"}]}], tmp_path)
    params = sdk_params(body)
    merged = {"model": params["model"], "max_tokens": params["max_tokens"], **params["extra_body"], "stream": True}
    assert merged == body
