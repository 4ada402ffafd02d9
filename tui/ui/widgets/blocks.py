"""The blocks of a conversation turn: prompt, reply, thinking, tool call, marker line.

Only the tail of the reply that is streaming is a live Textual `Markdown` (`reply_stream.py`). Everything finished
is a cheap `Static` holding a Rich renderable, because each live `Markdown` makes every
later mount slower (measured: docs/benchmarks.md).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.app import ComposeResult, RenderResult
from textual.content import Content
from textual.widget import AwaitMount, Widget
from textual.widgets import Collapsible, Static

from tui.text.sanitize import one_line, visible
from tui.text.wording import plural

from .conversation_model import BlockRecord, ToolRecord
from .lines_widget import LinesWidget
from .one_line import OneLineRender
from .steady import SteadyTitle, steady_refresh, steady_update
from .tool_state import TOOL_STATE_STYLE, TOOL_STATE_WORD, format_seconds

#: longest result shown inside a tool block (the full text stays in the transcript)
RESULT_PREVIEW_CHARS = 4000
CODE_THEME = "monokai"
#: rendered Markdown kept across widgets (a turn scrolled out and back in is not parsed again)
RENDER_CACHE_SIZE = 256
_render_cache: OrderedDict[tuple[Any, ...], list[list[Segment]]] = OrderedDict()


def _cached_render(key: tuple[Any, ...]) -> list[list[Segment]] | None:
    lines = _render_cache.get(key)
    if lines is not None:
        _render_cache.move_to_end(key)
    return lines


def _store_render(key: tuple[Any, ...], lines: list[list[Segment]]) -> None:
    _render_cache[key] = lines
    while len(_render_cache) > RENDER_CACHE_SIZE:
        _render_cache.popitem(last=False)


class FrozenMarkdown(LinesWidget):
    """Finished Markdown drawn with Rich once per width and theme (Line API: no child widgets).

    A `Static(rich Markdown)` renders its Markdown twice per width (once to measure the height,
    once to draw) and a Textual `Markdown` is a widget per block; this renders once and keeps
    the lines, so a long reply costs one render however often the screen scrolls past it.
    """

    DEFAULT_CSS = "FrozenMarkdown { height: auto; }"

    def __init__(self, source: str, *, classes: str = "assistant-text frozen") -> None:
        super().__init__(classes=classes)
        self.source = visible(source)

    def _render_lines(self, width: int) -> list[list[Segment]]:
        key = (width, self.app.theme)
        if key != self._key:
            style = self.rich_style
            shared = (self.source, width, self.app.theme, style)
            lines = _cached_render(shared)
            if lines is None:
                from rich.markdown import Markdown as RichMarkdown  # ~50 ms with markdown-it: not at start-up

                console = self.app.console
                options = console.options.update(width=max(1, width), height=None, highlight=False)
                lines = console.render_lines(
                    RichMarkdown(self.source, code_theme=CODE_THEME), options, style=style, pad=True
                )
                _store_render(shared, lines)
            self._lines = lines
            self._strips.clear()
            self._key = key
            self._style = self.rich_style
        return self._lines


def frozen_markdown(text: str) -> FrozenMarkdown:
    """A finished reply (or part of one) as one cheap widget (code blocks still highlighted)."""
    return FrozenMarkdown(text)


class UserPrompt(Static):
    """What the user typed, echoed above the reply, with a chip for each file or resource it attaches."""

    def __init__(self, text: str) -> None:
        super().__init__(Text(visible(text)), classes="user-prompt")
        self.prompt_text = text

    def on_mount(self) -> None:
        from .chips import attachment_chips, chips_text

        chips = attachment_chips(self.app, self.prompt_text)
        if chips:
            self.update(Text("\n").join([Text(visible(self.prompt_text)), chips_text(chips)]))


class ThinkingBlock(Collapsible):
    """Extended thinking, dimmed; open while it streams, folded once finished."""

    def __init__(self, record: BlockRecord) -> None:
        self.record = record
        self._body = Static(Text(visible(record.text)), classes="thinking-text")
        # "-collapsed" up front: Collapsible adds it on mount, which would restyle the whole block again
        super().__init__(
            self._body,
            title=self._heading(),
            collapsed=record.done,
            classes="thinking -collapsed" if record.done else "thinking",
        )

    def _heading(self) -> str:
        words = len(self.record.text.split())
        return f"thinking · {plural(words, 'word')}" if self.record.done else "thinking…"

    def sync(self) -> None:
        """Redraw from the record (called at most once per frame while streaming)."""
        self._body.update(Text(visible(self.record.text)))
        self.title = self._heading()
        if self.record.done:
            self.collapsed = True


def tool_title(tool: ToolRecord) -> Content:
    """The block's title line: glyph, label, state, duration, diagnostics, an agent's summary or progress.

    Assembled from (text, style) pieces, not markup: the title is built on every mount and every change of
    its call (eight subagents at work change theirs many times a second), and parsing markup was most of it.
    The spans are the ones the markup `[$accent]●[/] [b]label[/b]  [$accent]running[/]…` gives.
    """
    glyph, colour = TOOL_STATE_STYLE.get(tool.state, ("?", "$text"))
    duration = format_seconds(tool.elapsed_s()) if tool.is_final else ""
    parts: list[tuple[str, str]] = [
        (glyph, colour),
        (" ", ""),
        (one_line(tool.display_label), "b"),
        ("  ", ""),
        (TOOL_STATE_WORD[tool.state], colour),
    ]
    if duration:
        parts.append((f" · {duration}", "dim"))
    if tool.diagnostics:
        tone = "$error" if "error" in tool.diagnostics else "$warning" if "warning" in tool.diagnostics else "dim"
        parts += [(" · ", "dim"), (one_line(tool.diagnostics), tone)]
    if tool.agent_summary:
        parts.append((f" · {one_line(tool.agent_summary)}", "dim"))
    elif tool.agent_path is not None and not tool.is_final:  # a running subagent: how far it got, on this line
        from .agent_activity import agent_progress

        parts.append((f" · {agent_progress(tool)}", "dim"))
    return Content.assemble(*[(text, style) for text, style in parts if text])


class ToolCallBlock(OneLineRender, Collapsible):
    """One tool call: a one-line title (label, state, duration) over its folded result.

    Built finished (title, classes and result set before mounting: each change after mount restyles
    or re-lays out the block). Folded and never opened, the block is one widget that draws its title
    line itself (class `-light`, styled as the title in app.tcss): eight Agent blocks mount within a
    frame's budget, and a re-created old turn costs one widget per tool call. The first time the
    block is focused, hovered, clicked or unfolded it becomes the Collapsible it stands for: its title
    widget is mounted (and takes the focus), and the result is built on the first unfold and redrawn
    only while unfolded. The fold the user chose is kept in the record, so a turn re-created later
    shows it the same way.
    """

    def __init__(self, tool: ToolRecord) -> None:
        self.tool = tool
        self._result: Static | None = None
        collapsed = not tool.unfolded
        #: drawing its own title line, no children yet (see the class docstring)
        self._light = collapsed
        classes = " ".join(
            [
                "tool-call",
                *(["-collapsed", "-light"] if collapsed else []),
                *(["-error"] if self._is_error() else []),
                *(["-agent"] if tool.name == "Agent" or tool.agent_path is not None else []),
            ]
        )
        # Collapsible.__init__ without its title: it builds a CollapsibleTitle (setting its label twice) that this
        # block replaces at once. The same state, set without watchers: nothing is mounted to follow it yet.
        Widget.__init__(self, classes=classes)
        self.can_focus = collapsed  # the title's place in the focus chain, until the title is mounted
        label = tool_title(tool)
        self._title = SteadyTitle(label=label, collapsed_symbol="▶", expanded_symbol="▼", collapsed=collapsed)
        self._contents_list: list[Widget] = []
        self.set_reactive(Collapsible.title, label)  # type: ignore[misc]  # a Content title, as before
        self.set_reactive(Collapsible.collapsed, collapsed)
        self._contents_mounted = False
        self._result_stale = False

    @property
    def title_line(self) -> Content:
        """What the title line shows: the fold's symbol, then the title."""
        title = self._title
        symbol = title.collapsed_symbol if self.collapsed else title.expanded_symbol
        return Content.assemble(symbol, " ", Content.from_text(self.title))

    def compose(self) -> ComposeResult:
        if self._light:
            return
        yield self._title
        if not self.collapsed:
            yield from self._contents_widget()

    def render(self) -> RenderResult:
        return self.title_line if self._light else super().render()

    def _open(self) -> AwaitMount | None:
        """Become the Collapsible: mount the title widget (with the title it missed) in place of the drawn line."""
        if not self._light:
            return None
        self._light = False
        self.can_focus = False
        self._title.label = self.title
        self._title.collapsed = self.collapsed
        self.remove_class("-light")
        return self.mount(self._title, before=0)

    async def on_focus(self) -> None:
        opened = self._open()
        if opened is not None:
            await opened
            self._title.focus()

    def on_enter(self) -> None:
        self._open()  # the title shows the hover, as it would have

    def on_click(self, event: events.Click) -> None:
        # the block itself under the mouse is its title line: drawn by it, or the title widget not laid out yet
        # (the mouse's arrival opened it); a click on the title widget stops there, one on the result bubbles here
        if event.widget is self:
            event.stop()
            self.collapsed = not self.collapsed

    def _contents_widget(self) -> list[Widget]:
        self._contents_mounted = True
        self._result = Static(self._result_renderable(), classes="tool-result")
        self._result_stale = False
        return [self.Contents(self._result)]

    def _watch_collapsed(self, collapsed: bool) -> None:
        self.tool.unfolded = not collapsed
        if not collapsed and self.is_mounted:
            self._open()
            if not self._contents_mounted:
                self.mount_all(self._contents_widget())
            elif self._result_stale and self._result is not None:
                self._result_stale = False
                steady_update(self._result, self._result_renderable())
        super()._watch_collapsed(collapsed)

    def _is_error(self) -> bool:
        return self.tool.is_error or self.tool.state == "error"

    def _result_text(self) -> str:
        text = self.tool.result_text
        if not text and self.tool.state == "running":
            text = "\n".join(self.tool.tail_lines())
        if len(text) > RESULT_PREVIEW_CHARS:
            text = text[:RESULT_PREVIEW_CHARS] + f"\n… {plural(len(text) - RESULT_PREVIEW_CHARS, 'more character')}"
        return visible(text) or "(no output)"

    def sync(self) -> None:
        """Redraw the title, and the result if it is unfolded (a folded one is redrawn when opened)."""
        if self._light:
            self.set_reactive(Collapsible.title, tool_title(self.tool))  # type: ignore[misc]
            steady_refresh(self)
        else:
            self.title = tool_title(self.tool)  # type: ignore[assignment]
        self.set_class(self._is_error(), "-error")
        if self._result is None:
            return
        if self.collapsed:
            self._result_stale = True
        else:
            steady_update(self._result, self._result_renderable())

    def _result_renderable(self) -> Text:
        if self.tool.agent_path is not None:  # an Agent call: the subagent's tool activity, then its report
            from .agent_activity import agent_activity

            return agent_activity(self.tool, self._result_text() if self.tool.result_text else "")
        return Text(self._result_text())


