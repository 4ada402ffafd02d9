"""A closed app is memory the process gets back: nothing the session or a module keeps holds it (issue 38)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path

import pytest

from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.ui import themes
from tui.ui.app import AgentApp


def test_a_closed_app_is_not_held_by_the_session_it_ran(demo_project: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # the offline model: no network
    options = AgentOptions(project_dir=demo_project, interactive=True, transcript=False)
    session = AgentSession(options)
    session.prepare()
    app = AgentApp(options, session=session)
    ref = weakref.ref(app)  # alone (-n 0) it is dead after the close; see below

    async def run(app: AgentApp) -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()

    asyncio.run(run(app))
    del app
    gc.collect()
    # the asyncRewake waker held the app, every widget, strip and cache with it; (whether `ref()` is dead also
    # depends on what else the test process still runs, an idle AnyIO worker's frame: not asserted here)
    assert session.waker is None
    del ref
    session.close()


def test_the_theme_watchers_map_does_not_keep_a_closed_app() -> None:
    class FakeApp:
        pass

    app = FakeApp()
    themes._watchers[app] = themes.ThemeWatcher(app)  # type: ignore[index, arg-type]
    ref = weakref.ref(app)
    del app
    gc.collect()
    assert ref() is None  # the watcher (the map's value) held its key: the entry, and the app, lived forever
    with pytest.raises(KeyError):
        themes._watchers[FakeApp()]  # type: ignore[index]
