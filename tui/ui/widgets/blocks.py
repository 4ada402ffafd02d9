"""The blocks of a conversation turn: prompt, reply, thinking, tool call, marker line.

Only the tail of the reply that is streaming is a live Textual `Markdown` (`reply_stream.py`). Everything finished
is a cheap `Static` holding a Rich renderable, because each live `Markdown` makes every
later mount slower (feasibility §3).
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from .conversation_model import BlockRecord, ToolRecord

#: glyph and CSS-variable colour per tool state, shared with the tool panel
TOOL_STATE_STYLE: dict[str, tuple[str, str]] = {
    "preparing": ("◌", "$text-muted"),
    "queued": ("○", "$text-muted"),
    "waiting": ("◐", "$warning"),
    "running": ("●", "$accent"),
    "done": ("✔", "$success"),
    "error": ("✘", "$error"),
    "denied": ("⊘", "$warning"),
    "interrupted": ("■", "$warning"),
}
TOOL_STATE_WORD = {
    "preparing": "preparing",
    "queued": "queued",
    "waiting": "waiting for approval",
    "running": "running",
    "done": "done",
    "error": "error",
    "denied": "denied",
    "interrupted": "interrupted",
}
#: longest result shown inside a tool block (the full text stays in the transcript)
RESULT_PREVIEW_CHARS = 4000
CODE_THEME = "monokai"


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"


class FrozenMarkdown(Widget):
    """Finished Markdown drawn with Rich once per width and theme (Line API: no child widgets).

    A `Static(rich Markdown)` renders its Markdown twice per width (once to measure the height,
    once to draw) and a Textual `Markdown` is a widget per block; this renders once and keeps
    the lines, so a long reply costs one render however often the screen scrolls past it.
    """

    DEFAULT_CSS = "FrozenMarkdown { height: auto; }"

    def __init__(self, source: str, *, classes: str = "assistant-text frozen") -> None:
        super().__init__(classes=classes)
        self.source = source
        self._key: tuple[int, str] | None = None
        self._style: Any = None
        self._lines: list[list[Segment]] = []
        self._strips: dict[int, Strip] = {}

    def _render_lines(self, width: int) -> list[list[Segment]]:
        key = (width, self.app.theme)
        if key != self._key:
            from rich.markdown import Markdown as RichMarkdown  # ~50 ms with markdown-it: not at start-up

            console = self.app.console
            options = console.options.update(width=max(1, width), height=None, highlight=False)
            self._lines = console.render_lines(RichMarkdown(self.source, code_theme=CODE_THEME), options,
                                               style=self.rich_style, pad=True)
            self._strips.clear()
            self._key = key
            self._style = self.rich_style
        return self._lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._render_lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._render_lines(width)
        strip = self._strips.get(y)
        if strip is None:
            strip = Strip(lines[y], width) if 0 <= y < len(lines) else Strip.blank(width)
            self._strips[y] = strip
        return strip

    def notify_style_update(self) -> None:
        super().notify_style_update()
        # colours changed: draw again (a class toggled elsewhere, e.g. the app's `-busy` at the end of
        # every turn, restyles every widget without changing this one's colours: keep the lines then)
        if self._key is not None and self.rich_style != self._style:
            self._key = None


def frozen_markdown(text: str) -> FrozenMarkdown:
    """A finished reply (or part of one) as one cheap widget (code blocks still highlighted)."""
    return FrozenMarkdown(text)


class UserPrompt(Static):
    """What the user typed, echoed above the reply."""

    def __init__(self, text: str) -> None:
        super().__init__(Text(text), classes="user-prompt")


class ThinkingBlock(Collapsible):
    """Extended thinking, dimmed; open while it streams, folded once finished."""

    def __init__(self, record: BlockRecord) -> None:
        self.record = record
        self._body = Static(Text(record.text), classes="thinking-text")
        super().__init__(
            self._body, title=self._heading(), collapsed=record.done, classes="thinking"
        )

    def _heading(self) -> str:
        words = len(self.record.text.split())
        return f"thinking · {words} words" if self.record.done else "thinking…"

    def sync(self) -> None:
        """Redraw from the record (called at most once per frame while streaming)."""
        self._body.update(Text(self.record.text))
        self.title = self._heading()
        if self.record.done:
            self.collapsed = True


def tool_title(tool: ToolRecord) -> Content:
    glyph, colour = TOOL_STATE_STYLE.get(tool.state, ("?", "$text"))
    duration = format_seconds(tool.elapsed_s()) if tool.is_final else ""
    parts = [
        Content.from_markup(f"[{colour}]{glyph}[/] "),
        Content.from_markup("[b]$label[/b]", label=tool.display_label),
        Content.from_markup(f"  [{colour}]$state[/]", state=TOOL_STATE_WORD[tool.state]),
    ]
    if duration:
        parts.append(Content.from_markup("[dim] · $d[/dim]", d=duration))
    return Content.assemble(*parts)


class ToolCallBlock(Collapsible):
    """One tool call: a one-line title (label, state, duration) over its folded result."""

    def __init__(self, tool: ToolRecord) -> None:
        self.tool = tool
        self._result = Static("", classes="tool-result")
        super().__init__(self._result, title="", collapsed=True, classes="tool-call")

    def on_mount(self) -> None:
        self.sync()

    def sync(self) -> None:
        """Redraw the title and result from the record."""
        self.title = tool_title(self.tool)  # type: ignore[assignment]
        self.set_class(self.tool.is_error or self.tool.state == "error", "-error")
        text = self.tool.result_text
        if not text and self.tool.state == "running":
            text = "\n".join(self.tool.tail_lines())
        if len(text) > RESULT_PREVIEW_CHARS:
            text = text[:RESULT_PREVIEW_CHARS] + f"\n… {len(text) - RESULT_PREVIEW_CHARS} more characters"
        self._result.update(Text(text or "(no output)"))


class MarkerLine(Static):
    """A one-line marker: a stop_reason transition, a retry, a loop stop, a notice."""

    def __init__(self, text: str, tone: str) -> None:
        super().__init__(Text(text), classes=f"marker -{tone}")


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
    return MarkerLine(record.text, record.tone)


def compose_blocks(records: list[BlockRecord]) -> ComposeResult:
    from .reply_stream import frozen_chunks

    for record in records:
        if record.kind == "text":
            yield from frozen_chunks(record.text)  # a long reply stays cheap to re-render
        else:
            yield block_widget(record)
