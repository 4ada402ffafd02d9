"""The soak day's plan: the warm-up has done each of the day's actions once, and the day repeats each after it."""

from __future__ import annotations

import pytest

from tests.bench.soak import Plan, first_uses, warm_turn

DAYS = {
    "full": Plan(),
    "quick": Plan(turns=200, subagents=20, tool_calls=2000, output_bytes=5_000_000),
    "test": Plan(turns=100, subagents=5, tool_calls=200, output_bytes=2_000_000, compactions=2, rewinds=2),
    "one compaction": Plan(turns=60, compactions=1, rewinds=3),
}


@pytest.mark.parametrize("plan", DAYS.values(), ids=DAYS.keys())
def test_the_warm_up_does_each_action_once_and_the_day_repeats_it(plan: Plan) -> None:
    warm = warm_turn(plan)
    every = plan.turns // (plan.compactions + 1)
    compactions = [every * i for i in range(1, plan.compactions + 1)]
    rewinds, inspector = first_uses(plan)
    opened = sorted(turn for turn, what in inspector.items() if what == "open")
    closed = sorted(turn for turn, what in inspector.items() if what == "close")

    assert len(rewinds) == plan.rewinds and all(0 < turn < plan.turns for turn in rewinds | set(inspector))
    # read at the end of a compaction cycle, as the day's end is: after one compaction, before the next
    assert warm == compactions[min(2, plan.compactions) - 1]
    if plan.compactions > 1:
        assert compactions[0] < min(rewinds) < warm and compactions[0] < opened[0]
    # the first of each before the warm-up reading (the inspector closed again), the others after it
    assert min(rewinds) < warm and opened[0] < closed[0] < warm
    assert max(rewinds) > warm and opened[-1] > warm and closed[-1] > opened[-1]
    # the panel is never open while /rewind runs
    assert not any(o <= r <= c for o, c in zip(opened, closed) for r in rewinds)


def test_the_full_day_reads_its_warm_up_at_turn_666() -> None:
    rewinds, inspector = first_uses(Plan())
    assert (warm_turn(Plan()), sorted(rewinds), sorted(inspector)) == (666, [646, 1340], [606, 626, 1666, 1686])
