"""Input-side usage of a request, with a prompt cache simulated from its breakpoints.

The prefix is tools → system → messages (the API's cache prefix order). Each request writes the prefix
up to each `cache_control` breakpoint; a later request reads the longest prefix that an
earlier one wrote. Tokens are chars/4 of each block's JSON. No minimum cacheable length
and no TTL: the offline model wants the numbers to show up in a short demo.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

from tui.agent.offline.sse import estimate_tokens


def prefix_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's cacheable units in prefix order: tools, system blocks, message blocks."""
    units: list[dict[str, Any]] = [tool for tool in body.get("tools") or [] if isinstance(tool, dict)]
    system = body.get("system")
    if isinstance(system, str):
        units.append({"type": "text", "text": system})
    elif isinstance(system, list):
        units.extend(block for block in system if isinstance(block, dict))
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            units.append({"role": message.get("role"), "type": "text", "text": content})
        else:
            units.extend({"role": message.get("role"), **block} for block in content or [] if isinstance(block, dict))
    return units


def count_input_tokens(body: dict[str, Any]) -> int:
    """The whole request's input tokens, as `count_tokens` reports them."""
    return sum(estimate_tokens(unit) for unit in prefix_blocks(body))


class PromptCacheSimulator:
    """Remembers written prefixes across the requests of one session (one transport)."""

    def __init__(self) -> None:
        self._written: set[str] = set()
        self._lock = threading.Lock()

    def usage_for(self, body: dict[str, Any]) -> dict[str, Any]:
        """Input-side usage (input, cache read, cache write) for one request."""
        units = prefix_blocks(body)
        breakpoints = [index for index, unit in enumerate(units) if unit.get("cache_control")]
        if body.get("cache_control") and units:
            breakpoints.append(len(units) - 1)
        digest = hashlib.sha256()
        hashes: list[str] = []
        totals: list[int] = []
        running = 0
        for unit in units:
            unit_without_marker = {key: value for key, value in unit.items() if key != "cache_control"}
            digest.update(json.dumps(unit_without_marker, sort_keys=True).encode())
            hashes.append(digest.copy().hexdigest())
            running += estimate_tokens(unit)
            totals.append(running)
        total = running
        if not breakpoints:
            return _usage(total, 0, 0, one_hour=False)
        last = max(breakpoints)
        with self._lock:
            hit = next((i for i in range(last, -1, -1) if hashes[i] in self._written), None)
            self._written.update(hashes[index] for index in breakpoints)
        cached = totals[last]
        read = totals[hit] if hit is not None else 0
        marker = units[last].get("cache_control") or body.get("cache_control") or {}
        return _usage(total - cached, cached - read, read, one_hour=marker.get("ttl") == "1h")


def _usage(input_tokens: int, creation: int, read: int, *, one_hour: bool) -> dict[str, Any]:
    """A usage dict in the API's shape (without output_tokens)."""
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": creation,
        "cache_read_input_tokens": read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": 0 if one_hour else creation,
            "ephemeral_1h_input_tokens": creation if one_hour else 0,
        },
        "service_tier": "standard",
    }
