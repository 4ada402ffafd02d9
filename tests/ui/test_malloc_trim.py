"""glibc's free memory goes back to the kernel after a turn only once the screen is quiet, never inside a frame."""

from __future__ import annotations

from typing import Any

import pytest

from tui.agent import events as ev
from tui.ui import frame_budget, gc_tuning
from tui.ui.app import AgentApp

from .conftest import SIZE, wait_until


async def test_a_turns_trim_runs_from_the_quiet_screen_callback(
    fake_session: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The end of a turn hands `collect_after_turn` (and its trim, when due) to `when_quiet`; nothing is trimmed
    while the turn's events are handled."""
    trims: list[int] = []
    monkeypatch.setattr(gc_tuning, "_malloc_trim", lambda pad: trims.append(pad) or 1)
    monkeypatch.setattr(gc_tuning, "_last_trim", None)
    monkeypatch.setattr(gc_tuning, "_turns", gc_tuning.TURN_FULL_EVERY - 1)  # the next turn collects fully
    quiet: list[Any] = []
    monkeypatch.setattr(frame_budget, "when_quiet", lambda app, callback: quiet.append(callback))
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query("#cancel"))
        fake_session.bus.publish(
            ev.TurnFinished(
                ts=0.0,
                turn_id=1,
                stop_reason="end_turn",
                is_error=False,
                num_iterations=1,
                duration_ms=900,
                usage={},
                cost_usd=0.0,
                session_usage={},
                session_cost_usd=0.0,
            )
        )
        await wait_until(pilot, lambda: quiet)
        assert quiet == [gc_tuning.collect_after_turn] and trims == []
        monkeypatch.setattr(gc_tuning, "_last_trim", -gc_tuning.TRIM_EVERY_S)  # a period has passed
        quiet.pop()()  # the screen is quiet
        assert trims == [0]
