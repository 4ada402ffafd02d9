"""Prompt-cache simulation: breakpoints, 20-block lookback, TTLs and the usage numbers they produce."""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

LOOKBACK_BLOCKS = 20
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}


@dataclass
class PromptBlock:
    """One cacheable unit of the prefix (a tool, a system block or a message content block)."""

    tokens: int
    digest: str  # hash of the whole prefix up to and including this block
    ttl: str | None  # set when the block carries cache_control


def block_tokens(block: Any) -> int:
    """ceil(chars / 4) of the block's JSON, ignoring its cache_control marker."""
    return math.ceil(len(_canonical(block)) / 4)


def _canonical(block: Any) -> str:
    if isinstance(block, dict):
        block = {k: v for k, v in block.items() if k != "cache_control"}
    return json.dumps(block, ensure_ascii=False, separators=(",", ":"))


def _marker_ttl(block: Any) -> str | None:
    marker = block.get("cache_control") if isinstance(block, dict) else None
    if not isinstance(marker, dict):
        return None
    return str(marker.get("ttl") or "5m")


def prompt_blocks(body: dict[str, Any]) -> list[Any]:
    """The request flattened in prefix order tools -> system -> messages."""
    blocks: list[Any] = list(body.get("tools") or [])
    system = body.get("system")
    if isinstance(system, str):
        blocks.append({"type": "text", "text": system})
    elif isinstance(system, list):
        blocks.extend(system)
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            blocks.append({"type": "text", "text": content, "role": message.get("role")})
        elif isinstance(content, list):
            blocks.extend(content)
    return blocks


def count_tokens(body: dict[str, Any]) -> int:
    """Total simulated input tokens of a request (also the count_tokens answer)."""
    return sum(block_tokens(b) for b in prompt_blocks(body))


def hashed_prefix(body: dict[str, Any]) -> list[PromptBlock]:
    """Each block with its token count, running prefix hash and breakpoint TTL."""
    raw = prompt_blocks(body)
    auto = body.get("cache_control")
    auto_index = _last_cacheable(raw) if isinstance(auto, dict) else None
    running = hashlib.sha256(str(body.get("model", "")).encode())
    out: list[PromptBlock] = []
    for i, block in enumerate(raw):
        running.update(_canonical(block).encode())
        ttl = _marker_ttl(block)
        if i == auto_index and ttl is None:
            ttl = str(auto.get("ttl") or "5m")  # type: ignore[union-attr]
        out.append(PromptBlock(block_tokens(block), running.copy().hexdigest(), ttl))
    return out


def _last_cacheable(blocks: list[Any]) -> int | None:
    for i in range(len(blocks) - 1, -1, -1):
        b = blocks[i]
        if isinstance(b, dict) and b.get("type") not in ("thinking", "redacted_thinking"):
            return i
    return None


class CacheSimulator:
    """Remembers prefixes written at breakpoints and turns each request into cache usage numbers."""

    def __init__(self, min_cache_tokens: int = 1024, clock: Callable[[], float] = time.monotonic) -> None:
        self.min_cache_tokens = min_cache_tokens
        self._clock = clock
        self._entries: dict[str, tuple[float, str]] = {}  # digest -> (expires_at, ttl)
        self._lock = threading.Lock()

    def usage_for(self, body: dict[str, Any]) -> dict[str, Any]:
        """Input-side usage for one request; records its writes for later requests."""
        blocks = hashed_prefix(body)
        total = sum(b.tokens for b in blocks)
        cumulative = [0]
        for b in blocks:
            cumulative.append(cumulative[-1] + b.tokens)
        breakpoints = [i for i, b in enumerate(blocks) if b.ttl is not None]
        now = self._clock()
        with self._lock:
            hit = self._longest_hit(blocks, breakpoints, now)
            read = cumulative[hit + 1] if hit is not None else 0
            writable = [i for i in breakpoints if cumulative[i + 1] >= self.min_cache_tokens]
            written = {"5m": 0, "1h": 0}
            start = hit + 1 if hit is not None else 0
            for i in writable:
                ttl = blocks[i].ttl or "5m"
                if i >= start:
                    written[ttl if ttl in written else "5m"] += cumulative[i + 1] - cumulative[start]
                    start = i + 1
                self._entries[blocks[i].digest] = (now + TTL_SECONDS.get(ttl, 300.0), ttl)
            if hit is not None:
                expires, ttl = self._entries[blocks[hit].digest]
                self._entries[blocks[hit].digest] = (max(expires, now + TTL_SECONDS.get(ttl, 300.0)), ttl)
        creation = written["5m"] + written["1h"]
        return {
            "input_tokens": total - read - creation,
            "cache_creation_input_tokens": creation,
            "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": written["5m"], "ephemeral_1h_input_tokens": written["1h"]},
        }

    def _longest_hit(self, blocks: list[PromptBlock], breakpoints: list[int], now: float) -> int | None:
        """Index of the last block of the longest live prefix reachable from any breakpoint's lookback."""
        best: int | None = None
        for bp in breakpoints:
            for i in range(bp, max(-1, bp - LOOKBACK_BLOCKS), -1):
                entry = self._entries.get(blocks[i].digest)
                if entry is not None and entry[0] > now:
                    if best is None or i > best:
                        best = i
                    break
        return best


def uncached_usage(body: dict[str, Any]) -> dict[str, Any]:
    """Usage when cache simulation is off: everything is plain input."""
    return {
        "input_tokens": count_tokens(body),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    }
