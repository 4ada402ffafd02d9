"""Make a history read back from a transcript one the API accepts, counting what had to go.

A damaged or hand-edited transcript can hold messages of the wrong shape, a reply before any
prompt, tool results whose call is not right before them, or calls never answered. Each is
dropped (and counted) or answered with a "not completed" result, so resuming never sends a
request the API refuses with a 400.
"""

from __future__ import annotations

from typing import Any

from tui.agent.api.scrub import scrub

#: the result given on resume to a tool call that never got one (agent-tui had stopped, not the user)
NOT_COMPLETED_TEXT = "Not completed: agent-tui stopped before this tool call finished; the session was resumed later."


def _block_ok(block: Any) -> bool:
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        return False
    kind = block["type"]
    if kind == "text":
        return isinstance(block.get("text"), str)
    if kind == "tool_use":
        return (
            isinstance(block.get("id"), str)
            and isinstance(block.get("name"), str)
            and isinstance(block.get("input"), dict)
        )
    if kind == "tool_result":
        return isinstance(block.get("tool_use_id"), str)
    return True


def message_ok(message: Any) -> bool:
    """The shape the API needs: a user or assistant role and non-empty content of well-formed blocks."""
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        return False
    content = message.get("content")
    if isinstance(content, str):
        return bool(content)
    return isinstance(content, list) and bool(content) and all(_block_ok(b) for b in content)


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _tool_ids(message: dict[str, Any] | None) -> list[str]:
    if message is None or message["role"] != "assistant":
        return []
    return [b["id"] for b in _blocks(message) if b["type"] == "tool_use"]


def not_completed(ids: list[str]) -> list[dict[str, Any]]:
    """tool_result blocks for calls that never finished."""
    return [{"type": "tool_result", "tool_use_id": i, "content": NOT_COMPLETED_TEXT, "is_error": True} for i in ids]


def sanitize_history(messages: list[Any]) -> tuple[list[dict[str, Any]], int]:
    """(a history the API accepts, how many damaged messages or tool results were dropped).

    Deterministic, so replaying the same file always gives the same history. Calls left
    unanswered by the last message are left to the caller (it writes that repair to the file).
    """
    out: list[dict[str, Any]] = []
    dropped = 0
    for message in messages:
        if not message_ok(message):
            dropped += 1
            continue
        message = scrub(message)
        owed = _tool_ids(out[-1] if out else None)
        if message["role"] == "assistant":
            if not out:  # a reply before any prompt
                dropped += 1
                continue
            if owed:  # calls answered by nothing: answer them before the next reply
                out.append({"role": "user", "content": not_completed(owed)})
            out.append(message)
            continue
        blocks = _blocks(message)
        results: list[dict[str, Any]] = []
        others: list[dict[str, Any]] = []
        for block in blocks:
            if block["type"] != "tool_result":
                others.append(block)
            elif block["tool_use_id"] in owed and block["tool_use_id"] not in {r["tool_use_id"] for r in results}:
                results.append(block)
            else:  # a result for a call that is not right before it (or a second one)
                dropped += 1
        answered = {r["tool_use_id"] for r in results}
        kept = results + not_completed([i for i in owed if i not in answered]) + others
        if kept:
            out.append(message if kept == blocks else {**message, "content": kept})
    return out, dropped
