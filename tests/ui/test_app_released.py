"""A closed app is memory the process gets back: nothing the session or a module keeps holds it (issue 38)."""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
import time
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

    async def run(app: AgentApp) -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()

    asyncio.run(run(app))
    del app
    gc.collect()
    # the asyncRewake waker held the app, every widget, strip and cache with it
    assert session.waker is None
    session.close()


def test_a_closed_app_is_freed_while_its_session_and_threads_live_on(
    demo_project: Path, tmp_path: Path, monkeypatch
) -> None:
    """Threads started while the app ran keep Textual's print capture (their `sys.stderr`), which held the app."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # the offline model: no network
    options = AgentOptions(project_dir=demo_project, interactive=True, transcript=False)
    session = AgentSession(options)
    session.prepare()
    app = AgentApp(options, session=session)
    ref = weakref.ref(app)
    started: list[threading.Thread] = []

    async def run(app: AgentApp) -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await app.submit_prompt("read the README")  # the offline model reads files: the tool pool starts
            for _ in range(600):
                await pilot.pause(0.05)
                if not session.running and not app.controller.busy:
                    break
            idle = threading.Thread(target=threading.Event().wait, args=(600,), daemon=True)
            idle.start()  # a thread that outlives the app, started while it ran
            started.append(idle)

    asyncio.run(run(app))
    del app
    assert sys.stderr is sys.__stderr__ or not hasattr(sys.stderr, "app")
    deadline = time.monotonic() + 30  # a worker thread's job may still be ending (AnyIO's idle ones wait 10 s)
    while gc.collect() is not None and ref() is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ref() is None, [(type(r).__name__, str(r)[:80]) for r in gc.get_referrers(ref())]
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
