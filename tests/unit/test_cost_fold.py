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
    everything, bounded = CostLedger(keep=10**9), CostLedger(keep=10)  # every entry held, against a fold
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


def _long_day(ledger: CostLedger, turns: int) -> None:
    """`turns` turns of a main request and a new subagent's, a cache miss every fifth turn."""
    body = {"model": "claude-sonnet-4-5", "system": "s" * 80, "messages": [{"role": "user", "content": "x"}]}
    for turn in range(1, turns + 1):
        ledger.begin_turn(turn)
        usage = {"input_tokens": 50 + turn, "cache_read_input_tokens": 900, "output_tokens": 30 + turn}
        entry = ledger.record(body, usage, price_model="claude-sonnet-4-5")
        if turn % 5 == 0:
            entry.cache_miss = {"text": "tools changed", "lost_tokens": 9, "extra_cost_usd": 0.001}
        ledger.record(body, usage, price_model="claude-haiku-4-5", loop_path=f"main/general-purpose-{turn}")


def test_the_folded_sums_stay_bounded_and_cost_says_what_it_summed() -> None:
    """A long session's fold holds rows of its newest turns and sums of its newest subagents only (the older ones
    each summed into one), and its newest misses; /cost's turn lines, totals, models and parts are the ones every
    entry gives, and "by agent" names the older subagents as one line with their count and their exact sum."""
    from tui.agent.cost.fold import EARLIER_AGENTS, Fold
    from tui.ui.cost_command import cost_report

    everything, bounded = CostLedger(keep=10**9), CostLedger(keep=10)  # every entry held, against a fold
    bounded.fold = Fold(turn_rows=20, agent_sums=5)
    day_of = 300
    _long_day(everything, day_of)
    _long_day(bounded, day_of)
    fold = bounded.fold
    assert len({t for f in fold.by_key.values() for t in f.turns}) <= 20
    assert len({f.loop_path for f in fold.by_key.values()} - {"main", EARLIER_AGENTS}) <= 5
    assert all(len(f.misses) <= 50 for f in fold.by_key.values())
    full, folded = cost_breakdown(everything.snapshot()), cost_breakdown(bounded.snapshot())
    for key in ("total_cost_usd", "requests", "tokens", "usd", "by_part", "by_model", "cache_read_share"):
        assert folded[key] == full[key], key
    assert folded["earlier_turns"]["turns"] + len(folded["by_turn"]) == day_of
    assert (
        abs(
            folded["earlier_turns"]["cost_usd"] + sum(t["cost_usd"] for t in folded["by_turn"]) - full["total_cost_usd"]
        )
        < 1e-5
    )
    assert folded["by_turn"][-20:] == full["by_turn"][-20:]
    assert sum(t["cache_misses"] for t in folded["by_turn"]) + folded["earlier_turns"]["cache_misses"] == day_of // 5
    earlier = folded["by_agent"][EARLIER_AGENTS]
    older = [a for name, a in full["by_agent"].items() if name not in folded["by_agent"]]
    assert earlier["subagents"] == len(older) == day_of - 5 - 5  # 5 in the entries held, 5 with sums of their own
    assert earlier["requests"] == sum(a["requests"] for a in older)
    assert abs(earlier["cost_usd"] - sum(a["cost_usd"] for a in older)) < 1e-5
    shown, expected = cost_report(folded).splitlines(), cost_report(full).splitlines()
    turn_lines = [n for n, line in enumerate(expected) if "earlier turns" in line or line.lstrip().startswith("turn ")]
    assert [shown[n] for n in turn_lines] == [expected[n] for n in turn_lines]
    assert any(f"{earlier['subagents']} {EARLIER_AGENTS}" in line for line in shown)
    assert folded["cache_misses"][-8:] == full["cache_misses"][-8:]
