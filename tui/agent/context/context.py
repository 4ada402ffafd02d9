"""How full the context window is, and when it is time to compact.

After each response the usage says exactly how many tokens the request and the reply
took (input + cache read + cache write + output); what was appended since (tool
results, a new prompt) is estimated at four characters a token. Before any response
(a fresh resume) the whole request is estimated the same way.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tui.agent.cost.pricing import max_output_tokens, model_info
from tui.agent.events import ContextUsage

from .image_tokens import IMAGE_TOKENS, image_chars

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

CHARS_PER_TOKEN = 4
#: most tokens the summary request may produce
SUMMARY_MAX_TOKENS = 8192
#: the most of the window kept free for a reply when deciding to compact (a reply asks for up to the model's
#: output limit, but rarely needs it; one that does not fit ends with `model_context_window_exceeded`)
REPLY_RESERVE = 16_000


def estimate_tokens(value: Any) -> int:
    """A rough token count of any JSON-able value (characters / 4; an image as its own cost, image_tokens.py)."""
    if isinstance(value, str):
        return len(value) // CHARS_PER_TOKEN
    dumped = json.dumps(value, ensure_ascii=False, default=str)
    chars, images = image_chars(dumped, value)
    return (len(dumped) - chars) // CHARS_PER_TOKEN + images * IMAGE_TOKENS


def usage_tokens(usage: dict[str, Any]) -> int:
    """Tokens one response's request and reply occupy in the window."""
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")
    return sum(int(usage.get(k) or 0) for k in keys)


def reply_reserve(session: AgentSession) -> int:
    """The part of the window kept free for a reply: its max_tokens, at most REPLY_RESERVE."""
    opts = session.options
    return min(REPLY_RESERVE, max_output_tokens(opts.model, opts.max_tokens))


def summary_budget(session: AgentSession) -> int:
    opts = session.options
    return min(SUMMARY_MAX_TOKENS, max_output_tokens(opts.model, opts.max_tokens))


class ContextTracker:
    """The session's context meter: measured after each response, estimated in between."""

    def __init__(self, session: AgentSession) -> None:
        self.session = session
        self.measured: int | None = None
        self.measured_at = 0  # number of messages the measurement covers
        #: message count at which compaction last found nothing to cut (no retry until it grows)
        self.stuck_at: int | None = None
        #: the turn in which the user answered "not now" to compacting (compaction = "ask")
        self.declined_turn: int | None = None
        self.last_usage: dict[str, Any] = {}

    def reset(self) -> None:
        self.measured = None
        self.measured_at = 0
        self.stuck_at = None

    def window(self) -> int:
        opts = self.session.options
        return int(getattr(opts, "context_window", None) or model_info(opts.model).context_window)

    def observe(self, usage: dict[str, Any]) -> None:
        """Record a response's usage (its message is about to be appended) and publish the meter."""
        used = usage_tokens(usage)
        if not used:
            self.publish()
            return
        self.measured = used
        self.last_usage = dict(usage)  # for /context's cached share
        self.measured_at = len(self.session.messages) + 1
        self.session.publish(ContextUsage(used_tokens=used, window_tokens=self.window(), estimated=False))

    def current(self) -> tuple[int, bool]:
        """(tokens the next request would occupy, whether that is an estimate)."""
        messages = self.session.messages
        if self.measured is not None and self.measured_at <= len(messages) + 1:
            extra = messages[self.measured_at :]
            return self.measured + (estimate_tokens(extra) if extra else 0), bool(extra)
        s = self.session
        return estimate_tokens(s.system_blocks()) + estimate_tokens(s.tool_definitions()) + estimate_tokens(
            messages
        ), True

    def publish(self) -> None:
        used, estimated = self.current()
        self.session.publish(ContextUsage(used_tokens=used, window_tokens=self.window(), estimated=estimated))

    def should_compact(self) -> bool:
        """True when the next request plus its reply plus a summary would pass the threshold."""
        opts = self.session.options
        threshold: float = getattr(opts, "auto_compact_threshold", 0.8)
        if not threshold or threshold <= 0:
            return False
        if self.stuck_at is not None and len(self.session.messages) <= self.stuck_at:
            return False
        used, _ = self.current()
        headroom = reply_reserve(self.session) + summary_budget(self.session)
        return used + headroom > threshold * self.window()
