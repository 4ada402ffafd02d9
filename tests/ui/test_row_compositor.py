"""The row compositor's partial updates leave the terminal showing exactly what a full redraw would, and its
lean encoding of them draws the same cells as Textual's own."""

from __future__ import annotations

import re
from typing import Any

from rich.segment import ControlType, Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, LayoutUpdate

from tui.ui.app import AgentApp
from tui.ui.compositor import RowCompositor
from tui.ui.terminal_model import DiffChopsUpdate, ModelLayoutUpdate
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
    """Cells from terminal bytes: cursor positioning and steps, SGR state (attributes, foreground, background),
    text, erased blanks, and the scroll region with its scrolls (the rows a scroll brings in are blank in the current
    background, as a terminal's are)."""

    TOKEN = re.compile(r"\x1b\[([0-9;]*)([HmrSTXC])|\x1b\]8;[^\x1b]*\x1b\\|([^\x1b\n]+)|\n")

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells: list[list[Any]] = [[(" ", frozenset(), "", "")] * width for _ in range(height)]
        self.x = self.y = 0
        self.look: tuple[frozenset[str], str, str] = (frozenset(), "", "")
        self.top, self.bottom = 0, height - 1
        self.scrolls = 0

    @staticmethod
    def sgr(look: tuple[frozenset[str], str, str], parts: list[str]) -> tuple[frozenset[str], str, str]:
        attrs, fg, bg = look
        i = 0
        while i < len(parts):
            p = parts[i] or "0"
            if p in ("38", "48"):
                n = 5 if parts[i + 1] == "2" else 3
                colour = ";".join(parts[i : i + n])
                fg, bg = (colour, bg) if p == "38" else (fg, colour)
                i += n
                continue
            code = int(p)
            if code == 0:
                attrs, fg, bg = frozenset(), "", ""
            elif 30 <= code <= 37 or 90 <= code <= 97:
                fg = p
            elif 40 <= code <= 47 or 100 <= code <= 107:
                bg = p
            elif code == 39:
                fg = ""
            elif code == 49:
                bg = ""
            else:
                attrs = attrs | {p}
            i += 1
        return attrs, fg, bg

    @staticmethod
    def seen(ch: str, look: tuple[frozenset[str], str, str]) -> Any:
        """What a cell shows: a blank's foreground and its bold, dim or italic do not show."""
        attrs, fg, bg = look
        if ch == " ":
            return (ch, attrs - {"1", "2", "3"}, "", bg)
        return (ch, attrs, fg, bg)

    def apply(self, data: str) -> None:
        for match in self.TOKEN.finditer(data):
            params, final, text = match.group(1), match.group(2), match.group(3)
            if final == "r":
                top, _, bottom = (params or f"1;{self.height}").partition(";")
                self.top, self.bottom = int(top) - 1, int(bottom or self.height) - 1
                self.x = self.y = 0
            elif final in ("S", "T"):
                n = int(params or 1)
                band = self.cells[self.top : self.bottom + 1]
                blank = [
                    [(" ", frozenset(), "", self.look[2])] * self.width for _ in range(n)
                ]  # the current background
                band = band[n:] + blank if final == "S" else blank + band[:-n]
                self.cells[self.top : self.bottom + 1] = band
                self.scrolls += 1
            elif final == "H":
                row, col = (params or "1;1").split(";")
                self.y, self.x = int(row) - 1, int(col) - 1
            elif final == "m":
                self.look = self.sgr(self.look, params.split(";") if params else ["0"])
            elif final == "X":  # erased: blanks in the background colour alone, the cursor stays
                for x in range(self.x, min(self.width, self.x + int(params or 1))):
                    self.cells[self.y][x] = (" ", frozenset(), "", self.look[2])
            elif final == "C":
                self.x += int(params or 1)
            elif text is not None:
                for ch in text:
                    if 0 <= self.y < self.height and 0 <= self.x < self.width:
                        self.cells[self.y][self.x] = self.seen(ch, self.look)
                    self.x += 1


