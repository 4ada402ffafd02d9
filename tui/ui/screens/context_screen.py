"""/context: the context window as a coloured grid, with a table of what fills it beside it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.agent.context_map import context_map
from tui.sanitize import one_line
from tui.wording import middle_cut

from ..commands import slash_command

if TYPE_CHECKING:
    from ..app import AgentApp

COLUMNS, ROWS = 20, 10
#: a consumer's label is cut to this many characters, in the middle (a path keeps its file name)
LABEL_WIDTH = 48
COLOURS = {"system": "magenta", "memory": "cyan", "tool": "yellow", "turn": "blue"}
NAMES = {"system": "System prompt", "memory": "Memory files", "tool": "Tool definitions", "turn": "Messages"}


def k(tokens: int | None) -> str:
    if tokens is None:
        return "off"
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


def grid(figures: dict[str, Any]) -> Text:
    """One cell per window/200 tokens: each category in its colour, free space dim, the compaction point marked."""
    cells = COLUMNS * ROWS
    per_cell = max(figures["window"] / cells, 1)
    kinds: list[str] = []
    total = 0
    for part in figures["parts"]:  # cumulative: many small parts still add up to their cells
        total += part["tokens"]
        kinds += [part["kind"]] * max(math.ceil(total / per_cell) - len(kinds), 0)
    threshold = figures["compaction_threshold"]
    mark = int(threshold / per_cell) if threshold else None
    out = Text()
    for n in range(cells):
        if n < len(kinds):
            out.append("■ ", style=COLOURS.get(kinds[n], "white"))
        elif mark is not None and n >= mark:
            out.append("□ ", style="red dim")
        else:
            out.append("□ ", style="dim")
        if n % COLUMNS == COLUMNS - 1:
            out.append("\n")
    return out


def table(figures: dict[str, Any]) -> Group:
    summary = Table.grid(padding=(0, 2))
    summary.add_column()
    summary.add_column(justify="right")
    window = figures["window"]
    used = figures["used"]
    summary.add_row(Text("Used" + (" (estimated)" if figures["estimated"] else ""), style="bold"),
                    f"{k(used)} of {k(window)} ({used / window:.0%})")
    for kind, tokens in figures["categories"].items():
        summary.add_row(Text(f"■ {NAMES.get(kind, kind)}", style=COLOURS.get(kind, "")), k(tokens))
    summary.add_row(Text("□ Free", style="dim"), k(figures["free"]))
    summary.add_row(Text("□ Compaction starts at", style="red"), k(figures["compaction_threshold"]))
    share = figures["cached_share"]
    summary.add_row("Cached share of the last request", "–" if share is None else f"{share:.0%}")
    top = Table("Top consumers", "tokens", box=None, padding=(0, 1), header_style="bold")
    for part in figures["top"]:
        top.add_row(middle_cut(one_line(part["label"]), LABEL_WIDTH), k(part["tokens"]))
    results = Table("Biggest tool results", "tokens", box=None, padding=(0, 1), header_style="bold")
    for part in figures["tool_results"]:
        results.add_row(middle_cut(one_line(part["label"]), LABEL_WIDTH), k(part["tokens"]))
    drop = figures["compaction_would_drop"]
    notes = Text()
    notes.append("Cache breakpoints: ", style="bold")
    notes.append(", ".join(figures["cache_breakpoints"]) + "\n")
    notes.append("Compaction would summarise ", style="bold")
    notes.append(f"the first {drop['messages']} messages ({k(drop['tokens'])} tokens)" if drop["messages"]
                 else "nothing yet (too few messages)")
    return Group(summary, Text(""), top, Text(""), results, Text(""), notes)


class ContextScreen(ModalScreen[None]):
    """The map; Esc closes."""

    BINDINGS = [Binding("escape", "dismiss_map", "Close")]
    DEFAULT_CSS = """
    ContextScreen { align: center middle; }
    #context-box { width: 95%; height: 85%; border: round $accent; background: $surface; padding: 0 1; }
    #context-grid { width: 44; }
    #context-table { width: 1fr; }
    """

    def __init__(self, figures: dict[str, Any]) -> None:
        super().__init__()
        self.figures = figures

    def compose(self) -> ComposeResult:
        with Vertical(id="context-box"):
            yield Static(Text("Context window · Esc closes", style="bold"), classes="panel-title")
            with Horizontal():
                yield Static(grid(self.figures), id="context-grid")
                yield Static(table(self.figures), id="context-table")

    def action_dismiss_map(self) -> None:
        self.dismiss(None)


@slash_command("context", "Show what fills the context window")
async def _context_command(app: AgentApp, args: str) -> None:
    import asyncio

    figures = await asyncio.to_thread(context_map, app.session)
    app.push_screen(ContextScreen(figures))
