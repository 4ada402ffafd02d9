"""Steering: at the loop's boundary, the user's queued messages join the request about to be sent.

The boundary is the moment before a request, when the previous batch's tool results are ready:
the queued texts become text blocks at the end of that same `role: "user"` message, after every
`tool_result` (the API wants results first, and one user message per assistant turn). Nothing is
added while a request streams, nor where only results may go (a server tool call still pending).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.agent.api.scrub import scrub_text
from tui.agent.events import MessagesSteered

if TYPE_CHECKING:
    from tui.agent.session import AgentSession


def steer(session: AgentSession, iteration: int) -> int:
    """Add the steerable queued messages to the last user message before request `iteration`; how many."""
    inbox = session.inbox
    if not len(inbox) or not may_add_text(session.messages):
        return 0
    taken = inbox.take_steerable()
    if not taken:
        return 0
    session.add_prompt_context([{"type": "text", "text": scrub_text(m.text)} for m in taken])
    session.publish(MessagesSteered(iteration=iteration, texts=tuple(m.text for m in taken)))
    return len(taken)


def may_add_text(messages: list[dict[str, Any]]) -> bool:
    """Whether text may go at the end of the last message: it is the user's, and no server tool waits."""
    if not messages or messages[-1].get("role") != "user":
        return False  # e.g. after pause_turn the assistant's content goes back as-is, with no user message
    if len(messages) < 2 or messages[-2].get("role") != "assistant":
        return True
    content = messages[-2].get("content")
    if not isinstance(content, list):
        return True
    answered = {
        b.get("tool_use_id") for b in content if isinstance(b, dict) and b.get("type", "").endswith("_tool_result")
    }
    return not any(
        b.get("type") == "server_tool_use" and b.get("id") not in answered for b in content if isinstance(b, dict)
    )
