"""The cost ledger summed for people and scripts: by part, by turn, by model, by agent, and the cache breaks.

`cost_breakdown(entries)` is what `-p --output-format json` prints under `cost_breakdown` and what
`/cost` renders; every figure is a plain sum of the ledger's entries (cost.py), so `by_part`,
`by_turn` (with `earlier_turns`, present once a long session's oldest turns were summed into one: fold.py),
`by_model` and `by_agent` each add up to `total_cost_usd`.
"""

from __future__ import annotations

from typing import Any

from tui.agent.events import CacheMissed

from .cost import PARTS as PARTS  # the parts a request's cost is split into, in their order
from .cost import ZONES, RequestCost
from .fold import EARLIER_AGENTS, ROW, FoldedCost
from .pricing import DEFAULT_PRICE_MODEL, model_info

#: decimals kept in USD figures of the JSON
USD_DIGITS = 6


def _usd(value: float) -> float:
    return round(value, USD_DIGITS)


def _share(tokens: dict[str, int]) -> float | None:
    prompt = tokens["input"] + tokens["cache_write"] + tokens["cache_read"]
    return round(tokens["cache_read"] / prompt, 3) if prompt else None


class _Sum:
    """A running total of some entries: requests, tokens per kind, USD."""

    def __init__(self) -> None:
        self.requests = 0
        self.tokens = dict.fromkeys(ZONES, 0)
        self.usd = 0.0
        self.misses = 0

    def add(self, entry: RequestCost) -> None:
        if isinstance(entry, FoldedCost):
            self.requests += entry.requests
            self.misses += entry.miss_count
        else:
            self.requests += 1
            self.misses += entry.cache_miss is not None
        for zone in ZONES:
            self.tokens[zone] += entry.tokens.get(zone, 0)
        self.usd += entry.total_usd

    def add_row(self, row: list[float]) -> None:
        """A turn's row of folded entries (fold.py's ROW)."""
        self.requests += int(row[0])
        for i, zone in enumerate(ZONES, start=1):
            self.tokens[zone] += int(row[i])
        self.usd += row[ROW - 2]
        self.misses += int(row[ROW - 1])

    def to_dict(self) -> dict[str, Any]:
        return {
            "cost_usd": _usd(self.usd),
            "requests": self.requests,
            "tokens": dict(self.tokens),
            "cache_read_share": _share(self.tokens),
            "cache_misses": self.misses,
        }


def _agent(entry: RequestCost) -> str:
    return entry.loop_path if entry.kind == "turn" else f"{entry.loop_path} ({entry.kind})"


def cost_breakdown(entries: list[RequestCost]) -> dict[str, Any]:
    """The entries summed every way `/cost` and `-p` JSON show them (plain, JSON-able data)."""
    whole = _Sum()
    by_part = dict.fromkeys(PARTS, 0.0)
    part_tokens = dict.fromkeys(PARTS, 0.0)
    web = 0.0
    usd = dict.fromkeys(ZONES, 0.0)
    turns: dict[int, _Sum] = {}
    earlier, earlier_turns, earlier_agents = _Sum(), 0, 0
    models: dict[str, _Sum] = {}
    agents: dict[str, _Sum] = {}
    unpriced: list[str] = []
    misses: list[dict[str, Any]] = []
    for entry in entries:
        whole.add(entry)
        for part in PARTS:
            by_part[part] += entry.part_usd.get(part, 0.0)
            part_tokens[part] += sum(entry.parts.get(part, {}).values())
        web += entry.web_search_usd
        for zone in ZONES:
            usd[zone] += entry.usd.get(zone, 0.0)
        if isinstance(entry, FoldedCost):
            for turn, turn_row in entry.turns.items():
                turns.setdefault(turn, _Sum()).add_row(turn_row)
            earlier.add_row(entry.earlier)
            earlier_turns = max(earlier_turns, entry.earlier_turns)
            earlier_agents = max(earlier_agents, entry.agents)
            misses.extend(entry.misses)
        else:
            turns.setdefault(entry.turn, _Sum()).add(entry)
        models.setdefault(entry.model, _Sum()).add(entry)
        agents.setdefault(_agent(entry), _Sum()).add(entry)
        if not entry.priced and entry.model not in unpriced:
            unpriced.append(entry.model)
        if entry.cache_miss is not None:
            misses.append(
                {"request": entry.number, "turn": entry.turn, "loop_path": entry.loop_path, **entry.cache_miss}
            )
    misses.sort(key=lambda miss: int(miss.get("request") or 0))
    parts = {p: _usd(v) for p, v in by_part.items()}
    if web:
        parts["web_search"] = _usd(web)
    return {
        "total_cost_usd": _usd(whole.usd),
        "requests": whole.requests,
        "tokens": dict(whole.tokens),
        "usd": {z: _usd(v) for z, v in usd.items()},
        "cache_read_share": _share(whole.tokens),
        "by_part": parts,
        "by_part_tokens": {p: round(v) for p, v in part_tokens.items()},
        "by_turn": [{"turn": turn, **total.to_dict()} for turn, total in sorted(turns.items())],
        "by_model": {
            model: {**total.to_dict(), "priced": model not in unpriced, **_price_of(model, model not in unpriced)}
            for model, total in models.items()
        },
        **({"earlier_turns": {"turns": earlier_turns, **earlier.to_dict()}} if earlier_turns else {}),
        "by_agent": {
            agent: {**total.to_dict(), **({"subagents": earlier_agents} if agent.startswith(EARLIER_AGENTS) else {})}
            for agent, total in agents.items()
        },
        "cache_misses": misses,
        "unpriced_models": unpriced,
        **(
            {"unpriced_note": f"no price listed for {', '.join(unpriced)}: estimated at {DEFAULT_PRICE_MODEL}'s prices"}
            if unpriced
            else {}
        ),
    }


def short_tokens(tokens: float) -> str:
    """14.2k, 1.3M, 830."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else f"{tokens:.0f}"


def cache_miss_line(event: CacheMissed) -> str:
    """ "cache miss: tools changed (+3 mcp__git tools), 14.2k tokens written again (+$0.0431)"."""
    extra = f" (+${event.extra_cost_usd:.4f})" if event.extra_cost_usd >= 0.00005 else ""
    return f"cache miss: {event.text}, {short_tokens(event.lost_tokens)} tokens written again{extra}"


def _price_of(model: str, priced: bool) -> dict[str, Any]:
    """`provider` (a profile's name, for `NAME:MODEL`) and `price_per_mtok` (None when no price is listed)."""
    from tui.providers.profiles import lookup

    profile, _ = lookup(model) if ":" in model else (None, model)
    info = model_info(model)
    price = {
        "input": info.input,
        "output": info.output,
        "cache_write": info.cache_write_5m,
        "cache_read": info.cache_read,
    }
    return {"provider": profile.name if profile else None, "price_per_mtok": price if priced else None}
