"""The offline model's answer to a compaction's summary request: an extract of the conversation, not a reading.

It lists what a summary must keep and a script can find: the earlier summary carried in, the user's
prompts, the tools called with their files and commands, and the errors; bounded in size whatever the
request holds.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from tui.agent.context.summary_words import CARRIED_HEADER, INSTRUCTION, LEFT_OUT_FIRST_PIECE, SUMMARY_HEADER
from tui.text.wording import plural, shorten

#: prompts quoted at most, from the start and from the end of the conversation
PROMPTS_QUOTED = (3, 5)
#: paths and commands listed at most
LISTED = 12
DISCLAIMER = "Written by the offline demo model: an extract of the conversation, not an understanding of it."


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or () if isinstance(b, dict)]


def is_summary_request(body: dict[str, Any]) -> bool:
    """The last user message ends with the compaction's instruction."""
    messages = body.get("messages") or []
    if not messages or not isinstance(messages[-1], dict):
        return False
    texts = [b for b in _blocks(messages[-1]) if b.get("type") == "text"]
    return bool(texts) and str(texts[-1].get("text", "")).startswith(INSTRUCTION[:80])


def _one_line(text: str, width: int = 160) -> str:
    return shorten(" ".join(text.split()), width)


def summary_text(body: dict[str, Any]) -> str:
    """The Markdown summary of the request's messages (the instruction itself left out)."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    earlier, prompts, errors = "", [], 0
    tools: Counter[str] = Counter()
    paths: list[str] = []
    commands: list[str] = []
    for message in messages:
        for block in _blocks(message):
            kind = block.get("type")
            text = str(block.get("text", "")) if kind == "text" else ""
            if text.startswith((SUMMARY_HEADER, CARRIED_HEADER)):
                earlier = text.split("\n\n", 1)[-1].removeprefix(DISCLAIMER).strip()
            elif text.startswith((INSTRUCTION[:80], LEFT_OUT_FIRST_PIECE)):
                continue
            elif text and message.get("role") == "user":
                prompts.append(_one_line(text))
            elif kind == "tool_use":
                tools[str(block.get("name"))] += 1
                tool_input = block.get("input") or {}
                path = tool_input.get("file_path") or tool_input.get("path")
                if path and str(path) not in paths:
                    paths.append(str(path))
                if tool_input.get("command"):
                    commands.append(_one_line(str(tool_input["command"]), 100))
            elif kind == "tool_result" and block.get("is_error"):
                errors += 1
    head, tail = PROMPTS_QUOTED
    quoted = prompts if len(prompts) <= head + tail else [*prompts[:head], "…", *prompts[-tail:]]
    parts = [DISCLAIMER]
    if earlier:
        parts.append("## Before this\n\n" + shorten(earlier.strip(), 3000))
    parts.append(
        f"## The user's prompts ({len(prompts)})\n\n" + ("\n".join(f"- {p}" for p in quoted) if quoted else "- none")
    )
    if tools:
        used = ", ".join(f"{name} ×{count}" for name, count in tools.most_common())
        parts.append(f"## Tools called\n\n- {used}; {plural(errors, 'error')} reported")
    if paths:
        parts.append("## Files\n\n" + "\n".join(f"- `{p}`" for p in paths[-LISTED:]))
    if commands:
        parts.append("## Commands\n\n" + "\n".join(f"- `{c}`" for c in commands[-LISTED:]))
    return "\n\n".join(parts)
