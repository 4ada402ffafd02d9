"""The live tool-activity panel: one row per tool_use, grouped by batch, with a timeline.

Each batch gets a shared time axis; every call is a bar over it, so calls that ran in
parallel show as overlapping bars and serial calls as a staircase. A 0.1 s timer
redraws elapsed times only while something is queued or running.

Redraws are cheap because they are frequent (each tool event, each tick, eight subagents at
once): the requests of one burst of events make one redraw, only the batches whose rows changed
are drawn again (a finished batch never is), only the rows that differ are repainted, and a redraw
that keeps the panel's height lays nothing out again (`PanelBody`).
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import Static

from tui.text.sanitize import one_line

from .panel_lines import Heading, PanelBody, Rows
from .tool_state import TOOL_STATE_STYLE, format_seconds

if TYPE_CHECKING:
    from .conversation_model import ToolRecord

#: batches kept in the panel (older ones stay in the conversation)
MAX_BATCHES = 8
TIMELINE_WIDTH = 14
#: Rich colour per tool state (the panel is drawn with Rich, so no $variables here)
STATE_COLOURS = {
    "preparing": "#808080",
    "queued": "#808080",
    "waiting": "yellow",
    "running": "cyan",
    "done": "green",
    "error": "red",
    "denied": "yellow",
    "interrupted": "yellow",
}


class Batch:
    """Tool calls dispatched together from one response (a plain class: a dataclass cost ~0.3 ms at import)."""

    __slots__ = ("key", "parallel", "tools")

    def __init__(self, key: tuple[int, int, str], parallel: bool, tools: list[ToolRecord] | None = None) -> None:
        self.key = key  # (turn, batch, loop path): a subagent's batches are its own
        self.parallel = parallel
        self.tools: list[ToolRecord] = [] if tools is None else tools


def timeline_bar(tool: ToolRecord, t0: float, t1: float, width: int = TIMELINE_WIDTH) -> Text:
    """A bar for one call over the batch's shared time axis [t0, t1]."""
    span = max(t1 - t0, 1e-6)
    colour = STATE_COLOURS.get(tool.state, "white")
    bar = Text("▕", style="#5f5f5f")
    if tool.started_at is None:
        bar.append("·" * width, style="#5f5f5f")
    else:
        end = tool.finished_at if tool.finished_at is not None else t1
        first = min(width - 1, int((tool.started_at - t0) / span * width))
        last = max(first + 1, min(width, round((end - t0) / span * width)))
        bar.append(" " * first)
        bar.append("█" * (last - first), style=colour)
        bar.append(" " * (width - last))
    bar.append("▏", style="#5f5f5f")
    return bar


