"""The session's history: the prompt appended, merged, taken back, and kept valid for the next request.

A mixin of `AgentSession` (session.py), kept apart so that file stays about the session's parts and its thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tui.agent.api.scrub import scrub_text
from tui.agent.context.pins import split_pin
from tui.agent.history.transcript import Transcript
from tui.agent.loop.tool_belt import notification_blocks

if TYPE_CHECKING:
    from tui.agent.cost.cost import CostLedger
    from tui.tools.base import SessionState

NOT_EXECUTED_TEXT = "Not executed: the turn ended before this tool call ran."


def last_text(messages: list[dict[str, Any]]) -> str:
    """The text of the last assistant message in `messages` that has any."""
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        texts = [b.get("text", "") for b in message.get("content", ()) if b.get("type") == "text"]
        if any(texts):
            return "\n\n".join(t for t in texts if t)
    return ""


@dataclass
class Turn:
    turn_id: int
    prompt: str
    started: float = field(default_factory=time.monotonic)
    iterations: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    cost_usd: float = 0.0
    last_stop_reason: str | None = None


class HistoryMixin:
    """AgentSession's history methods (it holds `messages`, `transcript`, `turn_count`, `state`, `hook_context`)."""

    messages: list[dict[str, Any]]
    transcript: Transcript | None
    turn_count: int
    state: SessionState
    costs: CostLedger
    loop_path: str
    hook_context: list[dict[str, Any]]
    _before_prompt: tuple[int, dict[str, Any] | None]

    checkpoints: Any  # AgentSession.checkpoints
    pin: Callable[[str], str]  # PinMixin.pin

    @property
    def turn_start(self) -> tuple[int, dict[str, Any] | None]:
        """(messages before this turn's prompt, the last of them as it was): its answer starts there."""
        return self._before_prompt

    @turn_start.setter
    def turn_start(self, value: tuple[int, dict[str, Any] | None]) -> None:  # a compaction moved the turn's start
        self._before_prompt = value

    def append_message(self, message: dict[str, Any]) -> None:
        """Append to the API history (never modified afterwards) and to the transcript."""
        self.messages.append(message)
        if self.transcript:
            self.transcript.message(message)

    def append_message_if_valid(self, message: dict[str, Any]) -> None:
        """Append an assistant message only when it holds no unanswered tool_use."""
        if not any(b.get("type") == "tool_use" for b in message.get("content", ())):
            self.append_message(message)

    def begin_turn(self, prompt: str, images: tuple[dict[str, Any], ...] = ()) -> Turn:
        """Append the prompt: its images first (the API's advice), then its text (none when only images go)."""
        self.checkpoints.prompt(self.turn_count + 1, prompt, len(self.messages))
        self._before_prompt = (len(self.messages), self.messages[-1] if self.messages else None)
        self.turn_count += 1
        self.state.turn_id = self.turn_count
        if self.loop_path == "main":
            self.costs.begin_turn(self.turn_count)
        prompt, pinned = split_pin(prompt)  # `#pin …`: the prompt is kept verbatim through compactions
        blocks = [image["block"] for image in images]
        if prompt or not blocks:  # an empty text block is a 400
            blocks.append({"type": "text", "text": scrub_text(prompt)})  # a surrogate-escaped byte could never be sent
        if self.hook_context:  # what SessionStart hooks said goes with the first prompt
            blocks += [{"type": "text", "text": scrub_text(b["text"])} for b in self.hook_context]
            self.hook_context = []
        blocks += notification_blocks(self.state.tasks)  # background tasks that ended since the last request
        self._append_prompt(blocks)
        if pinned:
            self.pin(blocks[0]["text"])
        return Turn(turn_id=self.turn_count, prompt=prompt)

    def add_prompt_context(self, blocks: list[dict[str, Any]]) -> None:
        """Add text blocks (a UserPromptSubmit hook's context) to the prompt just appended."""
        last = self.messages[-1]
        content = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
        self.messages[-1] = {"role": "user", "content": [*content, *blocks]}
        if self.transcript:
            self.transcript.write({"type": "merge_user", "message": self.messages[-1]})

    def _append_prompt(self, blocks: list[dict[str, Any]]) -> None:
        if self.messages and self.messages[-1].get("role") == "user":
            # consecutive user turns merge (the API would merge them too)
            last = self.messages[-1]
            content = (
                last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
            )
            self.messages[-1] = {"role": "user", "content": [*content, *blocks]}
            if self.transcript:
                self.transcript.write({"type": "merge_user", "message": self.messages[-1]})
        else:
            self.append_message({"role": "user", "content": blocks})

    def retract_prompt(self) -> None:
        """Take the prompt `begin_turn` added back out of the history (it was never sent)."""
        count, last = self._before_prompt
        self.messages = self.messages[:count]
        if count and last is not None:
            self.messages[-1] = last
        if self.transcript:
            self.transcript.write({"type": "history", "reason": "prompt not sent", "messages": self.messages})

    def turn_text(self) -> str:
        """The assistant text of the current (or last) turn only, never an earlier turn's answer."""
        start = self._before_prompt[0]
        return last_text(self.messages[start:])

    def keep_partial_text(self, partial: dict[str, Any] | None) -> None:
        """After an interrupt mid-stream, keep the text that had fully arrived (no tool_use)."""
        if not partial:
            return
        texts = [
            {"type": "text", "text": b["text"]}
            for b in partial.get("content", ())
            if b.get("type") == "text" and b.get("text")
        ]
        if texts:
            self.append_message({"role": "assistant", "content": texts})

    def repair_history(self) -> None:
        """Give any unanswered tool_use a "not executed" result so the next request is valid.

        Happens when a turn ends on a response that holds tool_use blocks without asking
        for them to run (an end_turn with tool calls, an internal error before dispatch).
        """
        if not self.messages or self.messages[-1].get("role") != "assistant":
            return
        pending = [b for b in self.messages[-1].get("content", ()) if b.get("type") == "tool_use"]
        if pending:
            self.append_message(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": b["id"], "content": NOT_EXECUTED_TEXT, "is_error": True}
                        for b in pending
                    ],
                }
            )

    def drop_refused_images(self, reason: str) -> int:
        """Put a note where the newest user message's pictures were: the API refused one of them.

        The transcript records the new history, so `-c` and `-r` send the note and never the picture
        again (each later request would be refused the same way). Returns how many were replaced.
        """
        index = next((i for i in range(len(self.messages) - 1, -1, -1) if self.messages[i].get("role") == "user"), None)
        if index is None:
            return 0
        note = {"type": "text", "text": f"[An image was here; the API refused it and it is not sent again: {reason}]"}
        content, count = _without_images(self.messages[index].get("content"), note)
        if count:
            self.messages[index] = {**self.messages[index], "content": content}
            if self.transcript:
                self.transcript.write({"type": "history", "reason": "image refused", "messages": self.messages})
        return count

    def last_assistant_text(self) -> str:
        return last_text(self.messages)


def _without_images(content: Any, note: dict[str, Any]) -> tuple[Any, int]:
    """`content` with each image block (in tool results too) replaced by `note`; and how many were."""
    if not isinstance(content, list):
        return content, 0
    out: list[Any] = []
    count = 0
    for block in content:
        if isinstance(block, dict) and block.get("type") == "image":
            out.append(dict(note))
            count += 1
        elif isinstance(block, dict) and block.get("type") == "tool_result":
            inner, found = _without_images(block.get("content"), note)
            out.append({**block, "content": inner} if found else block)
            count += found
        else:
            out.append(block)
    return out, count
