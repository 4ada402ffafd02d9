"""Shared parts of tools of one kind: file changers (Edit, Write) and searches (Glob, Grep)."""

from __future__ import annotations

from typing import Any

from .base import Tool, ToolContext
from .names import show_name


def path_input(ctx: ToolContext, value: Any) -> str | None:
    """The absolute path for a path input, or None when it is not a usable path."""
    if isinstance(value, str) and value and "\x00" not in value:
        return str(ctx.resolve(value))
    return None


def path_target(path: str | None) -> str | None:
    """A resolved path as a permission target: in `show_name`'s form, which the gate's own resolve reads back exactly.

    The gate resolves the target again; a raw name holding `$'…'` would be unquoted a
    second time and name another file than the tool opens.
    """
    return None if path is None else show_name(path)


class FileChangeTool(Tool):
    """A tool that writes one file: gated as an edit, never run in parallel, labelled by its path."""

    read_only = False
    kind = "edit"

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        return False

    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        return path_target(path_input(ctx, tool_input.get("file_path")))

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        target = path_input(ctx, tool_input.get("file_path"))
        return f"{self.name} {ctx.display_path(target)}" if target else self.name


class SearchTool(Tool):
    """A read-only search under `path` (the project directory by default)."""

    read_only = True
    kind = "read"

    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        return path_target(path_input(ctx, tool_input.get("path")) or str(ctx.project_dir))
