"""Malformed requests get the API's exact 400 texts and are recorded in `.errors`."""

from __future__ import annotations

import anthropic
import pytest

from tests.fakeapi import pause_turn, reply, text, thinking, tool_use
from tests.unit.fakeapi.conftest import as_param, make_client, run_stream

TOOL_USE_TURN = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "Reading both."},
        {"type": "tool_use", "id": "toolu_01A", "name": "Read", "input": {"file_path": "a.py"}},
        {"type": "tool_use", "id": "toolu_01B", "name": "Read", "input": {"file_path": "b.py"}},
    ],
}


def rejected(api, messages, **params) -> str:
    with pytest.raises(anthropic.BadRequestError) as info:
        run_stream(make_client(api), messages, **params)
    message = info.value.body["error"]["message"]
    assert api.errors[-1] == message
    return message


def test_tool_use_without_result_gets_the_exact_400(fake_api):
    api = fake_api([reply(text("unused"))])
    messages = [
        {"role": "user", "content": "go"},
        TOOL_USE_TURN,
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "1"}]},
    ]
    assert rejected(api, messages) == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01B. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )
    assert len(api.requests) == 1  # a rejected request consumes no script step
    assert run_stream(make_client(api)).content[0].text == "unused"


def test_results_after_text_do_not_count(fake_api):
    api = fake_api([])
    messages = [
        {"role": "user", "content": "go"},
        TOOL_USE_TURN,
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "here"},
                {"type": "tool_result", "tool_use_id": "toolu_01A"},
                {"type": "tool_result", "tool_use_id": "toolu_01B"},
            ],
        },
    ]
    assert "toolu_01A, toolu_01B" in rejected(api, messages)


def test_orphan_tool_result_gets_the_exact_400(fake_api):
    api = fake_api([])
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "hm"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "x"},
                {"type": "tool_result", "tool_use_id": "toolu_01Z", "content": "?"},
            ],
        },
    ]
    assert rejected(api, messages) == (
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Z. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
    )


def test_five_cache_breakpoints_are_refused(fake_api):
    api = fake_api([])
    marked = {"type": "ephemeral"}
    system = [{"type": "text", "text": f"part {i}", "cache_control": marked} for i in range(3)]
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "a", "cache_control": marked},
                {"type": "text", "text": "b", "cache_control": marked},
            ],
        }
    ]
    assert (
        rejected(api, messages, system=system) == "A maximum of 4 blocks with cache_control may be provided. Found 5."
    )


def test_sampling_parameters_and_prefill_are_refused(fake_api):
    api = fake_api([])
    assert (
        rejected(api, None, extra_body={"temperature": 0.2}, extra_headers={"anthropic-version": "2026-10-21"})
        == "temperature: Extra inputs are not permitted"
    )
    prefill = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure"}]
    assert "must end with a user message" in rejected(api, prefill)


def test_system_string_is_recorded_but_answered(fake_api):
    api = fake_api([reply(text("fine"))])
    assert run_stream(make_client(api), system="plain string").content[0].text == "fine"
    assert api.errors == ["system: expected an array of text blocks"]


def test_modified_thinking_block_is_refused_and_unchanged_echo_accepted(fake_api):
    api = fake_api(
        [
            reply(
                thinking("plan: read a.py", signature="sig1"),
                tool_use("Read", {"file_path": "a.py"}),
                stop_reason="tool_use",
            ),
            reply(text("done")),
        ]
    )
    client = make_client(api)
    first = run_stream(client)
    echoed = as_param(first)
    history = [
        {"role": "user", "content": "go"},
        echoed,
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": first.content[1].id, "content": "def add"}],
        },
    ]
    tampered = {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "plan: read b.py", "signature": "sig1"}, echoed["content"][1]],
    }
    message = rejected(api, [history[0], tampered, history[2]])
    assert message.startswith("messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest")
    dropped = {"role": "assistant", "content": [echoed["content"][1]]}
    assert rejected(api, [history[0], dropped, history[2]]).startswith("messages.1.content.0:")
    assert run_stream(client, history).content[0].text == "done"


def test_pause_turn_resume_may_end_with_the_assistant_turn(fake_api):
    api = fake_api([pause_turn("docs"), reply(text("found it"))])
    client = make_client(api)
    paused = run_stream(client)
    resumed = run_stream(client, [{"role": "user", "content": "search"}, as_param(paused)])
    assert resumed.content[0].text == "found it" and api.errors == []


def test_thinking_and_effort_get_the_apis_400s(fake_api):
    api = fake_api([reply(text("ok"))] * 2)

    def body(**fields):  # model and max_tokens too: run_stream fixes them, extra_body overrides them
        return {"extra_body": fields}

    assert "does not match any of the expected tags" in rejected(api, None, **body(thinking={"type": "on"}))
    assert rejected(api, None, **body(thinking={"type": "enabled", "budget_tokens": 500})) == (
        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    )
    assert rejected(
        api,
        None,
        **body(model="claude-haiku-4-5", max_tokens=2000, thinking={"type": "enabled", "budget_tokens": 4000}),
    ).startswith("`max_tokens` must be greater than `thinking.budget_tokens`")
    assert rejected(api, None, **body(max_tokens=4000, thinking={"type": "enabled", "budget_tokens": 1024})).startswith(
        '"thinking.type.enabled" is not supported for this model'
    )
    assert rejected(api, None, **body(model="claude-haiku-4-5", thinking={"type": "adaptive"})) == (
        "adaptive thinking is not supported on this model"
    )
    assert rejected(api, None, **body(output_config={"effort": "extreme"})) == (
        "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"
    )
    assert "effort" in rejected(api, None, **body(model="claude-haiku-4-5", output_config={"effort": "low"}))
    ok = run_stream(make_client(api), None, **body(thinking={"type": "adaptive"}, output_config={"effort": "max"}))
    assert ok.stop_reason == "end_turn"
