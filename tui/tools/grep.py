"""Grep: ripgrep content search with Claude Code's schema (content / files_with_matches / count)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tui.text.wording import plural
from tui.tools.base import ToolContext, ToolError, ToolResult
from tui.tools.inputs import get_bool, get_int, get_str
from tui.tools.kinds import SearchTool
from tui.tools.names import show_name
from tui.tools.ripgrep import (
    EXCLUDE_GIT,
    RgOutput,
    age_keys,
    ignore_setup,
    noun_for,
    null_lines,
    relative_arg,
    rg_failure,
    run_rg,
    search_flags,
    search_root,
    walk_cut_note,
)

OUTPUT_MODES = ("content", "files_with_matches", "count")
MAX_OUTPUT_CHARS = 30_000
# content mode stops rg after this many lines when no head_limit is given
MAX_CONTENT_LINES = 20_000


def split_globs(value: str) -> list[str]:
    """Globs separated by spaces or commas, keeping `{a,b}` alternatives together."""
    globs: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in value:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if depth == 0 and (ch.isspace() or ch == ","):
            if current:
                globs.append("".join(current))
                current = []
            continue
        current.append(ch)
    if current:
        globs.append("".join(current))
    return globs


def glob_filter_args(globs: list[str], has_type: bool) -> list[str]:
    """rg flags for the glob filter that keep .gitignore in force where possible.

    rg's --glob whitelist overrides ignore rules, so file-name globs become a custom file
    type instead; globs with folders, and globs combined with `type` (types add up rather
    than narrow), fall back to --glob.
    """
    name_globs = [g for g in globs if not g.startswith("!") and "/" not in g]
    if has_type or not name_globs:
        return [f"--glob={g}" for g in globs]
    args = [f"--type-add=agentglob:{g}" for g in name_globs] + ["--type=agentglob"]
    return args + [f"--glob={g}" for g in globs if g not in name_globs]


def cap_output(lines: list[str], limit: int = MAX_OUTPUT_CHARS) -> tuple[list[str], int]:
    """The leading lines that fit in `limit` characters, and how many lines were left out."""
    total = 0
    for i, line in enumerate(lines):
        total += len(line) + 1
        if total > limit and i:
            return lines[:i], len(lines) - i
    return lines, 0


class GrepTool(SearchTool):
    name = "Grep"
    description = (
        "A powerful search tool built on ripgrep.\n\n"
        "- Use Grep to search files rather than `grep` or `rg` in Bash (filtering a command's output is fine).\n"
        '- Full regex syntax (e.g. "log.*Error", "function\\s+\\w+"). Literal braces need escaping: '
        "use `interface\\{\\}` to find `interface{}` in Go code.\n"
        '- Filter files with `glob` (e.g. "*.js", "**/*.tsx") or `type` (e.g. "py", "js", "rust").\n'
        '- output_mode: "files_with_matches" (default) lists matching files, newest first; "content" shows '
        'matching lines (supports -A/-B/-C context, -n line numbers, head_limit); "count" gives match counts per file.\n'
        "- Patterns match within single lines; set `multiline: true` to let `.` and patterns span lines.\n"
        "- Respects .gitignore. Paths in the output are relative to the project directory."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "description": "The regular expression pattern to search for in file contents",
            },
            "path": {
                "type": "string",
                "description": "File or directory to search in (rg PATH). Defaults to the project directory.",
            },
            "glob": {
                "type": "string",
                "description": 'Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob',
            },
            "type": {
                "type": "string",
                "description": "File type to search (rg --type). Common types: js, py, rust, go, java, etc.",
            },
            "output_mode": {
                "type": "string",
                "enum": list(OUTPUT_MODES),
                "description": 'Output mode: "content" shows matching lines, "files_with_matches" shows file paths '
                '(default), "count" shows match counts.',
            },
            "-i": {"type": "boolean", "description": "Case insensitive search (rg -i)"},
            "-n": {
                "type": "boolean",
                "description": 'Show line numbers in output (rg -n). Requires output_mode: "content". Defaults to true.',
            },
            "-A": {
                "type": "integer",
                "minimum": 0,
                "description": 'Number of lines to show after each match (rg -A). Requires output_mode: "content".',
            },
            "-B": {
                "type": "integer",
                "minimum": 0,
                "description": 'Number of lines to show before each match (rg -B). Requires output_mode: "content".',
            },
            "-C": {
                "type": "integer",
                "minimum": 0,
                "description": 'Number of lines to show before and after each match (rg -C). Requires output_mode: "content".',
            },
            "head_limit": {
                "type": "integer",
                "minimum": 0,
                "description": "Limit output to the first N lines/entries (like `| head -N`), in every output mode. 0 or unset: no limit.",
            },
            "multiline": {
                "type": "boolean",
                "description": "Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.",
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        pattern = tool_input.get("pattern")
        if not isinstance(pattern, str):
            return "Grep"
        shown = pattern if len(pattern) <= 40 else pattern[:39] + "…"
        text = f"Grep {shown}" + (" (count)" if tool_input.get("output_mode") == "count" else "")
        path = tool_input.get("path")
        if isinstance(path, str) and path and "\x00" not in path:
            resolved = ctx.resolve(path)
            text += f" in {ctx.display_path(resolved).rstrip('/')}" + ("/" if resolved.is_dir() else "")
        return text

    def build_args(self, tool_input: dict[str, Any], mode: str, root: Path, path_arg: str | None) -> list[str]:
        """The rg command line (without the binary) for a search of `root` (passed to rg as `path_arg`)."""
        args = [*search_flags(root), "--null", "--max-columns=500", "--max-columns-preview"]
        if get_bool(tool_input, "-i"):
            args.append("--ignore-case")
        if get_bool(tool_input, "multiline"):
            args += ["--multiline", "--multiline-dotall"]
        file_type = (get_str(tool_input, "type", required=False) or "").strip()
        if file_type:
            args.append(f"--type={file_type}")
        args += glob_filter_args(split_globs(get_str(tool_input, "glob", required=False) or ""), bool(file_type))
        args.append(EXCLUDE_GIT)
        if mode == "content":
            args += ["--no-heading", "--with-filename"]
            context = [
                [flag, str(get_int(tool_input, flag, minimum=0))]
                for flag in ("-A", "-B", "-C")
                if tool_input.get(flag) is not None
            ]
            # with context, line numbers tell match lines (12:) from context lines (12-); null_lines drops them
            numbered = bool(context) or get_bool(tool_input, "-n", default=True)
            args.append("--line-number" if numbered else "--no-line-number")
            args += [arg for pair in context for arg in pair]
        elif mode == "files_with_matches":
            args.append("--files-with-matches")
        else:
            args += ["--count", "--with-filename"]
        args.append(f"--regexp={get_str(tool_input, 'pattern') or ''}")
        args.append("--")
        if path_arg:
            args.append(path_arg)
        return args

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        get_str(tool_input, "pattern")
        mode = get_str(tool_input, "output_mode", required=False) or "files_with_matches"
        if mode not in OUTPUT_MODES:
            raise ToolError(f"output_mode must be one of {', '.join(OUTPUT_MODES)}; got {mode!r}.")
        head_limit = get_int(tool_input, "head_limit", minimum=0) or None
        path = get_str(tool_input, "path", required=False)
        root = search_root(None if path in ("undefined", "null") else path, ctx)
        args = self.build_args(tool_input, mode, root, relative_arg(root, ctx))
        max_lines = None
        if mode == "content":
            max_lines = head_limit + 1 if head_limit else MAX_CONTENT_LINES
        # rg anchors `--glob=!/proc` to its working folder: a search of `/` runs there
        cwd = root if root == Path(root.anchor) else ctx.project_dir
        if mode == "files_with_matches":
            result, lines = self._newest_first(args, ctx, cwd)
        else:
            result = run_rg(args, cwd, ctx, max_lines=max_lines, keep_raw=True)
            context = mode == "content" and any(tool_input.get(flag) is not None for flag in ("-A", "-B", "-C"))
            numbers = not context or get_bool(tool_input, "-n", default=True)
            lines = null_lines(result.raw, context, numbers)[: max_lines or None]
        notes: list[str] = []
        if result.returncode == 2:
            if not result.line_count:
                raise rg_failure(result.stderr, "Grep")
            notes.append(f"Some files could not be searched: {result.stderr.strip().splitlines()[0][:200]}")
        total_entries = len(lines)
        noun = "matching line" if mode == "content" else "file"
        walk_cut = walk_cut_note(result, ctx, f"{total_entries:,} {noun_for(total_entries, noun)}")
        at_least = "at least " if walk_cut else ""
        count_summary = ""
        if mode == "count" and lines:
            lines = sorted(lines)  # rg prints counts in the order its threads finish
            matches = sum(int(c) for c in (line.rpartition(":")[2] for line in lines) if c.isdigit())
            count_summary = (
                f"\n\nFound {at_least}{plural(matches, 'total matching line')} across "
                f"{at_least}{plural(total_entries, 'file')}."
            )
        if head_limit and len(lines) > head_limit:
            lines = lines[:head_limit]
            notes.append(f"Showing the first {plural(head_limit, 'result')} (head_limit); more exist.")
        elif result.stopped_early and not walk_cut:
            notes.append(f"Output stopped after {plural(len(lines), 'line')}; narrow the search or set head_limit.")
        lines, cut = cap_output(lines)
        if cut:
            notes.append(
                f"Output cut at {MAX_OUTPUT_CHARS:,} characters: {plural(cut, 'more line')} not shown. "
                "Narrow the search with path, glob, type or head_limit."
            )
        text = self._format(mode, lines, total_entries, at_least) + (count_summary if lines else "")
        notes += walk_cut + ignore_setup(root)[1]
        if notes:
            text += "\n\n" + "\n".join(f"[{note}]" for note in notes)
        return ToolResult(content=text, is_error=result.timed_out, meta={"mode": mode, "entries": total_entries})

    def _newest_first(self, args: list[str], ctx: ToolContext, cwd: Path) -> tuple[RgOutput, list[str]]:
        """Run rg for matching files and list them newest first (equal times by name).

        Each batch of names is stat'ed on this thread as rg prints it, overlapping the search.
        """
        found: list[tuple[float, bytes]] = []
        try:
            project_fd = os.open(ctx.project_dir, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise ToolError(f"Cannot search {ctx.project_dir}: {exc.strerror or exc}.") from None
        try:

            def add(batch: list[bytes]) -> None:
                found.extend(zip(age_keys(batch, project_fd), batch))

            result = run_rg(args, cwd, ctx, on_lines=add, sep=b"\0")
        finally:
            os.close(project_fd)
        found.sort()
        return result, [show_name(name) for _, name in found]

    def _format(self, mode: str, lines: list[str], total_entries: int, at_least: str = "") -> str:
        if not lines:
            return "No files found" if mode == "files_with_matches" else "No matches found"
        if mode == "files_with_matches":
            return f"Found {at_least}{total_entries} {noun_for(total_entries, 'file')}\n" + "\n".join(lines)
        return "\n".join(lines)  # content, and count (its totals are added by the caller, over every file)
