"""How a request body lays out in tokens: each part's span (system, tools, memory, history, tool results), where
it first differs from the loop's previous request, and what the loop remembers for the next (cost.py prices it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui.config.memory import MEMORY_HEADING

from .cache_breaks import first_changed_message

if TYPE_CHECKING:
    from .cost import LoopState

_encode = json.JSONEncoder(ensure_ascii=False, default=str).encode


def block_tokens(block: Any) -> int:
    """A block's estimated tokens: its JSON's characters / 4, rounded up."""
    return (len(block if isinstance(block, str) else _encode(block)) + 3) // 4


@dataclass
class Layout:
    """A body's parts as intervals of estimated tokens, in prefix order."""

    segments: list[tuple[str, int, int]]  # (part, start, end) of tools and system blocks
    messages_start: int
    end: int
    results: list[tuple[int, int]]  # this turn's tool_result blocks: (start, end)
    first_changed: int | None  # the first earlier message that differs, if any
    blocks_added: int  # content blocks in messages the previous request did not have
    #: the measurements the loop keeps for its next request (LoopState's fields of the same names)
    tools: list[dict[str, Any]]
    tools_tokens: int
    system: list[dict[str, Any]]
    system_parts: list[tuple[str, int]]
    sums: list[int]
    message_results: list[tuple[tuple[int, int, str], ...]]


def _message_layout(message: dict[str, Any]) -> tuple[int, tuple[tuple[int, int, str], ...]]:
    content = message.get("content")
    if isinstance(content, str):
        return block_tokens(content), ()
    total = 0
    results: list[tuple[int, int, str]] = []
    for block in content or ():
        tokens = block_tokens(
            {k: v for k, v in block.items() if k != "cache_control"}
            if isinstance(block, dict) and "cache_control" in block
            else block
        )
        if isinstance(block, dict) and block.get("type") == "tool_result":
            results.append((total, tokens, str(block.get("tool_use_id"))))
        total += tokens
    return total, tuple(results)


def _identical_prefix(old: list[Any], new: list[Any]) -> int:
    """How many leading messages are the very same objects (the history only grows, so a bisection will do)."""
    lo, hi = 0, min(len(old), len(new))
    if hi and old[hi - 1] is new[hi - 1]:
        return hi
    while lo < hi:
        mid = (lo + hi) // 2
        if old[mid] is new[mid]:
            lo = mid + 1
        else:
            hi = mid
    return lo


def measure(state: LoopState, body: dict[str, Any]) -> Layout:
    """Lay `body` out, measuring only what `state` (the loop's previous request) did not have."""
    tools = body.get("tools") or []
    if tools is not state.tools:
        tools_tokens = sum(block_tokens({k: v for k, v in t.items() if k != "cache_control"}) for t in tools)
    else:
        tools_tokens = state.tools_tokens
    system = body.get("system") or []
    if system is not state.system:
        system_parts = [
            (
                "memory" if isinstance(b, dict) and str(b.get("text", "")).startswith(MEMORY_HEADING) else "system",
                block_tokens({k: v for k, v in b.items() if k != "cache_control"} if isinstance(b, dict) else b),
            )
            for b in ([{"type": "text", "text": system}] if isinstance(system, str) else system)
        ]
    else:
        system_parts = state.system_parts
    segments = [("tools", 0, tools_tokens)]
    at = tools_tokens
    for part, tokens in system_parts:
        segments.append((part, at, at + tokens))
        at += tokens
    messages = body.get("messages") or []
    same = _identical_prefix(state.messages, messages)
    first_changed = first_changed_message(state.messages, messages, same) if state.sent_at is not None else None
    sums = state.sums[: same + 1]
    results = state.results[:same]
    for message in messages[same:]:
        tokens, found = _message_layout(message)
        sums.append(sums[-1] + tokens)
        results.append(found)
    added = sum(len(m["content"]) if isinstance(m.get("content"), list) else 1 for m in messages[len(state.messages) :])
    layout = Layout(
        segments,
        at,
        at + sums[-1],
        _turn_results(state.turn_ids, results, sums, at),
        first_changed,
        added,
        tools,
        tools_tokens,
        system,
        system_parts,
        sums,
        results,
    )
    return layout


def _turn_results(
    turn_ids: set[str], results: list[tuple[tuple[int, int, str], ...]], sums: list[int], base: int
) -> list[tuple[int, int]]:
    """Intervals of the tool_result blocks answering this turn's tool calls (they sit at the end)."""
    if not turn_ids:
        return []
    spans: list[tuple[int, int]] = []
    left = len(turn_ids)
    for index in range(len(results) - 1, -1, -1):
        for offset, tokens, tool_use_id in results[index]:
            if tool_use_id in turn_ids:
                start = base + sums[index] + offset
                spans.append((start, start + tokens))
                left -= 1
        if left <= 0:
            break
    return spans


def remember(
    state: LoopState,
    body: dict[str, Any],
    layout: Layout,
    zones: dict[str, float],
    now: float,
    reply: dict[str, Any] | None,
) -> None:
    state.tools, state.tools_tokens = layout.tools, layout.tools_tokens
    state.system, state.system_parts = layout.system, layout.system_parts
    state.messages = list(body.get("messages") or [])
    state.sums, state.results = layout.sums, layout.message_results
    state.model = str(body.get("model", ""))
    state.sent_at = now
    state.cached = int(zones["cache_read"] + zones["cache_write"])
    state.ttl_s = _ttl_seconds(body)
    state.note = ""
    for block in (reply or {}).get("content") or ():
        if isinstance(block, dict) and block.get("type") == "tool_use":
            state.turn_ids.add(str(block.get("id")))


def _ttl_seconds(body: dict[str, Any]) -> float:
    """The lifetime of the entries this body writes: 1 hour when a breakpoint asks for it, else 5 minutes."""
    marked = [
        *(body.get("tools") or [])[-1:],
        *(body.get("system") or [] if isinstance(body.get("system"), list) else []),
    ]
    for message in (body.get("messages") or [])[-3:]:
        content = message.get("content")
        if isinstance(content, list):
            marked += content[-1:]
    for block in marked:
        marker = block.get("cache_control") if isinstance(block, dict) else None
        if isinstance(marker, dict) and marker.get("ttl") == "1h":
            return 3600.0
    return 300.0
