"""Edit: exact string replacement that keeps the file's line endings and encoding."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.text.wording import plural
from tui.tools.base import ToolContext, ToolError, ToolResult
from tui.tools.diffs import snippet, unified_diff
from tui.tools.fileio import TextFormat, decode_text, missing_path_error, read_existing, save_file
from tui.tools.freshness import check_fresh
from tui.tools.inputs import get_bool, get_str
from tui.tools.kinds import FileChangeTool
from tui.tools.names import show_name

_LONE_LF = re.compile(r"(?<!\r)\n")
_LINE_NUMBER_PREFIX = re.compile(r"^\s*\d+\t", re.MULTILINE)


@dataclass
class PlannedEdit:
    """The outcome of an edit computed in memory: nothing is written yet."""

    path: Path
    display: str
    before: bytes | None  # None when the edit creates the file
    old_text: str | None
    new_text: str
    fmt: TextFormat
    count: int
    changed_lines: list[tuple[int, int]] = field(default_factory=list)


def diff_stats(diff: str) -> tuple[int, int]:
    """(lines added, lines removed) in a unified diff."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def replace_counted(text: str, old: str, new: str, limit: int | None) -> tuple[str, list[tuple[int, int]]]:
    """`text` with up to `limit` occurrences of `old` replaced, and the new line range of each."""
    pieces: list[str] = []
    ranges: list[tuple[int, int]] = []
    pos, line, new_newlines = 0, 1, new.count("\n")
    while limit is None or len(ranges) < limit:
        idx = text.find(old, pos)
        if idx < 0:
            break
        line += text.count("\n", pos, idx)
        pieces += [text[pos:idx], new]
        ranges.append((line, line + new_newlines))
        line += new_newlines
        pos = idx + len(old)
    pieces.append(text[pos:])
    return "".join(pieces), ranges


class EditTool(FileChangeTool):
    name = "Edit"
    description = (
        "Performs exact string replacements in files.\n\n"
        "- Read the file first: edits to a file you have not read, or that changed since you read it, are refused.\n"
        "- `old_string` must match the file exactly, including whitespace and indentation. When copying from "
        "Read output, leave out the line-number prefix (the number and the tab before the text).\n"
        "- The edit fails when `old_string` matches more than once: include more surrounding lines to make it "
        "unique, or set `replace_all` to replace every occurrence (e.g. to rename a variable).\n"
        "- Line endings (LF or CRLF) and the file's encoding are kept; write `\\n` in your strings.\n"
        "- An empty `old_string` on a file that does not exist creates it with `new_string`.\n"
        "- Prefer editing existing files to creating new ones."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The path of the file to modify (absolute, or relative to the project)",
            },
            "old_string": {"type": "string", "description": "The text to replace"},
            "new_string": {
                "type": "string",
                "description": "The text to replace it with (must be different from old_string)",
            },
            "replace_all": {
                "type": "boolean",
                "default": False,
                "description": "Replace all occurrences of old_string (default false)",
            },
        },
        "required": ["file_path", "old_string", "new_string"],
        "additionalProperties": False,
    }

    def preview(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        try:
            plan = self.plan(tool_input, ctx)
        except ToolError as exc:
            return {"kind": "text", "text": f"This edit cannot be applied: {exc}"}
        return {"kind": "diff", "path": plan.display, "text": unified_diff(plan.old_text, plan.new_text, plan.display)}

    def plan(self, tool_input: dict[str, Any], ctx: ToolContext, *, check_freshness: bool = False) -> PlannedEdit:
        """Compute the edited text without writing; raise ToolError when the edit cannot apply."""
        path = ctx.resolve(get_str(tool_input, "file_path", allow_empty=False) or "")
        old = get_str(tool_input, "old_string") or ""
        new = get_str(tool_input, "new_string") or ""
        replace_all = get_bool(tool_input, "replace_all")
        display = ctx.display_path(path)
        if old == new:
            raise ToolError("No changes to make: old_string and new_string are exactly the same.")
        before = read_existing(path, ctx)
        if before is None:
            if old:
                raise missing_path_error(path, ctx)
            return PlannedEdit(path, display, None, None, new, TextFormat("utf-8"), 1, [(1, new.count("\n") + 1)])
        text, fmt = decode_text(before)
        if not old:
            if text.strip():
                raise ToolError(
                    f"{display} already exists and is not empty, so old_string cannot be empty; put the text to "
                    "replace in old_string, or use Write to replace the whole file."
                )
            new_text = _LONE_LF.sub("\r\n", new) if fmt.crlf else new
            return PlannedEdit(path, display, before, text, new_text, fmt, 1, [(1, new.count("\n") + 1)])
        candidates = [(_LONE_LF.sub("\r\n", old), _LONE_LF.sub("\r\n", new)), (old, new)] if fmt.crlf else [(old, new)]
        count, chosen = 0, candidates[0]
        for pair in candidates:
            count = text.count(pair[0])
            if count:
                chosen = pair
                break
        if check_freshness:
            check_fresh(ctx.state, path, before, display, unique_match=count == 1)
        if count == 0:
            hint = (
                " It contains line-number prefixes from Read output: remove them."
                if _LINE_NUMBER_PREFIX.search(old)
                else " Read the file again and copy the text exactly, including whitespace and indentation."
            )
            raise ToolError(f"String to replace not found in {display}.{hint}")
        if count > 1 and not replace_all:
            raise ToolError(
                f"Found {plural(count, 'match')} of old_string in {display}, but replace_all is false. Include more "
                f"surrounding lines in old_string so it matches exactly once, or set replace_all to true to "
                f"replace all {count}."
            )
        new_text, ranges = replace_counted(text, chosen[0], chosen[1], None if replace_all else 1)
        return PlannedEdit(path, display, before, text, new_text, fmt, len(ranges), ranges)

    def check_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> None:
        self.plan(tool_input, ctx, check_freshness=True)

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        plan = self.plan(tool_input, ctx, check_freshness=True)
        data = plan.fmt.encode(plan.new_text, plan.display)
        save_file(ctx, plan.path, plan.before, data)
        diff = unified_diff(plan.old_text, plan.new_text, plan.display)
        added, removed = diff_stats(diff)
        meta = {"diff": diff, "path": plan.display, "abs_path": str(plan.path), "added": added, "removed": removed}
        if plan.before is None:
            return ToolResult(content=f"File created successfully at: {show_name(str(plan.path))}", meta=meta)
        noun = "replacement" if plan.count == 1 else "replacements"
        return ToolResult(
            content=(
                f"The file {show_name(str(plan.path))} has been updated successfully ({plan.count} {noun}). "
                "Here's the result of running `cat -n` on a snippet of the edited file:\n"
                + snippet(plan.new_text, plan.changed_lines)
            ),
            meta=meta,
        )
