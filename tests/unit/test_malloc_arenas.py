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
