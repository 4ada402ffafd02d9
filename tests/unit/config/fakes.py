"""Small fake tools with the attributes the permission policy reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui.tools.base import SessionState, Tool, ToolContext, ToolResult


class _Fake(Tool):
    description = "fake"
    input_schema: dict[str, Any] = {"type": "object"}

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("ok")


class FakeBash(_Fake):
    name = "Bash"
    kind = "exec"

    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        return tool_input["command"]


class _FileTool(_Fake):
    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        return str(ctx.resolve(tool_input["file_path"]))


class FakeRead(_FileTool):
    name = "Read"
    read_only = True


class FakeEdit(_FileTool):
    name = "Edit"
    kind = "edit"


class FakeWrite(_FileTool):
    name = "Write"
    kind = "edit"


class FakeGlob(_Fake):
    name = "Glob"
    read_only = True


class FakeGrep(_Fake):
    name = "Grep"
    read_only = True


class FakeWebFetch(_Fake):
    name = "WebFetch"

    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        return tool_input["url"]


class FakeTodoWrite(_Fake):
    name = "TodoWrite"
    read_only = True


TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (FakeBash(), FakeRead(), FakeEdit(), FakeWrite(), FakeGlob(), FakeGrep(), FakeWebFetch(), FakeTodoWrite())
}


def tool_input(tool_name: str, arg: str) -> dict[str, Any]:
    """The input dict a fake tool reads, from one string argument."""
    if tool_name == "Bash":
        return {"command": arg}
    if tool_name in ("Glob", "Grep"):
        return {"pattern": "*", "path": arg} if arg else {"pattern": "*"}
    if tool_name == "WebFetch":
        return {"url": arg}
    if tool_name == "TodoWrite":
        return {"todos": []}
    return {"file_path": arg}


def context(project_dir: Path) -> ToolContext:
    return ToolContext(project_dir=project_dir, state=SessionState(project_dir=project_dir))
