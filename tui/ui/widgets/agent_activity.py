"""An Agent call's nested view: the subagent's tool calls, live, indented by nesting depth."""

from __future__ import annotations

import time

from rich.text import Text

from tui.text.sanitize import one_line, visible

from .conversation_model import ToolRecord

#: Rich colour per tool state (the same meaning as the glyphs of blocks.TOOL_STATE_STYLE)
COLOURS = {
    "preparing": "grey50",
    "queued": "grey50",
    "waiting": "yellow",
    "running": "cyan",
    "done": "green",
    "error": "red",
    "denied": "yellow",
    "interrupted": "yellow",
}
GLYPHS = {
    "preparing": "◌",
    "queued": "○",
    "waiting": "◐",
    "running": "●",
    "done": "✔",
    "error": "✘",
    "denied": "⊘",
    "interrupted": "■",
}
#: the longest label of the latest call shown on a folded Agent block's title
LABEL_CHARS = 40
#: the most nested calls listed per subagent (the earliest are folded into a count)
MAX_LISTED = 30


def _seconds(tool: ToolRecord, now: float) -> str:
    elapsed = tool.elapsed_s(now)
    if elapsed is None:
        return ""
    return f" {elapsed:.1f} s" if elapsed < 60 else f" {int(elapsed // 60)} min {int(elapsed % 60)} s"


def _lines(tool: ToolRecord, depth: int, now: float, out: Text) -> None:
    children = tool.children
    if len(children) > MAX_LISTED:
        out.append("  " * depth + f"… {len(children) - MAX_LISTED} earlier calls\n", style="grey50")
        children = children[-MAX_LISTED:]
    for child in children:
        colour = COLOURS.get(child.state, "white")
        out.append("  " * depth + GLYPHS.get(child.state, "?") + " ", style=colour)
        out.append(one_line(child.display_label), style="bold" if child.state == "running" else "")
        out.append(f"  {child.state}{_seconds(child, now)}\n", style=colour if not child.is_final else "grey50")
        if child.children:
            _lines(child, depth + 1, now, out)


def agent_progress(tool: ToolRecord) -> str:
    """One line for a folded Agent call while its subagent works: its calls so far and the latest one."""
    children = tool.children
    if not children:
        return "starting" if tool.state == "running" else ""
    latest = next((c for c in reversed(children) if c.state == "running"), children[-1])
    label = one_line(latest.display_label)
    if len(label) > LABEL_CHARS:
        label = label[: LABEL_CHARS - 1] + "…"
    return f"{len(children)} tool call{'s' if len(children) != 1 else ''} · {GLYPHS.get(latest.state, '?')} {label}"


def agent_activity(tool: ToolRecord, report: str, now: float | None = None) -> Text:
    """The subagent's loop path, its tool calls (nested agents indented), then its final report."""
    out = Text()
    out.append(f"{tool.agent_path}\n", style="italic grey50")
    _lines(tool, 1, now if now is not None else time.time(), out)
    if not tool.children:
        out.append("  (no tool calls yet)\n", style="grey50")
    report = report.split("\nagentId: ", 1)[0].strip()  # the usage trailer is for the model; the title has it
    if report:
        out.append("\n")
        out.append(visible(report))
    return out
