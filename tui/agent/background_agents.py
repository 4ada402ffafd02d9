"""`Agent` with `run_in_background`: the subagent runs as a background task of the session.

The call returns at once with the task id and output file; the subagent's report is written to
that file when it ends, the next request carries Claude Code's task notification, `TaskOutput`
reads it and `TaskStop` (or quitting) stops the subagent's loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.tools.base import ToolContext, ToolInterrupted, ToolResult

if TYPE_CHECKING:
    from tui.config.agent_files import AgentDefinition
    from tui.tools.tasks import TaskHandle

    from .subagents import AgentTool


def start_background(
    tool: AgentTool, definition: AgentDefinition, tool_input: dict[str, Any], ctx: ToolContext
) -> ToolResult:
    """Start the subagent on a task thread; the result says where its report will be."""
    from .subagents import run_subagent

    agent_path = tool.agent_path(tool_input, definition)

    def work(handle: TaskHandle) -> None:
        try:
            result = run_subagent(tool, definition, tool_input, ctx, agent_path=agent_path, cancel=handle.stop_event)
        except ToolInterrupted:
            handle.write("The subagent was stopped before it finished.\n")
            return
        handle.write(result.text() + "\n")
        if result.is_error:
            raise RuntimeError(result.text().splitlines()[0] if result.text() else "the subagent failed")

    description = str(tool_input.get("description") or definition.name)
    task = tool.owner.state.tasks.start_worker("agent", description, work)
    text = (
        f"Started subagent {agent_path} in the background as task {task.id}; its report will be written to "
        f"{task.output_path}. You will be told when it finishes: do not wait or poll; go on with other work. "
        f"TaskOutput with task_id {task.id} reads the report."
    )
    return ToolResult(
        text,
        meta={
            "status": "async_launched",
            "task_id": task.id,
            "output_file": task.output_path,
            "agent_path": agent_path,
        },
    )
