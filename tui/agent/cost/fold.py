"""The cost ledger's older entries, summed instead of held one by one.

A request's entry holds its tokens and USD per kind and per part (about 3 KB); a long day has thousands. The
ledger keeps the newest `KEEP_ENTRIES` as they are and folds older ones here: one `FoldedCost` per loop, kind
and model (its sums, its request count, a small row per turn, its cache misses), so every figure of
`cost_breakdown` (report.py) stays exact. The transcript keeps every entry (resume reads them back).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .cost import PARTS, ZONES, RequestCost

#: entries the ledger holds one by one (the newest); older ones are folded
KEEP_ENTRIES = 1000
#: a turn's row in a folded entry: requests, then tokens per kind (ZONES), then USD, then cache misses
ROW = len(ZONES) + 3


def row_of(entry: RequestCost) -> list[float]:
    """One entry as a turn row: [requests, *tokens by ZONES, usd, misses]."""
    return [1.0, *(float(entry.tokens.get(z, 0)) for z in ZONES), entry.total_usd, float(entry.cache_miss is not None)]


@dataclass
class FoldedCost(RequestCost):
    """Entries of one loop, kind and model no longer held one by one: summed, with their turns and misses."""

    requests: int = 0
    #: turn -> row (see ROW)
    turns: dict[int, list[float]] = field(default_factory=dict)
    #: the cache misses among them, numbered like the report lists them
    misses: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def empty(cls, entry: RequestCost) -> FoldedCost:
        return cls(
            number=0,
            turn=-1,  # no turn of its own (its turns are in `turns`): a filter by turn never takes it
            loop_path=entry.loop_path,
            model=entry.model,
            kind=entry.kind,
            iteration=0,
            priced=entry.priced,
            tokens=dict.fromkeys(ZONES, 0),
            usd=dict.fromkeys(ZONES, 0.0),
            parts={p: {} for p in PARTS},
            part_usd=dict.fromkeys(PARTS, 0.0),
            at=entry.at,
        )

    def add(self, entry: RequestCost) -> None:
        self.requests += 1
        for zone in ZONES:
            self.tokens[zone] += entry.tokens.get(zone, 0)
            self.usd[zone] += entry.usd.get(zone, 0.0)
        for part, zones in entry.parts.items():
            mine = self.parts.setdefault(part, {})
            for zone, tokens in zones.items():
                mine[zone] = mine.get(zone, 0.0) + tokens
        for part, usd in entry.part_usd.items():
            self.part_usd[part] = self.part_usd.get(part, 0.0) + usd
        self.web_search_usd += entry.web_search_usd
        row = self.turns.setdefault(entry.turn, [0.0] * ROW)
        for i, value in enumerate(row_of(entry)):
            row[i] += value
        if entry.cache_miss is not None:
            self.misses.append(
                {"request": entry.number, "turn": entry.turn, "loop_path": entry.loop_path, **entry.cache_miss}
            )


class Fold:
    """The folded entries of one ledger, by (loop path, kind, model, priced)."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, str, str, bool], FoldedCost] = {}
        self.requests = 0

    def add(self, entry: RequestCost) -> None:
        key = (entry.loop_path, entry.kind, entry.model, entry.priced)
        folded = self.by_key.get(key)
        if folded is None:
            folded = self.by_key[key] = FoldedCost.empty(entry)
        folded.add(entry)
        self.requests += 1

    def entries(self) -> list[RequestCost]:
        """Copies of the folded entries (the loop thread adds to the originals)."""
        return [
            replace(
                f,
                tokens=dict(f.tokens),
                usd=dict(f.usd),
                parts={p: dict(z) for p, z in f.parts.items()},
                part_usd=dict(f.part_usd),
                turns={t: list(r) for t, r in f.turns.items()},
                misses=list(f.misses),
            )
            for f in self.by_key.values()
        ]

    def turn_usd(self, turn: int) -> tuple[int, float]:
        """(requests, USD) of turn `turn` among the folded entries."""
        rows = [f.turns[turn] for f in self.by_key.values() if turn in f.turns]
        return int(sum(r[0] for r in rows)), sum(r[ROW - 2] for r in rows)
