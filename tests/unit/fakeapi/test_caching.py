"""The cache simulation reports reads/writes the way the real API would for a growing conversation."""

from __future__ import annotations

from tests.fakeapi import reply, text
from tests.fakeapi.caching import CacheSimulator
from tests.unit.fakeapi.conftest import make_client, run_stream

EPHEMERAL = {"type": "ephemeral"}
SYSTEM = [{"type": "text", "text": "You are a coding agent. " * 333, "cache_control": EPHEMERAL}]  # ~2,000 tokens


def with_breakpoint_on_last(messages):
    """Copy of `messages` whose last user block carries the (moving) conversation breakpoint."""
    out = [dict(m) for m in messages]
    last = out[-1]
    last["content"] = [dict(b) for b in last["content"]]
    last["content"][-1]["cache_control"] = EPHEMERAL
    return out


def test_growing_conversation_reads_at_least_90_percent_from_cache(fake_api):
    api = fake_api(lambda body: reply(text(f"Answer number {len(body['messages']) // 2 + 1}, " + "detail " * 20)))
    client = make_client(api)
    history = [{"role": "user", "content": [{"type": "text", "text": "Question 1: " + "context " * 40}]}]
    usages = []
    for turn in range(10):
        final = run_stream(client, with_breakpoint_on_last(history), system=SYSTEM)
        usages.append(final.usage)
        history += [
            {"role": "assistant", "content": [{"type": "text", "text": final.content[0].text}]},
            {"role": "user", "content": [{"type": "text", "text": f"Question {turn + 2}: " + "more " * 30}]},
        ]
    first = usages[0]
    assert first.cache_read_input_tokens == 0 and first.cache_creation_input_tokens >= 2000
    for usage in usages[1:]:
        total = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
        assert usage.cache_read_input_tokens / total >= 0.9
        assert usage.cache_creation.ephemeral_5m_input_tokens == usage.cache_creation_input_tokens > 0
    assert api.errors == []


def body_of(blocks: list[dict], system_text: str = "s" * 4400) -> dict:
    return {
        "model": "m",
        "system": [{"type": "text", "text": system_text}],
        "messages": [{"role": "user", "content": blocks}],
    }


def test_prefix_below_minimum_is_not_cached():
    cache = CacheSimulator(min_cache_tokens=1024)
    small = body_of([{"type": "text", "text": "hi", "cache_control": EPHEMERAL}], system_text="short")
    for _ in range(2):
        usage = cache.usage_for(small)
        assert usage["cache_read_input_tokens"] == usage["cache_creation_input_tokens"] == 0


def test_entries_expire_after_five_minutes():
    now = [0.0]
    cache = CacheSimulator(clock=lambda: now[0])
    body = body_of([{"type": "text", "text": "x", "cache_control": EPHEMERAL}])
    written = cache.usage_for(body)["cache_creation_input_tokens"]
    now[0] = 200.0
    assert cache.usage_for(body)["cache_read_input_tokens"] == written  # a hit refreshes the TTL
    now[0] = 499.0
    assert cache.usage_for(body)["cache_read_input_tokens"] == written
    now[0] = 900.0
    usage = cache.usage_for(body)
    assert usage["cache_read_input_tokens"] == 0 and usage["cache_creation_input_tokens"] == written


def test_lookback_stops_after_twenty_blocks():
    cache = CacheSimulator()
    base = [{"type": "text", "text": f"block {i}"} for i in range(3)]
    base[-1] = {**base[-1], "cache_control": EPHEMERAL}
    cache.usage_for(body_of(base))
    near = base[:2] + [{"type": "text", "text": "block 2"}] + [{"type": "text", "text": f"n{i}"} for i in range(18)]
    near[-1] = {**near[-1], "cache_control": EPHEMERAL}
    assert cache.usage_for(body_of(near))["cache_read_input_tokens"] > 0
    far = base[:2] + [{"type": "text", "text": "block 2"}] + [{"type": "text", "text": f"f{i}"} for i in range(20)]
    far[-1] = {**far[-1], "cache_control": EPHEMERAL}
    assert cache.usage_for(body_of(far))["cache_read_input_tokens"] == 0
