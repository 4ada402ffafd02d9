"""Shared helpers: a real SDK client pointed at a FakeAPI."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic
import pytest

from tests.fakeapi import FakeAPI

USER_HI = [{"role": "user", "content": "hi"}]


def make_client(api: FakeAPI, **options: Any) -> anthropic.Anthropic:
    options.setdefault("max_retries", 0)
    return anthropic.Anthropic(api_key="sk-test", base_url=api.base_url, **options)


def run_stream(client: anthropic.Anthropic, messages: list[dict[str, Any]] | None = None, **params: Any) -> Any:
    """One `messages.stream` call; returns the final message."""
    with client.messages.stream(
        model="claude-opus-5", max_tokens=1024, messages=messages or USER_HI, **params
    ) as stream:
        return stream.get_final_message()


def as_param(message: Any) -> dict[str, Any]:
    """An assistant message as request input (what `to_param()` gives in newer SDKs)."""
    return {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]}


@pytest.fixture
def fake_api() -> Any:
    """Factory: `fake_api(script, **kwargs)` starts a server that is stopped after the test."""
    started: list[FakeAPI] = []

    def start(script: Any, **kwargs: Any) -> FakeAPI:
        api = FakeAPI(script, **kwargs)
        started.append(api)
        return api

    yield start
    for api in started:
        api.stop()


Factory = Callable[..., FakeAPI]
