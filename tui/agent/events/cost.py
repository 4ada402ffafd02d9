"""Events about money and context: what each request cost, a cache break, a compaction to approve, a pin."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import field
from typing import Any

from .base import Event, _event


@_event
class RequestCosted(Event):
    """One response's cost, split by token kind and by what the request carried (tui/agent/cost/cost.py).

    Published right after ResponseFinished (iteration 0: a compaction's summary request); `cost` is
    `RequestCost.to_dict()`.
    """

    iteration: int
    cost: dict[str, Any]


@_event
class CacheMissed(Event):
    """A request read less from the prompt cache than the previous one of its loop left there.

    `cause` is the first part of the prefix that differs: model | tools | system | messages, or
    ttl (the entry outlived its lifetime), lookback (too many blocks since the last write), unknown.
    """

    iteration: int
    cause: str
    text: str  # "tools changed (+3 mcp__git tools)"
    expected_tokens: int  # what the previous request left in the cache
    read_tokens: int
    lost_tokens: int
    extra_cost_usd: float
    request: int = 0  # the ledger's request number


@_event
class CompactionProposed(Event):
    """`compaction = "ask"`: the threshold is reached; the loop thread waits on `reply`.

    `plan` is compaction.compaction_plan(); `reply` resolves to {"choice": "now" | "focus" | "later",
    "focus": str}; an interrupt resolves it as "later".
    """

    plan: dict[str, Any]
    reply: Future[dict[str, Any]] = field(compare=False, repr=False)


@_event
class MessagePinned(Event):
    """A prompt was pinned: it is kept verbatim through every compaction."""

    text: str
    pins: int  # how many messages are pinned now
