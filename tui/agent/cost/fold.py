"""The cost ledger's older entries, summed instead of held one by one.

A request's entry holds its tokens and USD per kind and per part (about 3 KB); a long day has thousands. The
ledger keeps the newest `KEEP_ENTRIES` as they are and folds older ones here: one `FoldedCost` per loop, kind
and model (its sums, its request count, a small row per turn, its cache misses), so every figure of
`cost_breakdown` (report.py) stays exact. The transcript keeps every entry (resume reads them back).

The sums are bounded too (a full soak day held ~1 MB of them): rows of the newest `KEEP_TURN_ROWS` turns; older
turns' rows are added into one "earlier" row per sum and counted, so /cost's "N earlier turns $X" line stays
exact. The sums of the newest `KEEP_AGENT_SUMS` subagents; older subagents' are added into one sum per kind and
model named `EARLIER_AGENTS` ("by agent" shows "N earlier subagents"). The newest `KEEP_MISSES` cache misses of
each sum; the count of all stays exact. Totals by kind, part, model and the whole session never change.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .cost import PARTS, ZONES, RequestCost

#: entries the ledger holds one by one (the newest, about a hundred turns; ~3 KB each); older ones are folded (their
#: sums stay exact)
KEEP_ENTRIES = 200
#: turns whose folded requests keep a row of their own (the newest); older ones share one "earlier" row
KEEP_TURN_ROWS = 100
#: subagents whose folded requests keep a sum of their own (the newest); older ones share EARLIER_AGENTS's
KEEP_AGENT_SUMS = 50
#: cache misses a sum lists (the newest; /cost shows 8); `miss_count` counts them all
KEEP_MISSES = 50
#: the loop path of the sums of subagents beyond KEEP_AGENT_SUMS
EARLIER_AGENTS = "earlier subagents"
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
    #: the newest KEEP_MISSES cache misses among them, numbered like the report lists them
    misses: list[dict[str, Any]] = field(default_factory=list)
    #: every cache miss among them
    miss_count: int = 0
    #: the rows of turns beyond KEEP_TURN_ROWS, added into one (see ROW)
    earlier: list[float] = field(default_factory=lambda: [0.0] * ROW)
    #: turns in `earlier` (the whole fold's count: set on the copies `Fold.entries` hands out)
    earlier_turns: int = 0
    #: subagents summed in here (EARLIER_AGENTS's sums only; the whole fold's count, set on the copies)
    agents: int = 0

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
        self._add_sums(entry)
        _add_row(self.turns.setdefault(entry.turn, [0.0] * ROW), row_of(entry))
        if entry.cache_miss is not None:
            self.miss_count += 1
            self.misses.append(
                {"request": entry.number, "turn": entry.turn, "loop_path": entry.loop_path, **entry.cache_miss}
            )
            del self.misses[:-KEEP_MISSES]

    def absorb(self, other: FoldedCost) -> None:
        """Add another sum of the same kind and model into this one (an older subagent's into EARLIER_AGENTS's)."""
        self.requests += other.requests
        self._add_sums(other)
        for turn, row in other.turns.items():
            _add_row(self.turns.setdefault(turn, [0.0] * ROW), row)
        _add_row(self.earlier, other.earlier)
        self.miss_count += other.miss_count
        self.misses = sorted([*self.misses, *other.misses], key=lambda m: int(m.get("request") or 0))[-KEEP_MISSES:]

    def _add_sums(self, other: RequestCost) -> None:
        """Add the tokens and dollars by zone and by part of one request or of another sum."""
        for zone in ZONES:
            self.tokens[zone] += other.tokens.get(zone, 0)
            self.usd[zone] += other.usd.get(zone, 0.0)
        for part, zones in other.parts.items():
            mine = self.parts.setdefault(part, {})
            for zone, tokens in zones.items():
                mine[zone] = mine.get(zone, 0.0) + tokens
        for part, usd in other.part_usd.items():
            self.part_usd[part] = self.part_usd.get(part, 0.0) + usd
        self.web_search_usd += other.web_search_usd

    def drop_turn(self, turn: int) -> None:
        """Add turn `turn`'s row into the earlier row."""
        row = self.turns.pop(turn, None)
        if row is not None:
            _add_row(self.earlier, row)


def _add_row(into: list[float], row: list[float]) -> None:
    for i, value in enumerate(row):
        into[i] += value


class Fold:
    """The folded entries of one ledger, by (loop path, kind, model, priced), within the bounds above."""

    def __init__(self, turn_rows: int = KEEP_TURN_ROWS, agent_sums: int = KEEP_AGENT_SUMS) -> None:
        self.by_key: dict[tuple[str, str, str, bool], FoldedCost] = {}
        self.requests = 0
        self.turn_rows = turn_rows
        self.agent_sums = agent_sums
        #: the turns with rows, oldest first (a dict as an ordered set)
        self._turns: dict[int, None] = {}
        #: turns up to this one are in the earlier rows
        self._earlier_upto = -1
        self.earlier_turns = 0
        #: the subagents with sums of their own, least recently folded first
        self._agents: dict[str, None] = {}
        self.earlier_agents = 0

    def add(self, entry: RequestCost) -> None:
        key = (entry.loop_path, entry.kind, entry.model, entry.priced)
        if entry.loop_path != "main":
            self._agents.pop(entry.loop_path, None)
            self._agents[entry.loop_path] = None
            if len(self._agents) > self.agent_sums:
                self._retire_agent(next(iter(self._agents)))
        folded = self.by_key.get(key)
        if folded is None:
            folded = self.by_key[key] = FoldedCost.empty(entry)
        folded.add(entry)
        self.requests += 1
        if entry.turn <= self._earlier_upto:  # a late request of a turn already summed with the earlier ones
            folded.drop_turn(entry.turn)
        elif entry.turn not in self._turns:
            self._turns[entry.turn] = None
            if len(self._turns) > self.turn_rows:
                self._retire_turn(next(iter(self._turns)))

    def _retire_turn(self, turn: int) -> None:
        del self._turns[turn]
        for folded in self.by_key.values():
            folded.drop_turn(turn)
        self.earlier_turns += 1
        self._earlier_upto = max(self._earlier_upto, turn)

    def _retire_agent(self, loop_path: str) -> None:
        """Add the sums of subagent `loop_path` into EARLIER_AGENTS's (one per kind, model and priced)."""
        del self._agents[loop_path]
        for key in [k for k in self.by_key if k[0] == loop_path]:
            folded = self.by_key.pop(key)
            earlier_key = (EARLIER_AGENTS, *key[1:])
            into = self.by_key.get(earlier_key)
            if into is None:
                into = self.by_key[earlier_key] = replace(FoldedCost.empty(folded), loop_path=EARLIER_AGENTS)
            into.absorb(folded)
        self.earlier_agents += 1

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
                earlier=list(f.earlier),
                earlier_turns=self.earlier_turns,
                agents=self.earlier_agents if f.loop_path == EARLIER_AGENTS else 0,
            )
            for f in self.by_key.values()
        ]

    def turn_usd(self, turn: int) -> tuple[int, float]:
        """(requests, USD) of turn `turn` among the folded entries (0 for a turn in the earlier rows)."""
        rows = [f.turns[turn] for f in self.by_key.values() if turn in f.turns]
        return int(sum(r[0] for r in rows)), sum(r[ROW - 2] for r in rows)
