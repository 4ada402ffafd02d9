"""The inspector's timeline: a network-waterfall of the session, one lane per loop, tools in lanes below.

A request is a bar split into waiting (to the first byte) and streaming, labelled with its
stop_reason, tokens and cache share; each tool call is a bar coloured by its outcome, with
the time it waited for a permission answer shown as a dotted gap before it. Plain data and
Rich text here; the panel shows it in its Timeline tab and exports it as SVG.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from dataclasses import dataclass, field
from html import escape
from typing import Any

from rich.text import Text

from tui.agent import events as ev
from tui.text.sanitize import one_line

#: tool outcome -> colour (terminal style name and SVG fill)
OUTCOME_COLOURS = {
    "done": "green",
    "allowed": "green",
    "denied": "yellow",
    "error": "red",
    "hook-blocked": "magenta",
    "interrupted": "grey50",
    "running": "cyan",
}
#: bars the timeline keeps (about 80 turns of a dozen tool calls); older ones leave, the transcript keeps their
#: calls and results. Each bar holds up to 2,000 characters of a tool result: a day kept every one of them
KEEP_BARS = 1000
#: a bar's key: unique and stable for the process (a row's key in the bar list, never its position)
_bar_ids = itertools.count(1)
_SVG_FILL = {
    "green": "#3fb950",
    "yellow": "#d29922",
    "red": "#f85149",
    "magenta": "#bc4cc4",
    "grey50": "#8b949e",
    "cyan": "#39c5cf",
    "blue": "#388bfd",
    "dim": "#30363d",
}


@dataclass
class Bar:
    """One bar of the timeline: a request (`call` set) or a tool call (`tool_use_id` set)."""

    lane: str
    label: str
    start: float
    end: float | None = None
    first_byte: float | None = None  # requests: where waiting ends and streaming starts
    asked: float | None = None  # tools: when a permission question opened (the gap before `start`)
    outcome: str = "running"
    call: int | None = None
    tool_use_id: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    id: int = field(default_factory=lambda: next(_bar_ids))

    @property
    def colour(self) -> str:
        return "blue" if self.call is not None else OUTCOME_COLOURS.get(self.outcome, "white")


class TimelineModel:
    """Bars built from engine events; the lanes follow the loop path (`main`, subagents) of each event."""

    def __init__(self, keep: int = KEEP_BARS) -> None:
        #: the newest `keep` bars, oldest first (their ids increase)
        self.bars: list[Bar] = []
        self.keep = keep
        #: bars recorded before the oldest kept one, no longer held
        self.dropped = 0
        #: where the first bar of the session started: the table's times count from it, even after it left
        self.origin: float | None = None
        self._requests: dict[str, Bar] = {}
        #: the bars of tool calls still running, by tool_use_id (finished ones leave: the dict stays small)
        self._tools: dict[str, Bar] = {}
        self._calls = 0
        self.version = 0

    def _loop(self, event: ev.Event) -> str:
        return str(getattr(event, "path", "") or "main")

    def record(self, event: ev.Event) -> bool:
        """Apply one event; True when the timeline changed."""
        loop = self._loop(event)
        if isinstance(event, ev.RequestSent):
            self._calls += 1
            bar = Bar(loop, f"request {self._calls}", event.ts, call=self._calls, detail={"model": event.model})
            self._add(bar)
            self._requests[loop] = bar
        elif isinstance(event, ev.ResponseStarted) and loop in self._requests:
            self._requests[loop].first_byte = event.ts
        elif isinstance(event, ev.ResponseFinished) and loop in self._requests:
            bar = self._requests[loop]
            usage = event.usage or {}
            prompt = sum(
                int(usage.get(k) or 0)
                for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
            )
            share = int(usage.get("cache_read_input_tokens") or 0) / prompt if prompt else 0.0
            bar.end, bar.outcome = event.ts, str(event.stop_reason)
            bar.label = (
                f"{event.stop_reason} · {prompt:,} in / {int(usage.get('output_tokens') or 0):,} out · "
                f"cache {share:.0%}"
            )
            bar.detail.update(
                stop_reason=event.stop_reason, usage=dict(usage), ttfb_ms=event.ttfb_ms, duration_ms=event.duration_ms
            )
        elif isinstance(event, ev.PermissionRequested):
            self._tool(loop, event.tool_use_id, event.tool_name, event.ts).asked = event.ts
        elif isinstance(event, ev.ToolStarted):
            self._tool(loop, event.tool_use_id, event.name, event.ts).start = event.ts
        elif isinstance(event, ev.ToolFinished):
            bar = self._tool(loop, event.tool_use_id, event.name, event.ts)
            del self._tools[event.tool_use_id]
            bar.end = event.ts
            bar.outcome = (
                "hook-blocked"
                if "hook" in event.result_text[:200].lower() and event.status == "denied"
                else event.status
            )
            bar.detail.update(
                status=event.status,
                is_error=event.is_error,
                result=event.result_text[:2000],
                duration_ms=event.duration_ms,
            )
        else:
            return False
        self.version += 1
        return True

    def _tool(self, loop: str, tool_use_id: str, name: str, ts: float) -> Bar:
        bar = self._tools.get(tool_use_id)
        if bar is None:
            busy = {b.lane for b in self._tools.values()}
            n = 1
            while f"{loop} · tools {n}" in busy:
                n += 1
            bar = Bar(f"{loop} · tools {n}", one_line(name), ts, tool_use_id=tool_use_id, detail={"tool": name})
            self._add(bar)
            self._tools[tool_use_id] = bar
        return bar

    def _add(self, bar: Bar) -> None:
        """Append `bar`; the oldest bars leave beyond `keep` (a running one stays indexed until it finishes)."""
        if self.origin is None:
            self.origin = bar.asked or bar.start
        self.bars.append(bar)
        extra = len(self.bars) - self.keep
        if extra > 0:
            del self.bars[:extra]
            self.dropped += extra

    def find(self, bar_id: int) -> Bar | None:
        """The kept bar with id `bar_id`, or None (dropped, or never recorded)."""
        index = bisect_left(self.bars, bar_id, key=lambda b: b.id)
        return self.bars[index] if index < len(self.bars) and self.bars[index].id == bar_id else None

    def first_time(self, now: float) -> float:
        """What the table's times count from: the session's first bar (kept or not)."""
        return self.origin if self.origin is not None else self.span(now)[0]

    def bar_json(self, bar: Bar) -> dict[str, Any]:
        return {
            "lane": bar.lane,
            "label": bar.label,
            "start": bar.start,
            "end": bar.end,
            "first_byte": bar.first_byte,
            "permission_asked": bar.asked,
            "outcome": bar.outcome,
            "call": bar.call,
            "tool_use_id": bar.tool_use_id,
            **bar.detail,
        }

    def lanes(self) -> list[str]:
        out: list[str] = []
        for bar in self.bars:
            if bar.lane not in out:
                out.append(bar.lane)
        return out

    def span(self, now: float) -> tuple[float, float]:
        if not self.bars:
            return now, now + 1
        start = min(b.asked or b.start for b in self.bars)
        end = max(b.end or now for b in self.bars)
        return start, max(end, start + 0.001)


def render(model: TimelineModel, width: int, now: float) -> Text:
    """One row per lane: ░ waiting, █ streaming or running, · a permission wait; time runs left to right."""
    start, end = model.span(now)
    scale = max(width - 1, 1) / (end - start)
    text = Text()
    lanes = model.lanes()
    name_width = min(max((len(lane) for lane in lanes), default=4), 18)
    for lane in lanes:
        row = [(" ", "")] * width
        for bar in (b for b in model.bars if b.lane == lane):

            def col(t: float) -> int:
                return min(int((t - start) * scale), width - 1)

            stop = col(bar.end or now)
            if bar.asked is not None:
                for i in range(col(bar.asked), col(bar.start)):
                    row[i] = ("·", "dim")
            streaming_from = col(bar.first_byte) if bar.first_byte is not None else stop + 1
            if bar.first_byte is not None and bar.first_byte > bar.start and stop > col(bar.start):
                streaming_from = max(streaming_from, col(bar.start) + 1)  # a wait shorter than a cell still shows
            for i in range(col(bar.start), max(stop, col(bar.start)) + 1):
                row[i] = ("░" if bar.call is not None and i < streaming_from else "█", bar.colour)
        text.append(f"{lane[:name_width]:<{name_width}} ", style="bold")
        for (char, style), cells in itertools.groupby(row):  # one span per run of like cells, not one per cell
            text.append(char * sum(1 for _ in cells), style=style)
        text.append("\n")
    text.append(f"{'':<{name_width}} 0 s{'':>{max(width - 12, 1)}}{end - start:.2f} s", style="dim")
    if model.dropped:
        text.append(f"\n{dropped_note(model)}", style="dim italic")
    return text


def dropped_note(model: TimelineModel) -> str:
    """What the timeline says about the bars it no longer holds."""
    return (
        f"{model.dropped:,} older bars are not kept here (the newest {model.keep:,} are); "
        "the session's transcript file has their calls and results."
    )


def to_svg(model: TimelineModel, now: float, width: int = 960) -> str:
    """The timeline as a standalone SVG: lanes, bars (waiting lighter), labels, a time axis."""
    start, end = model.span(now)
    lanes = model.lanes()
    left, row_h = 160, 26
    scale = (width - left - 20) / (end - start)
    height = row_h * len(lanes) + 40
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="monospace" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="#0d1117"/>',
    ]
    for index, lane in enumerate(lanes):
        y = 10 + index * row_h
        out.append(f'<text x="6" y="{y + 15}" fill="#c9d1d9">{escape(lane)}</text>')
        for bar in (b for b in model.bars if b.lane == lane):
            x0 = left + (bar.start - start) * scale
            x1 = left + ((bar.end or now) - start) * scale
            fill = _SVG_FILL.get(bar.colour, "#c9d1d9")
            if bar.asked is not None:
                xa = left + (bar.asked - start) * scale
                out.append(
                    f'<line x1="{xa:.1f}" y1="{y + 11}" x2="{x0:.1f}" y2="{y + 11}" stroke="#8b949e" '
                    'stroke-dasharray="2,3"/>'
                )
            if bar.first_byte is not None:
                xf = left + (bar.first_byte - start) * scale
                out.append(
                    f'<rect x="{x0:.1f}" y="{y + 4}" width="{max(xf - x0, 1):.1f}" height="14" fill="{fill}" '
                    'opacity="0.4"><title>waiting</title></rect>'
                )
                x0 = xf
            out.append(
                f'<rect x="{x0:.1f}" y="{y + 4}" width="{max(x1 - x0, 1):.1f}" height="14" fill="{fill}">'
                f"<title>{escape(bar.label)} ({escape(bar.outcome)})</title></rect>"
            )
            out.append(f'<text x="{x1 + 4:.1f}" y="{y + 15}" fill="#8b949e">{escape(bar.label[:60])}</text>')
    out.append(f'<text x="{left}" y="{height - 8}" fill="#8b949e">0 s</text>')
    out.append(f'<text x="{width - 80}" y="{height - 8}" fill="#8b949e">{end - start:.2f} s</text>')
    out.append("</svg>")
    return "\n".join(out)
