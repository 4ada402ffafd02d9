"""Builds each request body: system[], messages[], tools[] and the cache breakpoints.

Breakpoints (at most four): the last tool, the end of the stable system block, and the
newest message's last block (moved forward each request). When the newest exchange adds
many blocks (more than the API's 20-block cache lookback can bridge), the previous
user message's last block is marked too, so the prefix written by the previous
request is still found.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .environment import environment_text
from .prompts import IDENTITY_AND_RULES
from .thinking import ThinkingChoice

EPHEMERAL = {"type": "ephemeral"}
LOOKBACK_BLOCKS = 20
_UNMARKABLE = ("thinking", "redacted_thinking")


def build_system(
    project_dir: Path,
    model: str,
    memory_text: str = "",
    extra_dirs: Sequence[Path] = (),
    *,
    instructions: str | None = None,
    append: str | None = None,
    approvals: str = "",
) -> list[dict[str, Any]]:
    """system[]: the stable rules (cache-marked), memory files, then the environment.

    `instructions` replaces the rules (--system-prompt; empty leaves them out), `append` follows them
    (--append-system-prompt); the last of these two carries the cache mark. `approvals` is the environment's
    sentence on who approves the model's calls (approvals.py).
    """
    rules = IDENTITY_AND_RULES if instructions is None else instructions
    blocks: list[dict[str, Any]] = [{"type": "text", "text": t} for t in (rules, append) if t]
    if blocks:
        blocks[-1]["cache_control"] = dict(EPHEMERAL)
    if memory_text:
        blocks.append({"type": "text", "text": memory_text})
    blocks.append(
        {"type": "text", "text": environment_text(project_dir, model, extra_dirs=extra_dirs, approvals=approvals)}
    )
    return blocks


def build_tools(definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """tools[] with a breakpoint on the last definition (the tools never change in a session)."""
    tools = [dict(d) for d in definitions]
    if tools:
        tools[-1] = {**tools[-1], "cache_control": dict(EPHEMERAL)}
    return tools


def _block_count(message: dict[str, Any]) -> int:
    content = message.get("content")
    return 1 if isinstance(content, str) else len(content or ())


def _with_marker(message: dict[str, Any]) -> dict[str, Any]:
    """A copy of `message` whose last markable block carries cache_control."""
    content = message.get("content")
    if isinstance(content, str):
        blocks: list[dict[str, Any]] = [{"type": "text", "text": content}]
    else:
        blocks = list(content or ())
    for i in range(len(blocks) - 1, -1, -1):
        block = blocks[i]
        if block.get("type") in _UNMARKABLE or (block.get("type") == "text" and not block.get("text")):
            continue
        blocks[i] = {**block, "cache_control": dict(EPHEMERAL)}
        return {**message, "content": blocks}
    return message


def mark_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """messages[] for the wire: the stored history is never modified, only the tail is copied."""
    if not messages:
        return []
    out = list(messages)
    out[-1] = _with_marker(out[-1])
    if len(out) >= 3 and _block_count(out[-1]) + _block_count(out[-2]) >= LOOKBACK_BLOCKS - 2:
        out[-3] = _with_marker(out[-3])
    return out


def thinking_config(model: str) -> dict[str, Any] | None:
    """The model's default thinking (thinking.py): adaptive with summarized display where it has it, so reasoning is visible."""
    return ThinkingChoice().fields(model, 0).get("thinking")


def build_request(
    *,
    model: str,
    max_tokens: int,
    system: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    choice: ThinkingChoice | None = None,
) -> dict[str, Any]:
    """The full request body as it goes on the wire (stream: true; no sampling fields).

    `choice`: the turn's thinking and effort (thinking.py); without one, the model's default thinking.
    """
    chosen = choice.fields(model, max_tokens) if choice is not None else {"max_tokens": max_tokens}
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": chosen["max_tokens"],
        "system": system,
        "messages": mark_messages(messages),
    }
    if tools:
        body["tools"] = tools
    thinking = chosen.get("thinking") if choice is not None else thinking_config(model)
    if thinking:
        body["thinking"] = thinking
    if "output_config" in chosen:
        body["output_config"] = chosen["output_config"]
    body["stream"] = True
    return body


def count_breakpoints(body: dict[str, Any]) -> int:
    """How many cache_control markers a body carries (the API allows four)."""
    count = sum(1 for t in body.get("tools", ()) if "cache_control" in t)
    count += sum(1 for b in body.get("system", ()) if isinstance(b, dict) and "cache_control" in b)
    for message in body.get("messages", ()):
        content = message.get("content")
        if isinstance(content, list):
            count += sum(1 for b in content if isinstance(b, dict) and "cache_control" in b)
    return count


def snapshot(body: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of a body, safe to hand to subscribers while the history grows."""
    return copy.deepcopy(body)


def sdk_params(body: dict[str, Any]) -> dict[str, Any]:
    """Arguments for `messages.stream()` that send exactly `body`.

    The history travels in `extra_body`, which the SDK merges into the JSON as it is:
    its per-request transformation of typed params walks every message, which cost
    10-25 ms per call on a long history (3.5 ms for the whole call without it).
    """
    rest = {k: v for k, v in body.items() if k not in ("model", "max_tokens", "stream")}
    return {"model": body["model"], "max_tokens": body["max_tokens"], "messages": [], "extra_body": rest}