def _look(style: Style | None) -> Any:
    if style is None:
        return None
    return (
        style.color,
        style.bgcolor,
        style.bold,
        style.dim,
        style.italic,
        style.underline,
        style.reverse,
        style.strike,
    )


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
        ours, plain = AnsiGrid(*SIZE), AnsiGrid(*SIZE)
        inner = app._display
        updates = [0]
        sizes = [0, 0]

        def display(screen: Any, renderable: Any) -> None:
            inner(screen, renderable)
            if renderable is not None and screen is app.screen:
                terminal.apply(list(app.console.render(renderable)))
                updates[0] += 1
                assert isinstance(renderable, (DiffChopsUpdate, ModelLayoutUpdate))
                kind = ChopsUpdate if isinstance(renderable, ChopsUpdate) else LayoutUpdate
                data, theirs = renderable.render_segments(app.console), kind.render_segments(renderable, app.console)
                ours.apply(data)
                plain.apply(theirs)
                if kind is ChopsUpdate:
                    sizes[0] += len(data)
                    sizes[1] += len(theirs)

        app._display = display
        app.screen.refresh()  # a full frame first: the terminal starts from what is on screen
        await pilot.pause()
        await pilot.press(*"explore this project with subagents", "enter")
        # mid-turn: the status line ticks, the tool panel redraws its rows, Agent titles change
        await wait_until(pilot, lambda: app.tool_panel.batches, timeout=30)
        await pilot.pause()
        assert terminal.rows() == full_render(app)
        assert ours.cells == plain.cells
        await wait_until(pilot, lambda: not app.controller.busy, timeout=30)
        agent = next(b for b in app.query(ToolCallBlock) if b.tool.name == "Agent")
        agent.collapsed = False  # a block unfolding in the middle of the conversation
        await pilot.pause()
        await pilot.pause()
        app.conversation.scroll_end(animate=False)  # the conversation scrolls: bands move on the terminal
        await pilot.pause()
        app.conversation.scroll_home(animate=False)
        await pilot.pause()
        assert updates[0] > 10
        assert terminal.rows() == full_render(app)
        assert ours.cells == plain.cells  # the terminal shows what Textual's own bytes would leave there
        assert sizes[0] < 0.5 * sizes[1], sizes


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
        tool = ToolRecord(
            "a",
            "Agent",
            label="Agent general-purpose: job 1",
            state="running",
            started_at=time.time(),
            agent_path="main/general-purpose-1",
        )
        block = ToolCallBlock(tool)
        await app.conversation.mount(block)
        await pilot.pause()
        assert not block.children  # folded: the block draws its title line itself
        for widget, content in ((app.status, app.status.render()), (block, block.title_line)):
            width = widget.size.width
            ours = one_line_strip(widget, content, width)
            theirs = Visual.to_strips(widget, content, width, 1, widget.visual_style)[0]
            assert ours is not None and ours.cell_length == width  # padded to the width (Textual pads later)
            ours = ours.crop(0, theirs.cell_length)
            assert ours.text == theirs.text

            def looks(strip: Any) -> list[tuple[str, Any]]:  # each cell's character and look (selection offsets aside)
                return [(ch, _look(segment.style)) for segment in strip for ch in segment.text]

            assert looks(ours) == looks(theirs)


async def test_a_streamed_reply_scrolls_the_terminal_and_leaves_what_textual_would(fake_session) -> None:
    """A reply streaming at the bottom moves the conversation up: the terminal's scroll region moves the rows
    already drawn, the new ones are written, and the cells end as Textual's own bytes would leave them."""
    import threading

    from .test_streaming import long_reply

    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        ours, plain = AnsiGrid(*SIZE), AnsiGrid(*SIZE)
        inner = app._display
        sizes = [0, 0]

        def display(screen: Any, renderable: Any) -> None:
            inner(screen, renderable)
            if renderable is not None and screen is app.screen:
                kind = ChopsUpdate if isinstance(renderable, ChopsUpdate) else LayoutUpdate
                data, theirs = renderable.render_segments(app.console), kind.render_segments(renderable, app.console)
                ours.apply(data)
                plain.apply(theirs)
                sizes[0] += len(data)
                sizes[1] += len(theirs)

        app._display = display
        app.screen.refresh()
        await pilot.pause()
        text = long_reply(12)
        go = threading.Event()

        def stream() -> None:  # paced: a few words a frame, as a model streams
            import time

            from tui.agent import events as ev

            go.wait()
            pub = fake_session.bus.publish
            pub(ev.TurnStarted(turn_id=1, prompt="write a lot"))
            pub(ev.BlockStarted(iteration=1, index=0, block_type="text"))
            for i in range(0, len(text), 40):
                pub(ev.BlockDelta(iteration=1, index=0, delta_type="text_delta", text=text[i : i + 40]))
                time.sleep(0.01)
            pub(ev.BlockFinished(iteration=1, index=0, block={"type": "text", "text": text}))
            pub(
                ev.TurnFinished(
                    turn_id=1,
                    stop_reason="end_turn",
                    is_error=False,
                    num_iterations=1,
                    duration_ms=10,
                    usage={"output_tokens": 5000},
                    cost_usd=0.0,
                    session_usage={},
                    session_cost_usd=0.0,
                )
            )

        thread = threading.Thread(target=stream)
        thread.start()
        go.set()
        while thread.is_alive() or app.controller.busy:  # frames while the reply streams
            await pilot.pause(0.01)
        thread.join()
        await pilot.pause()
        await pilot.pause()
        assert ours.scrolls > 0  # the terminal scrolled the conversation rather than having it redrawn
        assert ours.cells == plain.cells
        assert sizes[0] < 0.5 * sizes[1], sizes
        before = sizes[0]
        app.screen.refresh()  # a full update while the terminal's rows are all known: nothing to write
        await pilot.pause()
        assert sizes[0] - before < 100
        assert ours.cells == plain.cells


async def test_the_terminal_model_forgets_what_it_knew_when_something_else_draws(fake_session) -> None:
    """After a suspend (an external editor, Ctrl+Z) or an update it does not follow (a modal screen), every
    row is written again rather than diffed against what the terminal may no longer show."""
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        model = app._terminal_model
        app.screen.refresh()
        await pilot.pause()
        update = app.screen._compositor.render_update(full=True)
        update.render_segments(app.console)
        assert model.rows and None not in model.rows
        app.app_suspend_signal.publish(app)
        assert all(row is None for row in model.rows)
        update = app.screen._compositor.render_update(full=True)
        update.render_segments(app.console)
        assert None not in model.rows
        app._display(app.screen, ChopsUpdate([], [(0, 0, 1)], [[]]))  # an update the model does not follow
        assert all(row is None for row in model.rows)
