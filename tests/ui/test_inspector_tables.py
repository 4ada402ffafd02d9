"""The inspector's tables keep a few screens of rendered rows, not Textual's thousands (issue 38: the open
inspector grew the soak's RSS ~3.5 MiB a turn until its tables' render caches were full)."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from tui.ui.app import AgentApp
from tui.ui.widgets.inspector.lean_table import CELLS_CACHED, ROWS_CACHED, LeanTable

from .conftest import SIZE, wait_until


class _TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield LeanTable(id="t", cursor_type="row")


def _cached(table: Any) -> dict[str, int]:
    return {
        name: len(getattr(table, name))
        for name in ("_row_render_cache", "_cell_render_cache", "_row_renderable_cache", "_line_cache")
    }


async def test_a_growing_table_keeps_its_render_caches_small() -> None:
    """Every added row makes the earlier renders stale; a screenful of rows drawn after each of 20 more keeps at
    most ROWS_CACHED rows and CELLS_CACHED cells (Textual's DataTable kept them all, up to 1,000 and 10,000)."""
    app = _TableApp()
    async with app.run_test(size=(100, 60)) as pilot:
        table = app.query_one(LeanTable)
        table.add_columns(*(f"c{i}" for i in range(10)))
        for n in range(60):  # a screenful
            table.add_row(*(f"{n}.{i}" for i in range(10)), key=str(n))
        for n in range(60, 80):  # then a row at a time, each drawn: every draw renders the screen's rows anew
            table.add_row(*(f"{n}.{i}" for i in range(10)), key=str(n))
            await pilot.pause()
        cached = _cached(table)
        assert cached["_cell_render_cache"] > 0
        assert cached["_cell_render_cache"] <= CELLS_CACHED
        assert max(cached["_row_render_cache"], cached["_row_renderable_cache"], cached["_line_cache"]) <= ROWS_CACHED


async def test_the_inspectors_tables_are_lean(fake_session: Any) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query("#cancel"))
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.inspector is not None and app.inspector.query("#inspector-bars"))
        for name in ("inspector-calls", "inspector-sse", "inspector-bars"):
            assert isinstance(app.inspector.query_one(f"#{name}"), LeanTable), name


async def test_text_in_a_lean_table_is_shown_as_written_never_as_markup() -> None:
    """A DataTable parses str labels and cells as markup: a subagent named `[/]x` raised an error inside a frame,
    and `[b]` vanished into bold. Every way into the table keeps the text as written."""
    app = _TableApp()
    async with app.run_test(size=(100, 10)) as pilot:
        table = app.query_one(LeanTable)
        table.add_column("[b]lane[/b]", key="lane")
        table.add_columns("[/]", ("[red]status", "status"))
        table.add_row("main/[/]reviewer", "[b]x", ":smile:", key="r")
        table.update_cell("r", "status", "error [/red]")
        await pilot.pause()
        assert [str(c.label) for c in table.columns.values()] == ["[b]lane[/b]", "[/]", "[red]status"]
        assert [str(c) for c in table.get_row("r")] == ["main/[/]reviewer", "[b]x", "error [/red]"]
        screen = "\n".join(table.render_line(y).text for y in range(3))
        for written in ("[b]lane[/b]", "main/[/]reviewer", "[b]x", "error [/red]"):
            assert written in screen, written
