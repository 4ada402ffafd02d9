"""TodoWrite and the registry: schemas, order, state and the published event."""

from __future__ import annotations

import json

import pytest

from tui.tools.base import ToolContext, ToolError
from tui.tools.registry import default_tools, tools_by_name
from tui.tools.todo import TodoWriteTool

todo = TodoWriteTool()
ITEMS = [
    {"content": "Run tests", "status": "completed", "activeForm": "Running tests"},
    {"content": "Fix bug", "status": "in_progress", "activeForm": "Fixing bug"},
    {"content": "Write docs", "status": "pending", "activeForm": "Writing docs"},
]


def test_todowrite_stores_and_reports_through_its_result(ctx: ToolContext) -> None:
    result = todo.run({"todos": ITEMS}, ctx)
    assert ctx.state.todos == ITEMS
    assert result.meta["todos"] == ITEMS  # the engine publishes TodosUpdated from this
    assert "modified successfully" in result.text() and "(1/3 done)" in result.text()
    assert "[~] Fix bug" in result.text()


@pytest.mark.parametrize(
    "todos",
    [
        "not a list",
        [{"content": "x", "status": "done", "activeForm": "x"}],
        [{"content": "", "status": "pending", "activeForm": "x"}],
        [{"content": "x", "status": "pending"}],
        ["string item"],
    ],
)
def test_todowrite_rejects_bad_items(ctx: ToolContext, todos: object) -> None:
    with pytest.raises(ToolError):
        todo.run({"todos": todos}, ctx)
    assert ctx.state.todos == []


def test_todowrite_needs_no_permission_but_runs_alone() -> None:
    assert todo.read_only and todo.kind == "read" and not todo.is_concurrency_safe({"todos": []})


def test_registry_order_and_lookup() -> None:
    tools = default_tools()
    assert [t.name for t in tools] == [
        "Read",
        "Write",
        "Edit",
        "Bash",
        "Glob",
        "Grep",
        "TodoWrite",
        "TaskOutput",
        "TaskStop",
        "WebFetch",
        "WebSearch",
        "AskUserQuestion",
        "ExitPlanMode",
    ]
    assert set(tools_by_name(tools)) == {t.name for t in tools}


def test_every_schema_is_strict_and_serialisable() -> None:
    for tool in default_tools():
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema["required"]) <= set(schema["properties"])
        assert tool.description and len(tool.description) > 80
        json.dumps(tool.definition())
    kinds = {t.name: (t.kind, t.read_only) for t in default_tools()}
    assert kinds["Bash"] == ("exec", False) and kinds["Edit"] == ("edit", False) and kinds["Grep"] == ("read", True)


def test_labels_never_raise_on_garbage(ctx: ToolContext) -> None:
    for tool in default_tools():
        for garbage in ({}, {"file_path": 3, "pattern": None, "command": [], "todos": "x", "path": "\x00"}):
            assert isinstance(tool.label(garbage, ctx), str)
            tool.permission_target(garbage, ctx)
            assert isinstance(tool.preview(garbage, ctx), dict)
