"""/context: the context window as a coloured grid, with a table of what fills it beside it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.text.sanitize import one_line, visible
from tui.text.wording import middle_cut, plural

from ..commands import slash_command
from ..widgets.dialog_box import DialogBox

if TYPE_CHECKING:
    from ..app import AgentApp

COLUMNS, ROWS = 20, 10
#: messages of the last compaction listed beside its summary
DROPPED_SHOWN = 30
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
    summary.add_row(
        Text("Used" + (" (estimated)" if figures["estimated"] else ""), style="bold"),
        f"{k(used)} of {k(window)} ({used / window:.0%})",
    )
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
    notes = Text()
    notes.append("Cache breakpoints: ", style="bold")
    notes.append(", ".join(figures["cache_breakpoints"]) + "\n")
    notes.append(f"Compaction ({figures.get('compaction', 'auto')}): ", style="bold")
    plan = figures.get("compaction_plan") or {}
    if plan.get("possible"):
        gone, kept = plan["summarised"], plan["kept"]
        notes.append(
            f"would summarise {gone['turns']} ({plural(gone['messages'], 'message')}, ~{k(gone['tokens'])} "
            f"tokens) and keep {kept['turns']} ({plural(kept['messages'], 'message')}, ~{k(kept['tokens'])}) "
            "verbatim"
        )
    else:
        notes.append("nothing to summarise yet (too few messages)")
    for pin in figures.get("pinned") or ():
        notes.append("\nPinned: ", style="bold")
        notes.append(one_line(pin)[:90])
    for memory in figures.get("memory_files") or ():
        notes.append("\nMemory: ", style="bold")
        notes.append(f"{middle_cut(one_line(memory['path']), LABEL_WIDTH)} ~{k(memory['tokens'])} · {memory['sent']}")
    return Group(summary, Text(""), top, Text(""), results, Text(""), notes)


def last_compaction(figures: dict[str, Any]) -> Group | Text:
    """The latest compaction: what it dropped, one line per message, beside the summary that replaced it."""
    last = figures.get("last_compaction")
    if not last:
        return Text("No compaction yet in this conversation.", style="dim")
    plan = last.get("plan") or {}
    gone = plan.get("summarised") or {}
    heading = Text(
        "Last compaction" + (f" (of {last['compactions']})" if last["compactions"] > 1 else "") + ": ", style="bold"
    )
    heading.append(
        f"{gone.get('turns', '?')} ({plural(len(last['dropped']), 'message')}, ~{k(gone.get('tokens', 0))} tokens) "
        f"became a ~{k(last['summary_tokens'])}-token summary"
        + (f", focused on {one_line(last['focus'])}" if last.get("focus") else "")
        + ". /rewind returns to a prompt before it."
    )
    dropped = Text()
    for entry in last["dropped"][:DROPPED_SHOWN]:
        dropped.append(f"#{entry['index'] + 1} {entry['role']:<9} ", style="dim")
        dropped.append(one_line(str(entry["text"]))[:60] + "\n")
    if len(last["dropped"]) > DROPPED_SHOWN:
        dropped.append(f"… {len(last['dropped']) - DROPPED_SHOWN} more", style="dim")
    side = Table(box=None, padding=(0, 2), expand=True, header_style="bold")
    side.add_column("Dropped", ratio=1, no_wrap=True, overflow="ellipsis")
    side.add_column("Summary that replaced it", ratio=1)
    side.add_row(dropped, Text(visible(last["summary"])))
    return Group(heading, Text(""), side)


class ContextScreen(ModalScreen[None]):
    """The map; Esc closes."""

    BINDINGS = [Binding("escape", "dismiss_map", "Close")]
    DEFAULT_CSS = """
    ContextScreen { align: center middle; }
    #context-box { width: 95%; height: 85%; border: round $accent; background: $surface; padding: 0 1; }
    #context-top { height: auto; }
    #context-grid { width: 44; }
    #context-table { width: 1fr; }
    #context-compaction { margin-top: 1; }
    """

    def __init__(self, figures: dict[str, Any]) -> None:
        super().__init__()
        self.figures = figures

    def compose(self) -> ComposeResult:
        with DialogBox(id="context-box"):
            yield Static(
                Text("Context window · ↑↓ scroll · Esc closes", style="bold"), classes="panel-title dialog-head"
            )
            with VerticalScroll(id="context-body", classes="dialog-body -fill"):
                with Horizontal(id="context-top"):
                    yield Static(grid(self.figures), id="context-grid")
                    yield Static(table(self.figures), id="context-table")
                yield Static(last_compaction(self.figures), id="context-compaction")

    def action_dismiss_map(self) -> None:
        self.dismiss(None)


@slash_command("context", "Show what fills the context window")
async def _context_command(app: AgentApp, args: str) -> None:
    import asyncio

    figures = await asyncio.to_thread(app.session.context_map)
    app.push_screen(ContextScreen(figures))
