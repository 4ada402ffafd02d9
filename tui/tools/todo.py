"""TodoWrite: the model's plan for the session; the engine publishes it from the result's `meta["todos"]`."""

from __future__ import annotations

from typing import Any

from tui.tools.base import Tool, ToolContext, ToolError, ToolResult

STATUSES = ("pending", "in_progress", "completed")
STATUS_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}


def validate_todos(value: Any) -> list[dict[str, str]]:
    """The todo list as clean dicts; a ToolError naming the first bad item."""
    if not isinstance(value, list):
        raise ToolError("`todos` must be a list of {content, status, activeForm} objects.")
    todos = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise ToolError(f"todos[{i}] must be an object with content, status and activeForm.")
        content, status, active = item.get("content"), item.get("status"), item.get("activeForm")
        if not isinstance(content, str) or not content.strip():
            raise ToolError(f"todos[{i}].content must be a non-empty string.")
        if status not in STATUSES:
            raise ToolError(f"todos[{i}].status must be one of {', '.join(STATUSES)}; got {status!r}.")
        if not isinstance(active, str) or not active.strip():
            raise ToolError(f'todos[{i}].activeForm must be a non-empty string (e.g. "Running tests").')
        todos.append({"content": content, "status": status, "activeForm": active})
    return todos


class TodoWriteTool(Tool):
    name = "TodoWrite"
    description = (
        "Creates and updates the task list for this session: the whole list is replaced on each call.\n\n"
        "- Use it for work with three or more steps, and when the user gives several tasks.\n"
        '- Each item has `content` (imperative: "Run tests"), `activeForm` (present continuous: '
        '"Running tests") and `status` (pending, in_progress, completed).\n'
        "- Keep exactly one item in_progress while you work; mark items completed as soon as they are done.\n"
        "- Skip it for single, trivial tasks."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The updated todo list",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "minLength": 1},
                        "status": {"type": "string", "enum": list(STATUSES)},
                        "activeForm": {"type": "string", "minLength": 1},
                    },
                    "required": ["content", "status", "activeForm"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["todos"],
        "additionalProperties": False,
    }
    # changes session state only: no permission needed, but calls must not race each other
    read_only = True
    kind = "read"

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        return False

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        todos = tool_input.get("todos")
        return f"Update todos ({len(todos)})" if isinstance(todos, list) else "Update todos"

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        todos = validate_todos(tool_input.get("todos"))
        with ctx.state.lock:
            ctx.state.todos = todos
        done = sum(t["status"] == "completed" for t in todos)
        listing = "\n".join(f"{STATUS_MARKS[t['status']]} {t['content']}" for t in todos)
        return ToolResult(
            content=(
                "Todos have been modified successfully. Ensure that you continue to use the todo list to track "
                f"your progress. Please proceed with the current tasks if applicable. ({done}/{len(todos)} done)"
                + (f"\n{listing}" if listing else "")
            ),
            meta={"todos": todos},
        )
