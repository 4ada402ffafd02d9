"""Paging a long history: each page is drawn as a partial update of the conversation (never the whole screen),
the terminal ends up showing what a full redraw would, and a full update renders only rows someone sees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual._compositor import Compositor
from textual.widget import Widget

from tests.bench.bench_app import synthetic_transcript
from tui.agent.session import AgentSession
from tui.ui.screens.resume_screen import resumed_app
from tui.ui.terminal_model import DiffChopsUpdate, ModelLayoutUpdate

from .conftest import wait_until
from .test_row_compositor import AnsiGrid, Terminal, full_render

SIZE = (120, 40)


async def _settled(pilot: Any, conversation: Any) -> None:
    await wait_until(pilot, lambda: not conversation._prefetching and not conversation._restoring)
    await pilot.pause()


async def test_pages_are_partial_updates_of_the_conversation(offline_options, tmp_path: Path) -> None:
    """Re-creating old turns lays the conversation out again; the page after it still repaints only the
    conversation (Textual's first scroll after a layout repainted every row of the screen)."""
    session = AgentSession(offline_options())
    session.resume(synthetic_transcript(tmp_path / "long.jsonl", 60))
    app = resumed_app(session.options, None, session)
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        await wait_until(pilot, lambda: conversation.mounted_views)
        await _settled(pilot, conversation)
        terminal, ours = Terminal(*SIZE), AnsiGrid(*SIZE)
        updates: list[Any] = []
        inner = app._display

        def display(screen: Any, renderable: Any) -> None:
            inner(screen, renderable)
            if renderable is not None and screen is app.screen:
                updates.append(renderable)
                terminal.apply(list(app.console.render(renderable)))
                ours.apply(renderable.render_segments(app.console))

        app._display = display
        app.screen.refresh()  # a full frame first: the terminal starts from what is on screen
        await pilot.pause()
        first_mounted = conversation._first_mounted
        del updates[:]
        for _ in range(12):
            seen = len(updates)
            await pilot.press("pageup")
            await wait_until(pilot, lambda seen=seen: len(updates) > seen)  # the frame that shows the page
            await _settled(pilot, conversation)  # then the turns re-created above it
        # the pages and the turns laid out between them: each drawn as a partial update, none as the whole screen
        assert len(updates) >= 12
        assert all(isinstance(update, DiffChopsUpdate) for update in updates), [type(u).__name__ for u in updates]
        assert conversation._first_mounted < first_mounted  # old turns were re-created (laid out) on the way up
        assert terminal.rows() == full_render(app)
        assert ours.cells == _grid_of(app)


def _grid_of(app: Any) -> list[list[Any]]:
    """A full redraw written as Textual's own bytes, read back as cells (AnsiGrid's form)."""
    grid = AnsiGrid(*app.size)
    update = Compositor.render_full_update(app.screen._compositor)
    grid.apply(type(update).render_segments(update, app.console))
    return grid.cells


async def test_a_full_update_draws_what_textual_would_without_rendering_covered_rows(
    offline_options, tmp_path: Path
) -> None:
    session = AgentSession(offline_options())
    session.resume(synthetic_transcript(tmp_path / "long.jsonl", 8))
    app = resumed_app(session.options, None, session)
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        await wait_until(pilot, lambda: conversation.mounted_views)
        await _settled(pilot, conversation)
        compositor = app.screen._compositor
        theirs = Compositor._render_chops(compositor, compositor.size.region, lambda y: True)
        rendered: dict[str, int] = {}
        original = Widget.render_lines

        def counting(widget: Widget, crop: Any) -> Any:
            rendered[type(widget).__name__] = rendered.get(type(widget).__name__, 0) + crop.height
            return original(widget, crop)

        Widget.render_lines = counting  # type: ignore[method-assign]
        try:
            update = compositor.render_full_update()
        finally:
            Widget.render_lines = original  # type: ignore[method-assign]
        assert isinstance(update, ModelLayoutUpdate)
        assert [[_cells(s) for s in row] for row in update.strips] == [
            [_cells(s) for s in row.values()] for row in theirs
        ]
        assert "Screen" not in rendered  # wholly behind the header, the panes and the footer
        assert rendered.get("TurnView", 0) < conversation.region.height  # a turn's blank rows, not its blocks'


def _cells(strip: Any) -> list[tuple[str, Any]]:
    return [(segment.text, segment.style) for segment in strip if not segment.control]


async def test_turns_re_created_above_the_view_are_drawn_before_they_scroll_in(offline_options, tmp_path: Path) -> None:
    """The page that brings a re-created turn into view copies its cached lines; its first render (most of a
    page's frame) happened after the previous frame, off screen."""
    from tui.ui.widgets.blocks import FrozenMarkdown, UserPrompt

    session = AgentSession(offline_options())
    session.resume(synthetic_transcript(tmp_path / "long.jsonl", 40))
    app = resumed_app(session.options, None, session)
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        await wait_until(pilot, lambda: conversation.mounted_views)
        await _settled(pilot, conversation)
        first_mounted = conversation._first_mounted
        while conversation._first_mounted == first_mounted:
            await pilot.press("pageup")
            await _settled(pilot, conversation)
        above = [v for v in conversation.mounted_views if v.virtual_region.bottom <= conversation.scroll_y]
        assert above, "no re-created turn above the viewport"
        for view in above:
            for widget in [*view.query(FrozenMarkdown), *view.query(UserPrompt)]:
                assert widget._styles_cache._cache, f"{type(widget).__name__} of turn {view.record.number} not drawn"
