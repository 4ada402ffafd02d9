"""Small terminals: below 40×12 one sentence says so; below 100 columns the tool panel steps aside; header and footer shorten by whole words."""

from __future__ import annotations

from pathlib import Path

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


async def test_below_100_columns_the_tool_panel_starts_hidden_and_f3_shows_it(offline_options) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=(99, 30)) as pilot:
        await pilot.pause()
        panel = app.tool_panel
        assert not panel.display or panel.region.width == 0
        assert app.query_one("#conversation").region.width >= 90
        await pilot.press("f3")
        await wait_until(pilot, lambda: panel.region.width > 0)
        await pilot.resize_terminal(100, 30)  # from 100 columns on it shows (F3's choice still counts)
        await wait_until(pilot, lambda: panel.region.width > 0)


async def test_the_header_and_the_footer_shorten_by_whole_words(offline_options, monkeypatch) -> None:
    from textual.widgets._footer import FooterKey

    from tui.ui.widgets.app_header import OFFLINE_HINT

    options = offline_options()
    # the header shows the folder under ~ as `~/demo`: the same line wherever pytest puts its temp folders (a
    # longer path under xdist's popen-gwN/ would leave no room for the hint at 140 columns)
    monkeypatch.setenv("HOME", str(Path(options.project_dir).parent))
    app = AgentApp(options, permission_grace_s=0)
    async with app.run_test(size=(140, 30)) as pilot:
        header = app.query_one("#header")
        footer = app.query_one("Footer")

        def header_line() -> str:
            return header.render_line(0).text

        def keys() -> list[FooterKey]:
            return [k for k in footer.query(FooterKey) if k.display and not k.has_class("-command-palette")]

        await wait_until(pilot, lambda: OFFLINE_HINT in header_line() and len(keys()) >= 7)
        for width in (120, 100, 80, 60, 40):
            await pilot.resize_terminal(width, 24)
            await wait_until(pilot, lambda width=width: footer.region.width == width)
            await pilot.pause(0.1)
            await pilot.pause(0.1)
            line = header_line()
            assert OFFLINE_HINT in line or "try:" not in line, line  # the hint whole, or not at all
            assert "offline demo model" in line, line
            palette = footer.query_one(".-command-palette")
            shown = keys()
            assert shown and all(k.region.right <= palette.region.x for k in shown), (width, [k.region for k in shown])
            names = [k.description for k in shown]
            assert names == [k.description for k in footer.query(FooterKey)][: len(names)]  # the first ones, in order


async def test_the_screen_mounts_with_the_breakpoint_classes_of_the_terminal(offline_options) -> None:
    """They are set before the first Resize (breakpoints.py), which then has nothing to restyle."""
    seen: list[set[str]] = []

    class Probe(AgentApp):
        def on_mount(self) -> None:
            seen.append(set(self.screen.classes))

    app = Probe(offline_options(), permission_grace_s=0)
    async with app.run_test(size=(110, 16)) as pilot:
        await pilot.pause()
        assert {"-narrow", "-short"} <= seen[0] and not {"-wide", "-cramped", "-tall"} & seen[0]
        await pilot.resize_terminal(130, 40)
        await wait_until(pilot, lambda: {"-wide", "-tall"} <= app.screen.classes)
        assert not {"-narrow", "-short"} & app.screen.classes
