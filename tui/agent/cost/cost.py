"""Where each request's money went: by token kind and by what the request carried.

Every successful response is recorded with the exact body that was sent and the usage the API
reported. The prompt is laid out in the API's prefix order (tools → system → messages): the
cache read covers its start, the cache write what follows up to the last breakpoint, plain
input the rest (the API's cache prefix order). Block sizes are estimated (characters / 4) and scaled to the
reported total, so the parts add up to the usage exactly. Sizes are kept per loop between
requests: the history only grows, so a request measures just its new messages.

A request that reads less from the cache than the previous one of its loop left there is a
cache break; cache_breaks.py names its cause. The inspector, `/cost` and `-p` JSON only read
this ledger (cost_report.py sums it).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tui.agent.events import CacheMissed, RequestCosted

from .cache_breaks import find_cause
from .layout import Layout, measure, remember
from .pricing import WEB_SEARCH_USD, has_price, model_info, web_searches

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

#: the parts of a request, in the order they are shown; `output` is what the model wrote
PARTS = ("system", "tools", "memory", "history", "tool_results", "output")
#: token kinds, priced differently
ZONES = ("input", "cache_write", "cache_read", "output")
#: a read this many tokens short of what the previous request cached is still a hit (rounding)
MISS_TOLERANCE = 32


@dataclass
class RequestCost:
    """One response's cost: tokens and USD per token kind, and per part of the request."""

    number: int
    turn: int
    loop_path: str
    model: str
    kind: str  # "turn" or "compaction"
    iteration: int
    priced: bool
    tokens: dict[str, int]
    usd: dict[str, float]
    #: part -> token kind -> tokens (floats: the split falls inside blocks)
    parts: dict[str, dict[str, float]]
    part_usd: dict[str, float]
    web_search_usd: float = 0.0
    cache_miss: dict[str, Any] | None = None
    at: float = field(default_factory=time.time)

    @property
    def total_usd(self) -> float:
        return sum(self.usd.values()) + self.web_search_usd

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: what RequestCosted carries and the transcript keeps."""
        return {
            "number": self.number,
            "turn": self.turn,
            "loop_path": self.loop_path,
            "model": self.model,
            "kind": self.kind,
            "iteration": self.iteration,
            "priced": self.priced,
            "tokens": dict(self.tokens),
            "usd": dict(self.usd),
            "parts": {p: dict(z) for p, z in self.parts.items()},
            "part_usd": dict(self.part_usd),
            "web_search_usd": self.web_search_usd,
            "cache_miss": self.cache_miss,
            "total_usd": self.total_usd,
            "at": self.at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RequestCost:
        """The entry a transcript's RequestCosted event recorded (resume)."""
        return cls(
            number=int(data["number"]),
            turn=int(data.get("turn", 0)),
            loop_path=str(data.get("loop_path", "main")),
            model=str(data.get("model", "")),
            kind=str(data.get("kind", "turn")),
            iteration=int(data.get("iteration", 0)),
            priced=bool(data.get("priced", True)),
            tokens={k: int(v) for k, v in dict(data["tokens"]).items()},
            usd={k: float(v) for k, v in dict(data["usd"]).items()},
            parts={str(p): {k: float(v) for k, v in dict(z).items()} for p, z in dict(data["parts"]).items()},
            part_usd={k: float(v) for k, v in dict(data["part_usd"]).items()},
            web_search_usd=float(data.get("web_search_usd", 0.0)),
            cache_miss=data.get("cache_miss"),
            at=float(data.get("at", 0.0)),
        )


