"""Write: create a file or replace its whole content."""

from __future__ import annotations

from typing import Any

from tui.tools.base import ToolContext, ToolError, ToolResult
from tui.tools.diffs import unified_diff
from tui.tools.edit import diff_stats
from tui.tools.fileio import TextFormat, decode_text, read_existing, save_file
from tui.tools.freshness import check_fresh
from tui.tools.inputs import get_str
from tui.tools.kinds import FileChangeTool
from tui.tools.names import show_name


class WriteTool(FileChangeTool):
    name = "Write"
    description = (
        "Writes a file to the local filesystem, replacing its content if it exists.\n\n"
        "- `file_path` may be absolute or relative to the project directory; missing parent folders are created.\n"
        "- To overwrite an existing file you must Read it first, and it must not have changed since; "
        "otherwise the write is refused.\n"
        "- Prefer Edit for changing part of an existing file: it sends only the change.\n"
        "- Do not create documentation or README files unless asked to."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The path of the file to write (absolute, or relative to the project)",
            },
            "content": {"type": "string", "description": "The content to write to the file"},
        },
        "required": ["file_path", "content"],
        "additionalProperties": False,
    }

    def preview(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        try:
            path = ctx.resolve(get_str(tool_input, "file_path", allow_empty=False) or "")
            content = get_str(tool_input, "content") or ""
            before = read_existing(path, ctx)
        except ToolError as exc:
            return {"kind": "text", "text": f"This write cannot be applied: {exc}"}
        display = ctx.display_path(path)
        old_text = decode_text(before)[0] if before is not None else None
        return {"kind": "diff", "path": display, "text": unified_diff(old_text, content, display)}

    def check_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> None:
        path = ctx.resolve(get_str(tool_input, "file_path", allow_empty=False) or "")
        before = read_existing(path, ctx)
        if before is not None:
            check_fresh(ctx.state, path, before, ctx.display_path(path))

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(get_str(tool_input, "file_path", allow_empty=False) or "")
        content = get_str(tool_input, "content") or ""
        display = ctx.display_path(path)
        before = read_existing(path, ctx)
        old_text: str | None = None
        fmt = TextFormat("utf-8")
        if before is not None:
            check_fresh(ctx.state, path, before, display)
            old_text, fmt = decode_text(before)
        try:
            data = fmt.encode(content, display)  # keep the file's encoding (and BOM) when it can hold the text
        except ToolError:
            data = content.encode("utf-8", errors="surrogatepass")
        save_file(ctx, path, before, data)
        diff = unified_diff(old_text, content, display)
        added, removed = diff_stats(diff)
        meta = {"diff": diff, "path": display, "abs_path": str(path), "added": added, "removed": removed}
        if before is None:
            return ToolResult(content=f"File created successfully at: {show_name(str(path))}", meta=meta)
        return ToolResult(content=f"The file {show_name(str(path))} has been updated successfully.", meta=meta)
