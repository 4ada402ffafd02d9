"""/context in the app: the grid and the table after a turn."""

from __future__ import annotations

from tui.ui.app import AgentApp
from tui.ui.screens.context_screen import ContextScreen

from .conftest import SIZE, type_prompt, wait_until


async def test_context_shows_the_grid_and_the_table(offline_options) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "list the python files")
        await wait_until(pilot, lambda: app.session.turn_count == 1 and not app.controller.busy, timeout=30)
        await type_prompt(pilot, "/context")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen))
        grid = str(app.screen.query_one("#context-grid").render())
        figures = app.screen.figures
        assert grid.count("■") == -(-figures["used"] * 200 // figures["window"]) >= 1
        assert grid.count("■") + grid.count("□") == 200
        from rich.console import Console

        from tui.ui.screens.context_screen import table

        console = Console(width=100, record=True)
        console.print(table(figures))
        text = console.export_text()
        for words in ("Tool definitions", "Compaction starts at", "Top consumers", "Cache breakpoints"):
            assert words in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ContextScreen))
