"""The cost ledger keeps its newest entries one by one and folds older ones into exact sums (issue 38)."""

from __future__ import annotations

from tui.agent.cost.cost import CostLedger
from tui.agent.cost.fold import FoldedCost
from tui.agent.cost.report import cost_breakdown


def _day(ledger: CostLedger, turns: int) -> None:
    """`turns` turns of two main requests, a subagent's request every third turn, a cache miss on turn 4."""
    for turn in range(1, turns + 1):
        ledger.begin_turn(turn)
        messages = [{"role": "user", "content": f"turn {t} " + "x" * 400} for t in range(1, turn + 1)]
        body = {"model": "claude-sonnet-4-5", "system": "s" * 800, "messages": messages}
        usage = {"input_tokens": 50 + turn, "cache_read_input_tokens": 900, "output_tokens": 30 + turn}
        for iteration in (1, 2):
            entry = ledger.record(body, usage, price_model="claude-sonnet-4-5", iteration=iteration)
            if turn == 4 and iteration == 1:
                entry.cache_miss = {"cause": "tools changed", "lost_tokens": 900}
        if turn % 3 == 0:
            ledger.record(body, usage, price_model="claude-sonnet-4-5", loop_path=f"main/sub{turn}")


def test_the_ledger_holds_the_newest_entries_and_every_total_stays_exact() -> None:
    """N+k entries: N held, k folded (older), numbers continue; /cost's and -p's breakdown is the one every entry
    gives, by part, turn, model, agent and cache miss; a turn's total still counts its folded requests."""
    everything, bounded = CostLedger(), CostLedger(keep=10)
    _day(everything, 30)
    _day(bounded, 30)
    assert len(everything.entries) == 70 and len(bounded.entries) == 10 and bounded.fold.requests == 60
    assert [e.number for e in bounded.entries] == list(range(61, 71))
    assert all(isinstance(e, FoldedCost) for e in bounded.snapshot()[:-10])
    full, folded = cost_breakdown(everything.snapshot()), cost_breakdown(bounded.snapshot())
    assert folded == full
    assert folded["requests"] == 70 and len(folded["by_turn"]) == 30 and folded["cache_misses"][0]["turn"] == 4
    assert bounded.turn_total(3) == everything.turn_total(3) > 0 and bounded.turn_total(99, -1.0) == -1.0
    assert all(e.turn == -1 for e in bounded.snapshot()[:-10])  # a filter by turn (-p's result) never takes a sum