#: width of the label column of a report marker (tone "cost": /cost)
REPORT_LABEL_WIDTH = 14


def report_lines(text: str) -> Any:
    """A report: a heading line, then lines whose first REPORT_LABEL_WIDTH characters are a label.

    Drawn as two columns, so a long line wraps under its own column instead of under the label.
    """
    from rich.console import Group
    from rich.table import Table

    heading, *rest = text.split("\n")
    table = Table.grid(padding=(0, 1))
    table.add_column(width=REPORT_LABEL_WIDTH - 1, no_wrap=True, style="bold")
    table.add_column(ratio=1)
    for line in rest:
        table.add_row(Text(visible(line[:REPORT_LABEL_WIDTH].strip())), Text(visible(line[REPORT_LABEL_WIDTH:])))
    return Group(Text(visible(heading), style="bold"), table)


class MarkerLine(Static):
    """A one-line marker: a stop_reason transition, a retry, a loop stop, a notice (or a /cost report)."""

    def __init__(self, text: str, tone: str) -> None:
        super().__init__(report_lines(text) if tone == "cost" else Text(visible(text)), classes=f"marker -{tone}")
        self.text = text


def block_widget(record: BlockRecord) -> Widget:
    """The widget for a finished (or re-created) block."""
    if record.kind == "user":
        return UserPrompt(record.text)
    if record.kind == "text":
        return frozen_markdown(record.text)
    if record.kind == "thinking":
        return ThinkingBlock(record)
    if record.kind == "tool":
        assert record.tool is not None
        return ToolCallBlock(record.tool)
    if record.kind == "image":
        from .image_view import PromptImage  # Pillow and textual-image: only once an image is shown

        return PromptImage(record)
    return MarkerLine(record.text, record.tone)


def compose_blocks(records: list[BlockRecord]) -> ComposeResult:
    from .reply_stream import reply_widgets

    for record in records:
        if record.kind == "text":
            yield from reply_widgets(record.text)  # a long reply stays cheap to re-render
        else:
            yield block_widget(record)
