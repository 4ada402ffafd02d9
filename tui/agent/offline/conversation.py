"""Reads the state of the current turn out of a request's messages, and parses tool results.

The offline model keeps no hidden state: everything it knows about the turn so far comes
from the messages since the latest user prompt, so the same conversation gives the same
answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tui.text.wording import shorten

_READ_LINE = re.compile(r"^\s*(\d+)[\t\u2192](.*)$")
_GREP_WITH_PATH = re.compile(r"^(.+?):(\d+):(.*)$")
_GREP_NO_PATH = re.compile(r"^(\d+):(.*)$")
TODO_MARKER = re.compile(r"\b(TODO|FIXME)\b")
_CUT_NOTE = re.compile(r"Results are truncated|\[(?:Output stopped|Output cut|Showing the first)")
_NOT_A_PATH = re.compile(r"^(\(|\[|<|no files|found \d|\.\.\.|results? )", re.IGNORECASE)
#: how the demo's reply starts on a message the user queued while it worked (it finds its place by this)
QUEUED_MARK = "You also wrote, while I was working:"
_NOT_FROM_THE_USER = ("<system-reminder>", "<task-notification>")  # hooks' and tasks' notes beside results


@dataclass
class ToolCall:
    """One tool_use of this turn and the tool_result that answered it (if any yet)."""

    id: str
    name: str
    input: dict[str, Any]
    result_text: str | None = None
    is_error: bool = False

    @property
    def succeeded(self) -> bool:
        """True when a result came back without is_error."""
        return self.result_text is not None and not self.is_error


@dataclass
class TurnState:
    """The latest user prompt and everything the model and the tools did since."""

    prompt: str
    assistant_replies: int = 0
    calls: list[ToolCall] = field(default_factory=list)
    #: the prompt's image blocks: (media type, bytes of base64)
    images: list[tuple[str, int]] = field(default_factory=list)
    #: the messages the user queued while the turn ran (steered in after tool results), in order
    queued: list[str] = field(default_factory=list)
    #: how many of them the demo has taken up; `prompt` is then the last one taken
    started: int = 0

    @property
    def waiting(self) -> list[str]:
        """The queued messages not answered yet."""
        return self.queued[self.started :]


@dataclass(frozen=True)
class GrepHit:
    """One matching line of a content-mode search: `path:line:text`."""

    path: str
    line: int
    text: str


def _blocks(content: Any) -> list[dict[str, Any]]:
    """A message's content as a list of blocks (a plain string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content or [] if isinstance(block, dict)]


def result_text(content: Any) -> str:
    """A tool_result's content as plain text; non-text blocks become a placeholder."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in _blocks(content):
        parts.append(block.get("text", "") if block.get("type") == "text" else f"[{block.get('type')}]")
    return "\n".join(parts)


def _is_prompt(message: dict[str, Any]) -> bool:
    """A user message that carries no tool_result is a new prompt."""
    if message.get("role") != "user":
        return False
    return not any(block.get("type") == "tool_result" for block in _blocks(message.get("content")))


def current_turn(messages: list[dict[str, Any]]) -> TurnState | None:
    """The turn that started at the latest user prompt, or None when there is no prompt."""
    start = next(
        (index for index in range(len(messages) - 1, -1, -1) if _is_prompt(messages[index])),
        None,
    )
    if start is None:
        return None
    prompt = "\n".join(
        block.get("text", "") for block in _blocks(messages[start].get("content")) if block.get("type") == "text"
    )
    turn = TurnState(prompt=prompt.strip())
    for block in _blocks(messages[start].get("content")):
        source = block.get("source") if block.get("type") == "image" else None
        if isinstance(source, dict):
            turn.images.append((str(source.get("media_type")), len(str(source.get("data", "")))))
    calls_by_id: dict[str, ToolCall] = {}
    for message in messages[start + 1 :]:
        for block in _blocks(message.get("content")):
            text = str(block.get("text", "")) if block.get("type") == "text" else ""
            if message.get("role") == "user" and text and not text.startswith(_NOT_FROM_THE_USER):
                turn.queued.append(text.strip())  # a message steered in beside tool results
            elif message.get("role") == "assistant" and text.startswith(QUEUED_MARK) and turn.waiting:
                # the demo took up the next queued message here: what follows belongs to it
                turn.prompt, turn.started = turn.queued[turn.started], turn.started + 1
                turn.calls, turn.images, turn.assistant_replies, calls_by_id = [], [], 0, {}
            if message.get("role") == "assistant" and block.get("type") == "tool_use":
                call = ToolCall(str(block.get("id")), str(block.get("name")), block.get("input") or {})
                calls_by_id[call.id] = call
                turn.calls.append(call)
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in calls_by_id:
                call = calls_by_id[block["tool_use_id"]]
                call.result_text = result_text(block.get("content"))
                call.is_error = bool(block.get("is_error"))
        if message.get("role") == "assistant":
            turn.assistant_replies += 1
    return turn


def parse_read_lines(text: str) -> dict[int, str]:
    """Line number → line text from a Read result in `cat -n` form (`{n}\\t{line}`)."""
    lines: dict[int, str] = {}
    for raw in text.split("\n"):
        match = _READ_LINE.match(raw)
        if match:
            lines[int(match.group(1))] = match.group(2).rstrip("\r")
    return lines


def parse_grep_lines(text: str, default_path: str = "") -> list[GrepHit]:
    """Every matching line of content-mode search output (`path:line:text`, or `line:text`)."""
    hits = []
    for raw in text.split("\n"):
        raw = raw.rstrip("\r")
        match = _GREP_WITH_PATH.match(raw)
        if match and not match.group(1).isdigit():
            hits.append(GrepHit(match.group(1), int(match.group(2)), match.group(3)))
        elif (bare := _GREP_NO_PATH.match(raw)) and default_path:
            hits.append(GrepHit(default_path, int(bare.group(1)), bare.group(2)))
    return hits


def parse_grep_hits(text: str, default_path: str = "") -> list[GrepHit]:
    """TODO/FIXME hits from content-mode search output."""
    return [hit for hit in parse_grep_lines(text, default_path) if TODO_MARKER.search(hit.text)]


def output_was_cut(text: str) -> bool:
    """True when a Grep or Glob result says it shows only part of what matched."""
    return _CUT_NOTE.search(text) is not None


def parse_glob_paths(text: str) -> list[str]:
    """The file paths of a Glob result, one per line, without notes about truncation."""
    return [line.strip() for line in text.split("\n") if line.strip() and not _NOT_A_PATH.match(line.strip())]


def error_reason(text: str | None) -> str:
    """The first meaningful line of an error result, without `<tool_use_error>` tags."""
    cleaned = re.sub(r"</?tool_use_error>", "", text or "").strip()
    first = cleaned.split("\n", 1)[0].strip() or "no reason given"
    return shorten(first, 160)
