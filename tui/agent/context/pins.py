"""Pinned prompts: kept verbatim through every compaction (`/pin`, or `#pin` before a prompt).

`#text` at the start of a prompt adds `text` to a memory file; `#pin` followed by a space is the
one exception (so `#pineapple …` still goes to memory). A compaction re-states every pinned
prompt the messages it keeps do not already hold, word for word, after the summary.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.agent.events import Event
    from tui.agent.history.transcript import Transcript

PIN_PREFIX = re.compile(r"#pin(?:\s+|$)")
PINNED_HEADER = "[Pinned by the user: kept verbatim through compactions]"


def is_pin_prompt(text: str) -> bool:
    """True for `#pin …` (the pin shortcut), not for other `#` memory lines."""
    return PIN_PREFIX.match(text) is not None


def split_pin(prompt: str) -> tuple[str, bool]:
    """(the prompt without `#pin `, whether it asked to be pinned); a bare `#pin` pins nothing."""
    match = PIN_PREFIX.match(prompt)
    if match is None or not prompt[match.end() :].strip():
        return prompt, False
    return prompt[match.end() :], True


def prompt_text(message: dict[str, Any]) -> str:
    """The typed text of a user prompt message (its first text block), or '' for tool results and replies."""
    if message.get("role") != "user":
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    blocks = [b for b in content or () if isinstance(b, dict)]
    if any(b.get("type") == "tool_result" for b in blocks):
        return ""
    return next((str(b.get("text", "")) for b in blocks if b.get("type") == "text" and b.get("text")), "")


def last_prompt(messages: list[dict[str, Any]]) -> str:
    """The newest prompt's text in `messages`, or ''."""
    for message in reversed(messages):
        text = prompt_text(message)
        if text:
            return text
    return ""


def _texts(messages: list[dict[str, Any]]) -> set[str]:
    found: set[str] = set()
    for message in messages:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            found.add(content)
            continue
        found.update(str(b.get("text", "")) for b in content or () if isinstance(b, dict) and b.get("type") == "text")
    return found


def pinned_blocks(pins: list[str], kept: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Text blocks re-stating each pin that the kept messages do not already carry verbatim."""
    present = _texts(kept)
    return [
        {"type": "text", "text": f"{PINNED_HEADER}\n{pin}"}
        for pin in pins
        if pin not in present and f"{PINNED_HEADER}\n{pin}" not in present
    ]


class PinMixin:
    """AgentSession's pins (it holds `pins`, `messages`, `transcript`, `publish`)."""

    pins: list[str]
    messages: list[dict[str, Any]]
    transcript: Transcript | None
    publish: Callable[[Event], None]  # AgentSession.publish

    def pin(self, text: str) -> str:
        """Keep prompt `text` verbatim through every compaction; returns a sentence saying so."""
        if text in self.pins:
            return "That prompt is already pinned."
        from tui.agent.events import MessagePinned  # not at import: the app's prompt handling imports this module

        self.pins.append(text)
        if self.transcript:
            self.transcript.write({"type": "pin", "text": text})
        self.publish(MessagePinned(text=text, pins=len(self.pins)))
        return f"Pinned: kept verbatim through every compaction ({len(self.pins)} pinned)."

    def unpin(self) -> str:
        """/unpin: let the newest pinned prompt be summarised again; returns a sentence saying so."""
        if not self.pins:
            return "Nothing is pinned."
        text = self.pins.pop()
        if self.transcript:
            self.transcript.write({"type": "unpin", "text": text})
        return f"Unpinned ({len(self.pins)} still pinned): the next compaction may summarise it."

    def pin_last_prompt(self) -> str:
        """/pin: pin the newest prompt of the history; returns a sentence saying what happened."""
        text = last_prompt(self.messages)
        if not text:
            return "There is no prompt to pin yet."
        return self.pin(text)