@dataclass
class LoopState:
    """What the previous request of one loop sent, measured: reused by the next request."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    #: prefix sums of the messages' estimated tokens (len(messages) + 1 entries)
    sums: list[int] = field(default_factory=lambda: [0])
    #: per message: (offset in the message, tokens, tool_use_id) of each tool_result block
    results: list[tuple[tuple[int, int, str], ...]] = field(default_factory=list)
    tools: list[dict[str, Any]] | None = None
    tools_tokens: int = 0
    system: list[dict[str, Any]] | None = None
    system_parts: list[tuple[str, int]] = field(default_factory=list)
    model: str = ""
    sent_at: float | None = None  # None until the loop has sent a request
    cached: int = 0  # tokens the previous request read or wrote: what the next can read
    ttl_s: float = 300.0
    #: tool_use ids the model asked for in this turn: their results are this turn's tool_results
    turn_ids: set[str] = field(default_factory=set)
    note: str = ""  # why the history was rewritten since (a compaction, a rewind)


class CostLedger:
    """Every response of a session and its subagents, priced and attributed; thread-safe."""

    def __init__(self, clock: Any = time.monotonic, keep: int | None = None) -> None:
        from .fold import KEEP_ENTRIES, Fold

        #: the newest `keep` entries; older ones are summed in `fold` (fold.py), every total stays exact
        self.entries: list[RequestCost] = []
        self.keep = KEEP_ENTRIES if keep is None else keep
        self.fold = Fold()
        self.turn = 0
        self.clock = clock
        self._loops: dict[str, LoopState] = {}
        self._lock = threading.Lock()

    def begin_turn(self, turn: int) -> None:
        """The main loop starts turn `turn`: requests until the next one count for it."""
        with self._lock:
            self.turn = turn
            self._loops.setdefault("main", LoopState()).turn_ids.clear()

    def end_loop(self, loop_path: str) -> None:
        """A subagent finished: forget what its last request carried (its entries stay)."""
        with self._lock:
            for key in [k for k in self._loops if k == loop_path or k.startswith(loop_path + "#")]:
                del self._loops[key]

    def note_rewrite(self, loop_path: str, why: str) -> None:
        """The history of `loop_path` was rewritten (a compaction, a rewind): a cache break will say so."""
        with self._lock:
            self._loops.setdefault(loop_path, LoopState()).note = why

    def restore(self, entries: list[dict[str, Any]]) -> None:
        """Take back the entries a resumed transcript recorded (damaged ones are skipped)."""
        for data in entries:
            try:
                self.entries.append(RequestCost.from_dict(data))
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
        for number, entry in enumerate(self.entries, start=self.fold.requests + 1):
            entry.number = number
        self.turn = max((e.turn for e in self.entries), default=self.turn)
        self._trim()

    def _trim(self) -> None:
        """Fold the entries beyond the newest `keep` into their sums."""
        extra = len(self.entries) - self.keep
        if extra > 0:
            for entry in self.entries[:extra]:
                self.fold.add(entry)
            del self.entries[:extra]

    def turn_total(self, turn: int, default: float = 0.0) -> float:
        """USD of every response of turn `turn` (its subagents' and compactions' too); `default` without any."""
        with self._lock:
            costs = [e.total_usd for e in self.entries if e.turn == turn]
            folded, usd = self.fold.turn_usd(turn)
        return sum(costs) + usd if costs or folded else default

    def snapshot(self) -> list[RequestCost]:
        """The entries so far, the folded sums of older ones first (FoldedCost); a copy: the loop thread may
        add one meanwhile."""
        with self._lock:
            return [*self.fold.entries(), *self.entries]

    def record(
        self,
        body: dict[str, Any],
        usage: dict[str, Any],
        *,
        price_model: str,
        loop_path: str = "main",
        iteration: int = 1,
        sent_at: float | None = None,
        kind: str = "turn",
        reply: dict[str, Any] | None = None,
    ) -> RequestCost:
        """Price and attribute one response to `body`; names a cache break when there was one."""
        with self._lock:
            key = loop_path if kind == "turn" else f"{loop_path}#{kind}"
            state = self._loops.setdefault(key, LoopState())
            now = self.clock() if sent_at is None else sent_at
            layout = measure(state, body)
            zones = _zone_tokens(usage)
            prices = _zone_prices(usage, price_model)
            parts = _attribute(layout, zones)
            parts["output"] = {"output": float(zones["output"])}
            miss = None
            if kind == "turn":
                miss = _cache_miss(state, body, layout, zones, prices, now)
                remember(state, body, layout, zones, now, reply)
            number = self.fold.requests + len(self.entries) + 1
            entry = RequestCost(
                number=number,
                turn=self.turn,
                loop_path=loop_path,
                model=str(body.get("model", price_model)),
                kind=kind,
                iteration=iteration,
                priced=has_price(price_model),
                tokens={z: int(zones[z]) for z in ZONES},
                usd={z: zones[z] * prices[z] for z in ZONES},
                parts=parts,
                part_usd={p: sum(t * prices[z] for z, t in parts[p].items()) for p in parts},
                web_search_usd=web_searches(usage) * WEB_SEARCH_USD,
                cache_miss=miss,
            )
            self.entries.append(entry)
            self._trim()
            return entry


# --- pricing and splitting ------------------------------------------------------------------------


def _zone_tokens(usage: dict[str, Any]) -> dict[str, float]:
    return {
        "input": float(usage.get("input_tokens") or 0),
        "cache_write": float(usage.get("cache_creation_input_tokens") or 0),
        "cache_read": float(usage.get("cache_read_input_tokens") or 0),
        "output": float(usage.get("output_tokens") or 0),
    }


def _zone_prices(usage: dict[str, Any], model: str) -> dict[str, float]:
    """USD per token of each kind; a cache write blends its 5-minute and 1-hour shares as billed."""
    info = model_info(model)
    created = int(usage.get("cache_creation_input_tokens") or 0)
    breakdown = usage.get("cache_creation") or {}
    w1h = int(breakdown.get("ephemeral_1h_input_tokens") or 0)
    w5m = breakdown.get("ephemeral_5m_input_tokens")
    w5m = max(created - w1h, 0) if w5m is None else int(w5m)
    written = w5m + w1h
    write = (w5m * info.cache_write_5m + w1h * info.cache_write_1h) / written if written else info.cache_write_5m
    return {
        "input": info.input / 1e6,
        "cache_write": write / 1e6,
        "cache_read": info.cache_read / 1e6,
        "output": info.output / 1e6,
    }


def _overlap(a: float, b: float, lo: float, hi: float) -> float:
    return max(0.0, min(b, hi) - max(a, lo))


def _attribute(layout: Layout, zones: dict[str, float]) -> dict[str, dict[str, float]]:
    """Each part's tokens of each input kind: the read covers the prefix's start, then the write, then input."""
    total = zones["input"] + zones["cache_write"] + zones["cache_read"]
    parts: dict[str, dict[str, float]] = {
        p: {"input": 0.0, "cache_write": 0.0, "cache_read": 0.0} for p in PARTS if p != "output"
    }
    estimated = layout.end
    if not total:
        return parts
    if not estimated:  # nothing measurable (an empty body): the system prompt is all there is
        parts["system"] = {
            "input": zones["input"],
            "cache_write": zones["cache_write"],
            "cache_read": zones["cache_read"],
        }
        return parts
    scale = total / estimated
    read_end = zones["cache_read"] / scale
    write_end = (zones["cache_read"] + zones["cache_write"]) / scale

    def split(a: float, b: float, sign: float = 1.0, into: dict[str, float] | None = None) -> None:
        assert into is not None
        into["cache_read"] += sign * _overlap(a, b, 0, read_end) * scale
        into["cache_write"] += sign * _overlap(a, b, read_end, write_end) * scale
        into["input"] += sign * _overlap(a, b, write_end, float("inf")) * scale

    for part, a, b in layout.segments:
        split(a, b, into=parts[part])
    split(layout.messages_start, layout.end, into=parts["history"])
    for a, b in layout.results:
        split(a, b, into=parts["tool_results"])
        split(a, b, -1.0, into=parts["history"])
    return parts


def _cache_miss(
    state: LoopState,
    body: dict[str, Any],
    layout: Layout,
    zones: dict[str, float],
    prices: dict[str, float],
    now: float,
) -> dict[str, Any] | None:
    """The cache break this request shows, named, or None when it read what the previous request left."""
    if state.sent_at is None or not state.cached:
        return None
    read = int(zones["cache_read"])
    lost = state.cached - read
    if lost <= MISS_TOLERANCE:
        return None
    cause, text = find_cause(state, body, layout.first_changed, now - state.sent_at, layout.blocks_added)
    # what the lost prefix cost now (written again, or sent as plain input) beyond reading it
    rewritten = min(lost, int(zones["cache_write"]))
    extra = rewritten * (prices["cache_write"] - prices["cache_read"]) + (lost - rewritten) * (
        prices["input"] - prices["cache_read"]
    )
    return {
        "cause": cause,
        "text": text,
        "expected_tokens": state.cached,
        "read_tokens": read,
        "lost_tokens": lost,
        "rewritten_tokens": rewritten,
        "extra_cost_usd": max(extra, 0.0),
    }


# --- the session's side ---------------------------------------------------------------------------


def record_response(
    session: AgentSession,
    body: dict[str, Any],
    usage: dict[str, Any],
    reply: dict[str, Any] | None,
    *,
    iteration: int,
    sent_at: float | None,
    kind: str = "turn",
) -> RequestCost:
    """Record one response in the session's ledger and publish what it cost (and a cache break)."""
    model = str(body.get("model") or session.pricing_model)
    offline = session.offline and not (":" in model and _profile_named(model))
    price_model = "offline-demo" if offline else model
    entry: RequestCost = session.costs.record(
        body,
        usage,
        price_model=price_model,
        loop_path=session.loop_path,
        iteration=iteration,
        sent_at=sent_at,
        kind=kind,
        reply=reply,
    )
    session.publish(RequestCosted(iteration=iteration, cost=entry.to_dict()))
    miss = entry.cache_miss
    if miss is not None:
        session.publish(
            CacheMissed(
                iteration=iteration,
                cause=miss["cause"],
                text=miss["text"],
                expected_tokens=miss["expected_tokens"],
                read_tokens=miss["read_tokens"],
                lost_tokens=miss["lost_tokens"],
                extra_cost_usd=miss["extra_cost_usd"],
                request=entry.number,
            )
        )
    return entry


def _profile_named(model: str) -> bool:
    """Whether `model` is a provider profile's `NAME:MODEL` (answered by its endpoint, not the offline model)."""
    from tui.providers.profiles import lookup

    return lookup(model)[0] is not None
