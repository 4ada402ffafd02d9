"""The row compositor's partial updates leave the terminal showing exactly what a full redraw would, and its
lean encoding of them draws the same cells as Textual's own."""

from __future__ import annotations

import re
from typing import Any

from rich.segment import ControlType, Segment
from rich.style import Style

from tui.ui.app import AgentApp
from textual._compositor import ChopsUpdate

from tui.ui.compositor import LeanChopsUpdate, RowCompositor
from tui.ui.widgets.blocks import ToolCallBlock

from .conftest import SIZE, wait_until

Cell = tuple[str, Style | None]


class Terminal:
    """A grid of cells that applies the segments of Textual's updates (cursor moves and text)."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells: list[list[Cell]] = [[(" ", None)] * width for _ in range(height)]

    def apply(self, segments: list[Segment]) -> None:
        x = y = 0
        for segment in segments:
            if segment.control:
                for code in segment.control:
                    if code[0] == ControlType.CURSOR_MOVE_TO:
                        x, y = code[1], code[2]
                continue
            for ch in segment.text:
                if ch == "\n":
                    x, y = 0, y + 1
                    continue
                if 0 <= y < self.height and 0 <= x < self.width:
                    self.cells[y][x] = (ch, segment.style)
                x += 1

    def rows(self) -> list[list[Cell]]:
        return self.cells


class AnsiGrid:
    """Cells from terminal bytes: cursor positioning, SGR state (as the codes set since the last reset), text."""

    TOKEN = re.compile(r"\x1b\[([0-9;]*)([Hm])|\x1b\]8;[^\x1b]*\x1b\\|([^\x1b\n]+)|\n")

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells: list[list[tuple[str, tuple[str, ...]]]] = [[(" ", ())] * width for _ in range(height)]
        self.x = self.y = 0
        self.codes: tuple[str, ...] = ()

    def apply(self, data: str) -> None:
        for match in self.TOKEN.finditer(data):
            params, final, text = match.group(1), match.group(2), match.group(3)
            if final == "H":
                row, col = (params or "1;1").split(";")
                self.y, self.x = int(row) - 1, int(col) - 1
            elif final == "m":
                parts = params.split(";") if params else ["0"]
                self.codes = tuple(parts[1:]) if parts[0] in ("0", "") else self.codes + tuple(parts)
            elif text is not None:
                for ch in text:
                    if 0 <= self.y < self.height and 0 <= self.x < self.width:
                        self.cells[self.y][self.x] = (ch, self.codes)
                    self.x += 1


def _look(style: Style | None) -> Any:
    if style is None:
        return None
    return (style.color, style.bgcolor, style.bold, style.dim, style.italic, style.underline, style.reverse,
            style.strike)


def full_render(app: AgentApp) -> list[list[Cell]]:
    grid = Terminal(*app.size)
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        grid.apply([Segment("", None, [(ControlType.CURSOR_MOVE_TO, 0, y)]), *strip])
    return grid.rows()


async def test_partial_updates_match_a_full_redraw(offline_options) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen._compositor, RowCompositor)
        terminal = Terminal(*SIZE)
        lean, plain = AnsiGrid(*SIZE), AnsiGrid(*SIZE)
        inner = app._display
        updates = [0]
        sizes = [0, 0]

        def display(screen: Any, renderable: Any) -> None:
            inner(screen, renderable)
            if renderable is not None and screen is app.screen:
                terminal.apply(list(app.console.render(renderable)))
                updates[0] += 1
                if isinstance(renderable, LeanChopsUpdate):
                    ours, theirs = renderable.render_segments(app.console), ChopsUpdate.render_segments(renderable, app.console)
                    lean.apply(ours)
                    plain.apply(theirs)
                    sizes[0] += len(ours)
                    sizes[1] += len(theirs)

        app._display = display
        app.screen.refresh()  # a full frame first: the terminal starts from what is on screen
        await pilot.pause()
        await pilot.press(*"explore this project with subagents", "enter")
        # mid-turn: the status line ticks, the tool panel redraws its rows, Agent titles change
        await wait_until(pilot, lambda: app.tool_panel.batches, timeout=30)
        await pilot.pause()
        assert terminal.rows() == full_render(app)
        await wait_until(pilot, lambda: not app.controller.busy, timeout=30)
        agent = next(b for b in app.query(ToolCallBlock) if b.tool.name == "Agent")
        agent.collapsed = False  # a block unfolding in the middle of the conversation
        await pilot.pause()
        await pilot.pause()
        assert updates[0] > 10
        assert terminal.rows() == full_render(app)
        assert lean.cells == plain.cells  # the lean bytes draw what Textual's own would
        assert sizes[0] < 0.8 * sizes[1], sizes


async def test_one_line_widgets_draw_what_textual_would(fake_session) -> None:
    """The status line and tool titles skip Textual's wrapping pipeline: the same text in the same colours."""
    import time

    from textual.visual import Visual

    from tui.ui.widgets.conversation_model import ToolRecord
    from tui.ui.widgets.one_line import one_line_strip

    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        app.status.set_state("streaming", "(call 2)")
        app.status.usage = {"input_tokens": 12_345, "output_tokens": 67}
        tool = ToolRecord("a", "Agent", label="Agent general-purpose: job 1", state="running", started_at=time.time(),
                          agent_path="main/general-purpose-1")
        block = ToolCallBlock(tool)
        await app.conversation.mount(block)
        await pilot.pause()
        for widget, content in ((app.status, app.status.render()), (block._title, block._title.visual)):
            width = widget.size.width
            ours = one_line_strip(widget, content, width)
            theirs = Visual.to_strips(widget, content, width, 1, widget.visual_style)[0]
            assert ours is not None and ours.cell_length == width  # padded to the width (Textual pads later)
            ours = ours.crop(0, theirs.cell_length)
            assert ours.text == theirs.text
            def looks(strip: Any) -> list[tuple[str, Any]]:  # each cell's character and look (selection offsets aside)
                return [(ch, _look(segment.style)) for segment in strip for ch in segment.text]

            assert looks(ours) == looks(theirs)
