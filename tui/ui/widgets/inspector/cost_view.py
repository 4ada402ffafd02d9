"""The inspector's Cost view: one call's tokens and USD by part and token kind, its cache break, and for a
compaction what it dropped beside the summary that replaced it. Figures come from the engine's ledger."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tui.agent.cost.report import PARTS, short_tokens
from tui.text.sanitize import one_line, visible
from tui.text.wording import plural

from .model import ApiCall

#: short enough for the inspector's narrow table; "tool results" are this turn's (earlier ones are history)
PART_NAMES = {
    "system": "system prompt",
    "tools": "tools",
    "memory": "memory files",
    "history": "history",
    "tool_results": "tool results",
    "output": "output",
}
KINDS = (("input", "input"), ("cache_write", "cache write"), ("cache_read", "cache read"), ("output", "output"))
#: dropped messages listed beside a summary
DROPPED_SHOWN = 40


def usd(value: float) -> str:
    """$0.0123; a share too small for four decimals reads <$0.0001, not a free-looking $0.0000."""
    return "<$0.0001" if 0 < value < 0.00005 else f"${value:.4f}"


def cell(tokens: float) -> str:
    return f"{round(tokens):,}" if tokens >= 0.5 else "–"


def cost_table(cost: dict[str, Any]) -> Table:
    """Rows: the parts of the request, then the total; columns: tokens per kind, then USD."""
    table = Table(box=None, padding=(0, 1), header_style="bold")
    table.add_column("part")
    for _, label in KINDS:
        table.add_column(label, justify="right")
    table.add_column("USD", justify="right")
    parts = cost.get("parts", {})
    for part in PARTS:
        zones = parts.get(part, {})
        table.add_row(
            PART_NAMES[part],
            *(cell(zones.get(kind, 0.0)) for kind, _ in KINDS),
            usd(cost.get("part_usd", {}).get(part, 0.0)),
        )
    if cost.get("web_search_usd"):
        table.add_row("web searches", "", "", "", "", usd(cost["web_search_usd"]))
    tokens = cost.get("tokens", {})
    table.add_row(
        Text("total", style="bold"),
        *(Text(cell(tokens.get(kind, 0)), style="bold") for kind, _ in KINDS),
        Text(usd(cost.get("total_usd", 0.0)), style="bold"),
    )
    return table


def _heading(call: ApiCall, cost: dict[str, Any]) -> Text:
    text = Text(one_line(f"call #{call.number} · {call.loop_path} · {cost.get('model', call.model)}"), style="bold")
    if not cost.get("priced", True):
        text.append("  (no price listed for this model: estimated at claude-sonnet-5-5's prices)", style="yellow")
    tokens = cost.get("tokens", {})
    prompt = tokens.get("input", 0) + tokens.get("cache_write", 0) + tokens.get("cache_read", 0)
    if prompt:
        text.append(f"\n{tokens.get('cache_read', 0) / prompt:.0%} of the prompt read from the cache", style="dim")
    return text


def _miss(cost: dict[str, Any]) -> Text:
    miss = cost.get("cache_miss")
    if not miss:
        return Text("no cache break: it read what the previous request left in the cache", style="dim")
    text = Text("cache miss: ", style="bold yellow")
    text.append(one_line(str(miss.get("text", ""))))
    text.append(f", {short_tokens(miss.get('lost_tokens', 0))} tokens written again", style="yellow")
    if miss.get("extra_cost_usd"):
        text.append(f" (+{usd(miss['extra_cost_usd'])})", style="yellow")
    return text


def _messages(count: Any) -> str:
    """ "1 message", "3 messages", or "? messages" when the record does not say."""
    return plural(count, "message") if isinstance(count, int) else "? messages"


def compaction_view(compaction: dict[str, Any]) -> RenderableType:
    """What the compaction dropped (one line per message) beside the summary that replaced it."""
    plan = compaction.get("plan") or {}
    summarised, kept = plan.get("summarised") or {}, plan.get("kept") or {}
    heading = Text("Compaction: ", style="bold")
    heading.append(
        f"{summarised.get('turns', '?')} ({_messages(summarised.get('messages'))}, "
        f"~{short_tokens(summarised.get('tokens', 0))} tokens) summarised; kept {kept.get('turns', '?')} "
        f"({_messages(kept.get('messages'))}) verbatim"
    )
    dropped = Text()
    for entry in compaction.get("dropped", [])[:DROPPED_SHOWN]:
        dropped.append(f"#{entry['index'] + 1} {entry['role']:<9} ", style="dim")
        dropped.append(one_line(str(entry["text"]))[:70] + "\n")
    if len(compaction.get("dropped", [])) > DROPPED_SHOWN:
        dropped.append(f"… {len(compaction['dropped']) - DROPPED_SHOWN} more", style="dim")
    side = Table(box=None, padding=(0, 2), expand=True, header_style="bold")
    side.add_column("dropped", ratio=1, no_wrap=True, overflow="ellipsis")
    side.add_column("summary that replaced it", ratio=1)
    side.add_row(dropped, Text(visible(str(compaction.get("summary", "")))))
    return Group(heading, Text(""), side)


def cost_view(call: ApiCall) -> RenderableType:
    """The whole Cost tab for `call`."""
    if call.cost is None:
        return Text(
            f"call #{call.number}: {call.status}… (its cost is known once the response has arrived)", style="italic"
        )
    parts: list[RenderableType] = [
        _heading(call, call.cost),
        Text(""),
        _miss(call.cost),
        Text(""),
        cost_table(call.cost),
        Text("history: every earlier message; tool results: this turn's", style="dim"),
    ]
    if call.compaction:
        parts += [Text(""), compaction_view(call.compaction)]
    return Group(*parts)
