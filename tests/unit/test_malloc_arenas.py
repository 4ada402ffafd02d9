"""The app caps glibc's malloc arenas for its threads, unless the user set MALLOC_ARENA_MAX."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest

from tui.ui import gc_tuning


class _Libc:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def mallopt(self, option: int, value: int) -> int:
        self.calls.append((option, value))
        return 1


async def test_the_arenas_are_capped_after_the_first_frame(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Capped before the engine's threads start, but after the first frame (importing ctypes costs ~2 ms)."""
    libc = _Libc()
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    monkeypatch.setattr(ctypes, "CDLL", lambda name, *a, **k: libc)
    from tui.agent.options import AgentOptions
    from tui.ui.app import AgentApp

    app = AgentApp(AgentOptions(project_dir=tmp_path, interactive=True, transcript=False))
    assert libc.calls == []  # not while the app is built
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert (-8, gc_tuning.MALLOC_ARENAS) in libc.calls  # M_ARENA_MAX


def test_a_malloc_arena_max_the_user_set_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    libc = _Libc()
    monkeypatch.setenv("MALLOC_ARENA_MAX", "8")
    monkeypatch.setattr(ctypes, "CDLL", lambda name, *a, **k: libc)
    assert gc_tuning.cap_malloc_arenas() is False
    assert libc.calls == []


def test_without_glibc_nothing_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str, *a: Any, **k: Any) -> Any:
        raise OSError("no libc.so.6")

    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    monkeypatch.setattr(ctypes, "CDLL", missing)
    assert gc_tuning.cap_malloc_arenas() is False


def _trims(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record glibc malloc_trim calls (the looked-up function replaced), the clock and the turn count reset."""
    calls: list[int] = []
    monkeypatch.setattr(gc_tuning, "_malloc_trim", lambda pad: calls.append(pad) or 1)
    monkeypatch.setattr(gc_tuning, "_last_trim", None)
    monkeypatch.setattr(gc_tuning, "_turns", 0)
    return calls


def test_turns_trim_at_most_once_a_period_on_a_full_collection(monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn's collection (run when the screen is quiet) trims glibc's free memory only on a full collection and
    at most once every TRIM_EVERY_S: a trim after every full collection cost frame time."""
    import gc
    import time

    calls = _trims(monkeypatch)
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    collected: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda gen=2: collected.append(gen) or 0)
    monkeypatch.setattr(gc, "isenabled", lambda: True)

    def turns(count: int, seconds_each: float) -> None:
        for _ in range(count):
            now[0] += seconds_each
            gc_tuning.collect_after_turn()

    turns(gc_tuning.TURN_FULL_EVERY * 5, 1.0)  # 50 s: the first full collection starts the clock, no trim yet
    assert collected.count(2) == 5 and calls == []
    turns(gc_tuning.TURN_FULL_EVERY * 100, gc_tuning.TRIM_EVERY_S / gc_tuning.TURN_FULL_EVERY / 4)  # 25 periods
    assert 24 <= len(calls) <= 25 and set(calls) == {0}
    turns(gc_tuning.TURN_FULL_EVERY - 1, gc_tuning.TRIM_EVERY_S)  # long turns, but none ends in a full collection
    assert 24 <= len(calls) <= 25
    before = len(calls)
    turns(1, 0.0)
    assert len(calls) == before + 1


def test_the_app_trims_once_when_it_closes(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Closing the app (its collector settings put back) hands glibc's free memory back, once."""
    import asyncio

    from tui.agent.options import AgentOptions
    from tui.ui.app import AgentApp

    calls = _trims(monkeypatch)
    app = AgentApp(AgentOptions(project_dir=tmp_path, interactive=True, transcript=False))

    async def run() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert calls == []

    asyncio.run(run())
    assert calls == [0]


def test_without_glibc_a_trim_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str, *a: Any, **k: Any) -> Any:
        raise OSError("no libc.so.6")

    monkeypatch.setattr(ctypes, "CDLL", missing)
    monkeypatch.setattr(gc_tuning, "_malloc_trim", None)
    assert gc_tuning.trim_malloc() is False
    assert gc_tuning.trim_malloc() is False
