"""TaskOutput and TaskStop: read and end the background tasks of `tui.tools.tasks`."""

from __future__ import annotations

from typing import Any

from tui.tools.base import Tool, ToolContext, ToolError, ToolResult
from tui.tools.inputs import get_bool, get_int, get_str
from tui.tools.tasks import BackgroundTask, TaskRegistry

DEFAULT_WAIT_MS = 30_000
MAX_WAIT_MS = 600_000
TASK_TYPES = {"bash": "local_bash", "agent": "local_agent"}


def _task(registry: TaskRegistry, task_id: str) -> BackgroundTask:
    task = registry.get(task_id)
    if task is None:
        known = ", ".join(t.id for t in registry.all()) or "none"
        raise ToolError(f"No background task with id {task_id!r}; known task ids: {known}.")
    return task


class TaskOutputTool(Tool):
    name = "TaskOutput"
    description = (
        "A background task's status and its output since the last read; `block` (default true) first waits "
        "up to `timeout` ms (30000) for it to end."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "task_id": {"type": "string"},
            "block": {"type": "boolean"},
            "timeout": {"type": "number"},
        },
        "required": ["task_id"],
        "additionalProperties": False,
    }
    read_only = True

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        return True

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        return f"TaskOutput {tool_input.get('task_id', '')}".rstrip()

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        registry = ctx.state.tasks
        task = _task(registry, get_str(tool_input, "task_id", allow_empty=False) or "")
        wait_ms = min(get_int(tool_input, "timeout", minimum=0) or DEFAULT_WAIT_MS, MAX_WAIT_MS)
        block = get_bool(tool_input, "block", default=True)
        if block and task.running:
            registry.wait(task.id, wait_ms / 1000, ctx.cancel)
        output = registry.read_new(task.id)
        if task.done.is_set():
            task.announced = True  # the model has seen the end: no reminder needed
        lines = [
            f"<retrieval_status>{'success' if not task.running else 'timeout' if block else 'not_ready'}</retrieval_status>",
            f"<task_id>{task.id}</task_id>",
            f"<task_type>{TASK_TYPES.get(task.kind, task.kind)}</task_type>",
            f"<status>{task.status}</status>",
        ]
        if task.exit_code is not None:
            lines.append(f"<exit_code>{task.exit_code}</exit_code>")
        if task.error:
            lines.append(f"<error>{task.error}</error>")
        if task.result:
            lines.append(f"<result>{task.result}</result>")
        lines.append(f"<output>\n{output.rstrip()}\n</output>" if output else "<output>(no new output)</output>")
        if note := registry.output_note(task.id):
            lines.append(f"<output_note>{note}</output_note>")
        return ToolResult("\n".join(lines), meta={"task_id": task.id, "status": task.status})


class TaskStopTool(Tool):
    name = "TaskStop"
    description = "Stops a running background task by its id (a command with every process it started)."
    input_schema = {
        "type": "object",
        "properties": {"task_id": {"type": "string"}, "shell_id": {"type": "string"}},
        "required": [],
        "additionalProperties": False,
    }
    read_only = True  # it only ends what the model itself started

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        return False

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        return f"TaskStop {tool_input.get('task_id') or tool_input.get('shell_id') or ''}".rstrip()

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        task_id = get_str(tool_input, "task_id", required=False) or get_str(tool_input, "shell_id", required=False)
        if not task_id:
            raise ToolError("Give the `task_id` of the background task to stop.")
        registry = ctx.state.tasks
        task = _task(registry, task_id)
        if not registry.stop(task.id):
            return ToolResult(f"Task {task.id} had already ended: {task.summary()}.", meta={"task_id": task.id})
        return ToolResult(f"Stopped task {task.id} ({task.description}).", meta={"task_id": task.id})
