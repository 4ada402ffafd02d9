"""What a tool's result says beyond its text (its `meta`), published as events: todos, lines changed, sandbox refusals.

Tools report through their result, never the bus; the dispatcher hands each result here once it ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tui.agent.events import Event, LinesChanged, SandboxBlocked, TodosUpdated
from tui.tools.base import ToolResult


def publish_result_meta(
    publish: Callable[[Event], None], tool_use_id: str, tool_input: Any, result: ToolResult
) -> None:
    """Publish the events `result.meta` carries for the call `tool_use_id`."""
    meta = result.meta
    if isinstance(meta.get("todos"), list):
        publish(TodosUpdated(todos=tuple(dict(t) for t in meta["todos"])))
    if isinstance(meta.get("added"), int):  # Edit and Write count the lines they changed
        publish(
            LinesChanged(
                tool_use_id=tool_use_id,
                path=str(meta.get("abs_path", "")),
                added=meta["added"],
                removed=int(meta.get("removed", 0)),
            )
        )
    if meta.get("sandbox_blocked"):
        publish(
            SandboxBlocked(
                tool_use_id=tool_use_id,
                command=str(tool_input.get("command", "")),
                blocked=tuple(meta["sandbox_blocked"]),
            )
        )
