"""Hooks on screen: under the tool call they wrapped in the tool panel, as a line in the conversation otherwise.

Every text a hook printed passes `tui.text.sanitize` before it is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text

from tui.agent import events as ev
from tui.text.sanitize import one_line

if TYPE_CHECKING:
    from .events import EventController

#: Rich colour per hook outcome
OUTCOME_COLOURS = {"running": "cyan", "success": "green", "blocking": "yellow", "error": "red", "timeout": "red"}
#: lines of a hook's stdout shown in the conversation
STDOUT_LINES = 3


@dataclass
class HookRecord:
    """One hook run as the UI shows it."""

    hook_id: str
    hook_event: str
    command: str
    state: str = "running"
    exit_code: int | None = None
    duration_ms: int | None = None
    decision: str | None = None


def hook_summary(e: ev.HookFinished) -> str:
    """`PreToolUse:Bash hook `cmd` · exit 0 · 12 ms · allow`, one line."""
    parts = [f"{e.hook_name} hook `{one_line(e.command)[:60]}`"]
    parts.append("timed out" if e.exit_code is None else f"exit {e.exit_code}")
    parts.append(f"{e.duration_ms} ms")
    if e.decision:
        parts.append(e.decision)
    return " · ".join(parts)


def hook_row(record: HookRecord) -> tuple[Text, Text]:
    """The label and timing cells of one hook row under its tool call in the tool panel."""
    colour = OUTCOME_COLOURS.get(record.state, "white")
    label = Text("  ↳ ", style="#808080")
    label.append(record.hook_event, style="#9e9e9e")  # the tool's name is on the row above
    if record.decision:
        label.append(f" {record.decision}", style=colour)
    timing = "…" if record.duration_ms is None else f"{record.duration_ms}ms"
    return label, Text(timing, style=colour)


async def on_hook_started(controller: EventController, e: ev.HookStarted) -> None:
    if e.tool_use_id and e.tool_use_id in controller._tools:
        tool = controller._tools[e.tool_use_id][0]
        tool.hooks.append(HookRecord(e.hook_id, e.hook_event, e.command))
        controller.app.tool_panel.redraw()
    controller.record_in_inspector(e)


async def on_hook_finished(controller: EventController, e: ev.HookFinished) -> None:
    controller.record_in_inspector(e)
    entry = controller._tools.get(e.tool_use_id or "")
    if entry is not None:
        for record in entry[0].hooks:
            if record.hook_id == e.hook_id:
                record.state, record.exit_code = e.outcome, e.exit_code
                record.duration_ms, record.decision = e.duration_ms, e.decision
        controller.app.tool_panel.redraw()
        return
    if e.message:  # a notice says it already, in one sentence naming the file
        return
    text = hook_summary(e)
    shown = [line for line in e.stdout.strip().splitlines() if line.strip()][:STDOUT_LINES]
    if shown and e.exit_code == 0:
        text += "\n" + "\n".join(f"  {line}" for line in shown)
    await controller.add_marker(text, "info" if e.outcome == "success" else "warning")


async def show_hook_event(controller: EventController, e: ev.HookEvent) -> None:
    """Show a HookStarted or HookFinished event."""
    if isinstance(e, ev.HookFinished):
        await on_hook_finished(controller, e)
    elif isinstance(e, ev.HookStarted):
        await on_hook_started(controller, e)
