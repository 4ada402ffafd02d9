"""One client object for every profile: a request goes to the endpoint its model names.

`RoutingClient.messages.stream(model="local:qwen3-coder", …)` sends `model: qwen3-coder` to profile
`local`'s client; a plain model name goes to the default provider's. What an endpoint lacks (declared in its
`supports`, or learned from a 400 that names it) is taken out of the request before it is sent: cache marks,
thinking, images (a sentence in their place) and tools (earlier tool calls become text).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from .profiles import Profile, split_model

#: a 400's words that say which capability the endpoint lacks
_LACKS = {
    "caching": ("cache_control",),
    "thinking": ("thinking",),
    "images": ("image",),
    "tools": ("tool",),
}


def lacking(message: str, missing: set[str]) -> str | None:
    """The capability a 400 message names that is not yet known to be missing, else None."""
    text = message.lower()
    for capability, words in _LACKS.items():
        if capability not in missing and any(word in text for word in words):
            return capability
    return None


def _strip_cache(value: Any) -> None:
    if isinstance(value, dict):
        value.pop("cache_control", None)
        for item in value.values():
            _strip_cache(item)
    elif isinstance(value, list):
        for item in value:
            _strip_cache(item)


def _block_text(block: dict[str, Any]) -> dict[str, Any]:
    """A tool_use or tool_result block written as text, for an endpoint without tools."""
    if block.get("type") == "tool_use":
        return {"type": "text", "text": f"[called {block.get('name')} with {block.get('input')}]"}
    content = block.get("content")
    if isinstance(content, list):
        content = " ".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return {"type": "text", "text": f"[result: {content}]"}


def adapt(params: dict[str, Any], profile: Profile, missing: set[str]) -> dict[str, Any]:
    """`params` without what `profile`'s endpoint lacks (declared or learned); a deep copy when changed."""
    lacks = (set(profile.supports) ^ {"tools", "thinking", "images", "caching"}) | missing
    if profile.max_output and int(params.get("max_tokens") or 0) > profile.max_output:
        params = {**params, "max_tokens": profile.max_output}  # more than the endpoint can give is a 400
    if not lacks:
        return params
    params = copy.deepcopy(params)
    extra = params.get("extra_body")
    body = extra if isinstance(extra, dict) and "messages" in extra else params  # the history rides in extra_body
    if "caching" in lacks:
        _strip_cache(params)
    if "thinking" in lacks:
        body.pop("thinking", None)
        body.pop("output_config", None)
    for message in body.get("messages", []):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        blocks = []
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind in ("thinking", "redacted_thinking") and "thinking" in lacks:
                continue
            if kind == "image" and "images" in lacks:
                block = {"type": "text", "text": f"[an image, left out: provider `{profile.name}` takes no images]"}
            elif kind in ("tool_use", "tool_result") and "tools" in lacks:
                block = _block_text(block)
            blocks.append(block)
        message["content"] = blocks or [{"type": "text", "text": "(empty)"}]
    if "tools" in lacks:
        body.pop("tools", None)
        body.pop("tool_choice", None)
    return params


class _Messages:
    """`client.messages` of the RoutingClient: stream, create and count_tokens, routed by model."""

    def __init__(self, router: RoutingClient) -> None:
        self._router = router

    @contextmanager
    def _stream(self, client: Any, profile: Profile, params: dict[str, Any]) -> Iterator[Any]:
        import anthropic

        missing = self._router.missing.setdefault(profile.name, set())
        while True:
            manager = client.messages.stream(**adapt(params, profile, missing))
            try:
                stream = manager.__enter__()  # the request is sent here; a 400 arrives here
                break
            except anthropic.BadRequestError as exc:
                learned = lacking(str(exc), missing)
                if learned is None:
                    raise
                missing.add(learned)  # the endpoint said what it lacks: the request goes again without it
        with ExitStack() as stack:
            stack.push(manager.__exit__)
            yield stream

    def stream(self, **params: Any) -> Any:
        client, model, profile = self._router.route(str(params.get("model", "")))
        params["model"] = model
        if profile is None:
            return client.messages.stream(**params)
        return self._stream(client, profile, params)

    def create(self, **params: Any) -> Any:
        client, model, profile = self._router.route(str(params.get("model", "")))
        params["model"] = model
        if profile is not None:
            params = adapt(params, profile, self._router.missing.get(profile.name, set()))
        return client.messages.create(**params)

    def count_tokens(self, **params: Any) -> Any:
        client, model, _ = self._router.route(str(params.get("model", "")))
        return client.messages.count_tokens(**{**params, "model": model})


class RoutingClient:
    """The default provider's client and one client per profile, built on first use."""

    def __init__(self, default: Any, profiles: dict[str, Profile], build: Callable[[Profile], Any]) -> None:
        self.default = default
        self.profiles = profiles
        self._build = build
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()
        #: capabilities each profile's endpoint turned out to lack (from its 400s)
        self.missing: dict[str, set[str]] = {}
        self.messages = _Messages(self)

    @property
    def models(self) -> Any:
        return self.default.models

    @property
    def base_url(self) -> Any:
        return self.default.base_url

    def route(self, model: str) -> tuple[Any, str, Profile | None]:
        """(the client, the model name it is sent, the profile) for `model`."""
        profile, name = split_model(model, self.profiles)
        if profile is None:
            return self.default, model, None
        with self._lock:
            if profile.name not in self._clients:
                self._clients[profile.name] = self._build(profile)
            return self._clients[profile.name], name, profile

    def close(self) -> None:
        for client in [self.default, *self._clients.values()]:
            try:
                client.close()
            except Exception:  # noqa: BLE001 - closing is best effort at the end of a session
                pass
