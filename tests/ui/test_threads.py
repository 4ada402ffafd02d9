"""Work handed from threads to the UI never blocks the thread, even while the app closes."""

from __future__ import annotations

import asyncio
import threading
import time

from textual.app import App

from tui.ui.threads import call_soon_from_thread


async def test_runs_on_the_ui_thread_without_waiting() -> None:
    app = App()
    seen: list[int] = []
    async with app.run_test():
        ui_thread = threading.get_ident()
        results: list[bool] = []

        def record() -> None:
            seen.append(threading.get_ident())

        worker = threading.Thread(target=lambda: results.append(call_soon_from_thread(app, record)))
        worker.start()
        worker.join(2)
        assert results == [True]
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.01)
        assert seen == [ui_thread]


async def test_after_the_app_closed_it_returns_at_once() -> None:
    app = App()
    async with app.run_test():
        pass
    done: list[tuple[bool, float]] = []

    def late_worker() -> None:
        start = time.perf_counter()
        done.append((call_soon_from_thread(app, lambda: None), time.perf_counter() - start))

    worker = threading.Thread(target=late_worker, daemon=True)
    worker.start()
    worker.join(2)
    assert not worker.is_alive(), "the thread blocked on a closed app"
    assert done[0][0] is False and done[0][1] < 0.5
