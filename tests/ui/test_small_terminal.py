"""Small terminals: below 40×12 one sentence says so; below 80 columns the tool panel steps aside."""

from __future__ import annotations

from tui.ui.app import AgentApp

from .conftest import SIZE, wait_until


async def test_below_40_by_12_the_screen_says_it_is_too_small_and_comes_back(offline_options) -> None:
    from tui.ui.screens.too_small import TooSmallScreen

    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=(30, 10)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TooSmallScreen))
        assert str(app.screen.query_one("#too-small").render()) == "terminal too small: 30×10, needs 40×12"
        await pilot.resize_terminal(60, 11)
        await wait_until(
            pilot, lambda: str(app.screen.query_one("#too-small").render()) == "terminal too small: 60×11, needs 40×12"
        )
        await pilot.resize_terminal(40, 12)
        await wait_until(pilot, lambda: not isinstance(app.screen, TooSmallScreen))
        assert app.prompt_area.display and len(app.screen_stack) == 1


async def test_below_80_columns_the_tool_panel_hides_and_f3_brings_it_back(offline_options) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=(79, 30)) as pilot:
        await pilot.pause()
        panel = app.tool_panel
        assert not panel.display or panel.region.width == 0
        assert app.query_one("#conversation").region.width >= 70
        await pilot.press("f3")
        await wait_until(pilot, lambda: panel.region.width > 0)
        await pilot.press("f3")
        await wait_until(pilot, lambda: panel.region.width == 0)
        await pilot.resize_terminal(*SIZE)
        await wait_until(pilot, lambda: panel.region.width > 0)  # wide again: it is back
