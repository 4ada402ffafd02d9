"""The transport under the real SDK: routes, headers, usage, pacing, cancel, import cost."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.unit.offline.conftest import make_client, tool_defs
from tui.agent.offline import PacedEventStream, encode_sse

PROMPT = [{"role": "user", "content": "find the TODOs and fix one"}]


def test_stream_parses_with_request_id_and_usage(project: Path) -> None:
    client, _ = make_client(project)
    with client.messages.stream(model="claude-x", max_tokens=500, messages=PROMPT, tools=tool_defs()) as stream:
        events = [event.type for event in stream]
        final = stream.get_final_message()
        assert stream.request_id == "req_offline_1"
    assert final.model == "claude-x" and final.id.startswith("msg_offline_")
    assert final.stop_reason == "tool_use"
    assert "text" in events and "input_json" in events
    assert final.usage.input_tokens > 10 and final.usage.output_tokens > 10


def test_non_stream_create_and_count_tokens(project: Path) -> None:
    client, _ = make_client(project)
    message = client.messages.create(model="m", max_tokens=500, messages=PROMPT, tools=tool_defs())
    assert message.stop_reason == "tool_use"
    assert [block.type for block in message.content] == ["text", "tool_use", "tool_use", "tool_use"]
    count = client.messages.count_tokens(model="m", messages=PROMPT, tools=tool_defs())
    assert count.input_tokens == message.usage.input_tokens


def test_unknown_route_is_404_and_bad_history_is_400(project: Path) -> None:
    import anthropic

    client, _ = make_client(project)
    with pytest.raises(anthropic.NotFoundError):
        client.models.list()
    dangling = PROMPT + [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {}}]},
        {"role": "user", "content": "go on"},
    ]
    with pytest.raises(anthropic.BadRequestError, match="toolu_1"):
        client.messages.create(model="m", max_tokens=10, messages=dangling)
    with pytest.raises(anthropic.BadRequestError, match="prefill"):
        client.messages.create(model="m", max_tokens=10, messages=PROMPT + [{"role": "assistant", "content": "Sure"}])


def test_cache_breakpoints_write_then_read(project: Path) -> None:
    client, _ = make_client(project)
    system = [{"type": "text", "text": "You are a coding agent. " * 80, "cache_control": {"type": "ephemeral"}}]
    first = client.messages.create(model="m", max_tokens=500, system=system, messages=PROMPT, tools=tool_defs())
    assert first.usage.cache_creation_input_tokens > 400 and first.usage.cache_read_input_tokens == 0
    second = client.messages.create(
        model="m",
        max_tokens=500,
        system=system,
        messages=[
            {"role": "user", "content": [{"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}]}
        ],
        tools=tool_defs(),
    )
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.cache_creation_input_tokens > 0
    assert second.usage.cache_creation.ephemeral_5m_input_tokens == second.usage.cache_creation_input_tokens


def _timed_stream(project: Path, delay: float) -> tuple[float, int]:
    client, transport = make_client(project, delay=delay)
    started = time.perf_counter()
    with client.messages.stream(model="m", max_tokens=500, messages=PROMPT, tools=tool_defs()) as stream:
        stream.get_final_message()
    frames = transport.last_stream.frames_sent
    return time.perf_counter() - started, frames


def test_delay_paces_the_deltas(project: Path) -> None:
    fast, _ = _timed_stream(project, 0.0)
    slow, frames = _timed_stream(project, 0.005)
    deltas = frames - 8  # message_start/delta/stop, ping and two frames per block are not paced
    assert deltas > 20
    assert slow >= deltas * 0.005
    assert slow > fast + 0.1


def test_closing_the_stream_early_stops_the_generator(project: Path) -> None:
    client, transport = make_client(project, delay=0.002)
    with client.messages.stream(model="m", max_tokens=500, messages=PROMPT, tools=tool_defs()) as stream:
        for index, _ in enumerate(stream):
            if index == 3:
                break
    body = transport.last_stream
    assert body.closed and not body.finished
    sent = body.frames_sent
    assert sent < 15
    assert list(body) == [] and body.frames_sent == sent


def test_close_from_another_thread_interrupts_a_pause() -> None:
    blocks = [{"type": "text", "text": "word " * 200}]
    body = PacedEventStream(encode_sse(blocks, "end_turn", {"input_tokens": 1}, "m"), delay=0.5)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.extend(body))
    started = time.perf_counter()
    reader.start()  # waits 5 s (ten deltas' worth) before the first frame unless closed
    body.close()
    reader.join(timeout=3)
    assert not reader.is_alive()
    assert time.perf_counter() - started < 1.0
    assert received == [] and not body.finished


def test_import_does_not_load_anthropic() -> None:
    code = "import tui.agent.offline, sys; assert 'anthropic' not in sys.modules, 'anthropic loaded'"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=Path(__file__).parents[3], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr


def test_thinking_streams_through_the_sdk(project: Path) -> None:
    client, _ = make_client(project)
    with client.messages.stream(
        model="m",
        max_tokens=2000,
        messages=PROMPT,
        tools=tool_defs(),
        thinking={"type": "adaptive", "display": "summarized"},
    ) as stream:
        kinds = {event.type for event in stream}
        final = stream.get_final_message()
    assert {"thinking", "signature"} <= kinds
    assert final.content[0].type == "thinking"
    assert final.content[0].thinking and final.content[0].signature.startswith("offline-")
    assert final.content[1].type == "text"


def test_thinking_and_effort_the_sdk_types_allow_are_accepted(project: Path) -> None:
    import anthropic

    client, _ = make_client(project)
    with pytest.raises(anthropic.BadRequestError, match=r"output_config.effort"):
        client.messages.create(
            model="m", max_tokens=10, messages=PROMPT, extra_body={"output_config": {"effort": "hi"}}
        )
    with pytest.raises(anthropic.BadRequestError, match="budget_tokens"):
        client.messages.create(
            model="m",
            max_tokens=2000,
            messages=PROMPT,
            extra_body={"thinking": {"type": "enabled", "budget_tokens": 4000}},
        )
    message = client.messages.create(
        model="m",
        max_tokens=100,
        messages=PROMPT,
        extra_body={"thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": "xhigh"}},
    )
    assert message.content[0].type == "thinking"