def timeline_width_for(panel_width: int) -> int:
    """Timeline columns that still leave room for a readable label in a panel this wide."""
    return max(6, min(TIMELINE_WIDTH, (panel_width - 14) // 2)) if panel_width else TIMELINE_WIDTH


def render_batch(batch: Batch, now: float, timeline_width: int = TIMELINE_WIDTH) -> RenderableType:
    starts = [t.started_at for t in batch.tools if t.started_at is not None]
    ends = [t.finished_at if t.finished_at is not None else now for t in batch.tools if t.started_at is not None]
    t0 = min(starts) if starts else now
    t1 = max(ends) if ends else now
    n = len(batch.tools)
    how = "parallel" if batch.parallel and n > 1 else "serial" if n > 1 else ""
    head = Text(f"batch {batch.key[1]}", style="bold")
    name = Text(one_line(batch.key[2].partition("/")[2]), style="bold magenta")
    if batch.key[2] != "main":
        head.append(" · ", style="bold magenta")
    tail = Text(f" · {n} {how or 'tool'}" + ("s" if n != 1 and not how else ""), style="#9e9e9e")
    if starts:
        tail.append(f" · {format_seconds(t1 - t0)}", style="#9e9e9e")
    table = Rows((1, None, 7, timeline_width + 2), ("left", "left", "right", "left"))  # a cheap Table.grid
    for tool in batch.tools:
        glyph, _ = TOOL_STATE_STYLE.get(tool.state, ("?", ""))
        colour = STATE_COLOURS.get(tool.state, "white")
        elapsed = tool.elapsed_s(now)
        timing = format_seconds(elapsed) if elapsed is not None else tool.state
        if tool.state == "waiting":
            timing = "approve?"
        table.add_row(
            Text(glyph, style=colour),
            Text(one_line(tool.display_label)),
            Text(timing, style=colour if not tool.is_final else "#9e9e9e"),
            timeline_bar(tool, t0, t1, timeline_width),
        )
        for hook in tool.hooks:  # the hooks that wrapped this call, under it
            from tui.ui.hook_view import hook_row

            table.add_row("", *hook_row(hook), "")
        if tool.state == "running" and (tool.name == "Bash" or tool.name.startswith("mcp__")):  # MCP: progress
            for line in tool.tail_lines():
                table.add_row("", Text("  " + one_line(line), style="#808080"), "", "")
    blocked = [sandbox_line(b) for tool in batch.tools for b in tool.sandbox_blocked]
    return Group(Heading(head, name, tail), table, *blocked)  # one line: a long agent name is cut, not the figures


def batch_signature(batch: Batch, now: float) -> Hashable:
    """Everything `render_batch` draws from: the same signature draws the same rows."""
    timed = False
    tools = []
    for tool in batch.tools:
        running = tool.started_at is not None and (tool.finished_at is None or tool.duration_ms is None)
        timed = timed or running
        tail = tuple(tool.tail_lines()) if tool.state == "running" else ()
        hooks = tuple((h.hook_event, h.state, h.decision, h.duration_ms) for h in tool.hooks)
        tools.append(
            (
                tool.state,
                tool.display_label,
                tool.started_at,
                tool.finished_at,
                tool.duration_ms,
                tail,
                hooks,
                tool.sandbox_blocked,
            )
        )
    return (batch.parallel, tuple(tools), now if timed else None)


class _BatchPiece:
    """A batch and its blank line, drawn only if the panel body has no lines for its signature yet."""

    def __init__(self, batch: Batch, now: float, timeline_width: int) -> None:
        self.args = (batch, now, timeline_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[RenderableType]:
        yield render_batch(*self.args)
        yield Text("")


def sandbox_line(blocked: str) -> Text:
    """One thing the sandbox refused, with the command that would allow it where there is one."""
    from tui.sandbox.actions import allow_target, short_form

    line = Text.assemble(("⛨ sandbox blocked ", "yellow"), (one_line(short_form(blocked)), "#b0b0b0"))
    if target := allow_target(blocked):
        line.append(f" → /sandbox allow {one_line(target)}", style="cyan")
    return line


TODO_GLYPHS = {"completed": ("✔", "green"), "in_progress": ("▶", "cyan"), "pending": ("○", "#9e9e9e")}


def render_todos(todos: list[dict]) -> RenderableType:
    """The agent's todo list: one line per item, the one in progress by its active form."""
    done = sum(1 for t in todos if t.get("status") == "completed")
    lines = [Text.assemble(("todos", "bold"), (f" · {done}/{len(todos)} done", "#9e9e9e"))]
    for todo in todos:
        status = str(todo.get("status", "pending"))
        glyph, colour = TODO_GLYPHS.get(status, ("?", "white"))
        label = one_line(str(todo.get("activeForm") if status == "in_progress" else todo.get("content", "")))
        style = "strike grey50" if status == "completed" else "bold" if status == "in_progress" else ""
        line = Text.assemble((glyph + " ", colour), (label, style))
        line.no_wrap, line.overflow = True, "ellipsis"
        lines.append(line)
    return Group(*lines)


#: shown until the first tool call (set at construction: no update and re-layout before the first frame)
EMPTY_TEXT = Text(
    "No tool calls yet.\nRead-only tools run in parallel; each batch shows here with a timeline of how the calls "
    "overlapped.",
    style="#9e9e9e",
)


class ToolPanel(Vertical):
    """Right-hand panel listing recent tool calls and how they overlapped."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.batches: list[Batch] = []
        self.todos: list[dict] = []
        self._timer: Timer | None = None
        self._redraw_pending = False
        self._body = PanelBody(EMPTY_TEXT, id="tool-panel-body")
        self.clock = time.time  # tests freeze it for deterministic snapshots

    def compose(self) -> ComposeResult:
        yield Static("Tool activity", classes="panel-title")
        with VerticalScroll():
            yield self._body

    def on_resize(self) -> None:
        if self.batches:  # only the batches' timelines depend on the width
            self.redraw()

    def add_tool(self, tool: ToolRecord, turn: int, loop_path: str = "main") -> None:
        """Register a queued tool under its batch (creating the batch if new); agents' batches interleave."""
        key = (turn, tool.batch, loop_path)
        batch = next((b for b in reversed(self.batches) if b.key == key), None)
        if batch is None:
            batch = Batch(key, tool.parallel)
            self.batches.append(batch)
            del self.batches[:-MAX_BATCHES]
        if tool not in batch.tools:
            batch.tools.append(tool)
        self.redraw()

    def clear(self) -> None:
        self.batches.clear()
        self.todos = []
        self.redraw()

    def set_todos(self, todos: list[dict]) -> None:
        """Show the agent's todo list (TodoWrite) above the batches."""
        self.todos = todos
        self.redraw()

    @property
    def active(self) -> bool:
        return any(not t.is_final for b in self.batches for t in b.tools)

    def redraw(self) -> None:
        """Re-render all rows once the current burst of events is handled (one redraw for all of them)."""
        if not self._redraw_pending:
            self._redraw_pending = True
            self.call_later(self._draw)

    def _draw(self) -> None:
        """Show the rows (only batches that changed are drawn again); start or stop the 0.1 s clock as needed."""
        self._redraw_pending = False
        now = self.clock()
        pieces: list[tuple[Hashable | None, RenderableType]] = []
        if self.todos:
            pieces.append((("todos", repr(self.todos)), Group(render_todos(self.todos), Text(""))))
        if not self.batches and not pieces:
            pieces.append((("empty",), EMPTY_TEXT))
        width = timeline_width_for(self.size.width - 2)
        for batch in reversed(self.batches):
            pieces.append(((batch.key, width, batch_signature(batch, now)), _BatchPiece(batch, now, width)))
        self._body.show(pieces)
        if self.active and self._timer is None:
            self._timer = self.set_interval(0.1, self._draw)
        elif not self.active and self._timer is not None:
            self._timer.stop()
            self._timer = None
