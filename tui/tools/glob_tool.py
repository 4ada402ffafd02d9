"""Glob: gitignore-aware file listing through `rg --files`, newest first."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui.tools.base import ToolContext, ToolError, ToolResult
from tui.tools.inputs import get_str
from tui.tools.kinds import SearchTool
from tui.tools.names import show_name
from tui.tools.ripgrep import (
    EXCLUDE_GIT,
    age_keys,
    ignore_setup,
    noun_for,
    relative_arg,
    rg_failure,
    run_rg,
    search_flags,
    search_root,
    walk_cut_note,
)

MAX_RESULTS = 100
_GLOB_CHARS = set("*?[{")


def split_absolute_pattern(pattern: str) -> tuple[Path, str]:
    """An absolute pattern as (the folder before its first wildcard, the rest)."""
    parts = Path(pattern).parts
    for i, part in enumerate(parts):
        if _GLOB_CHARS & set(part):
            return Path(*parts[:i]), "/".join(parts[i:])
    return Path(*parts[:-1]), parts[-1]


class GlobTool(SearchTool):
    name = "Glob"
    description = (
        "Fast file pattern matching that works with any codebase size.\n\n"
        '- Supports glob patterns like "**/*.js" or "src/**/*.ts"; a pattern without a slash, like "*.py", '
        "matches file names at any depth.\n"
        "- Returns matching file paths (relative to the project) sorted by modification time, newest first, "
        f"at most {MAX_RESULTS}.\n"
        "- Files ignored by .gitignore are left out.\n"
        "- Use it to find files by name; use Grep to search file contents."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "The glob pattern to match files against"},
            "path": {
                "type": "string",
                "description": "The directory to search in. If not specified, the project directory is used. "
                'Omit it for the default; do not pass null or "undefined".',
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        pattern = tool_input.get("pattern")
        text = f"Glob {pattern}" if isinstance(pattern, str) else "Glob"
        path = tool_input.get("path")
        if isinstance(path, str) and path and "\x00" not in path:
            text += f" in {ctx.display_path(ctx.resolve(path)).rstrip('/')}/"
        return text

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern = get_str(tool_input, "pattern", allow_empty=False) or ""
        path_arg = get_str(tool_input, "path", required=False)
        if path_arg in ("undefined", "null"):
            path_arg = None
        root = search_root(path_arg, ctx)
        if not root.is_dir():
            raise ToolError(
                f"Glob's path must be a directory, but {ctx.display_path(root)} is a file; use Read for it."
            )
        if os.path.isabs(pattern):
            root, pattern = split_absolute_pattern(pattern)
            if not root.is_dir():
                return ToolResult(content="No files found")
        pattern = pattern.removeprefix("./")
        args, full_match = glob_args(pattern, root)
        notes = ignore_setup(root)[1]
        newest = NewestFiles(full_match)
        try:
            root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise ToolError(f"Cannot list {ctx.display_path(root)}: {exc.strerror or exc}.") from None
        try:
            # stat each batch as rg prints it, on this thread (the names stay bytes, NUL-separated)
            result = run_rg(args, root, ctx, on_lines=lambda batch: newest.add(batch, root_fd), sep=b"\0")
        finally:
            os.close(root_fd)
        if result.returncode == 2 and not result.line_count:
            raise rg_failure(result.stderr, "Glob")
        cut = walk_cut_note(result, ctx, f"{newest.count:,} matching {noun_for(newest.count, 'file')}")
        if not newest.count:
            return ToolResult(
                content="\n".join(["No files found", *cut, *notes]), is_error=result.timed_out, meta={"count": 0}
            )
        prefix = relative_arg(root, ctx)
        shown = [show_name(os.path.join(prefix, name) if prefix else name) for name in newest.names()]
        text = "\n".join(shown)
        if cut:
            text += f"\n(Showing the {len(shown)} most recently modified of the files found so far.)"
        elif newest.count > MAX_RESULTS:
            text += (
                f"\n(Results are truncated: showing the {MAX_RESULTS} most recently modified of "
                f"{newest.count:,} matching files. Use a more specific path or pattern.)"
            )
        text += "".join(f"\n({note})" for note in [*cut, *notes])
        return ToolResult(content=text, is_error=result.timed_out, meta={"count": newest.count, "cut": bool(cut)})


class NewestFiles:
    """Keeps the MAX_RESULTS most recently modified of the names fed to it, counting them all."""

    def __init__(self, match: Callable[[str], Any] | None) -> None:
        self.match = match
        self.kept: list[tuple[float, bytes]] = []  # (negated mtime, name): the newest so far, and more
        self.cut = math.inf  # a key after the MAX_RESULTS-th smallest kept: larger keys cannot make it
        self.count = 0

    def add(self, names: list[bytes], root_fd: int) -> None:
        """Count and stat a batch of names relative to the open folder `root_fd`."""
        if self.match is not None:
            match = self.match
            names = [name for name in names if match(os.fsdecode(name))]
        if not names:
            return
        self.count += len(names)
        cut = self.cut
        self.kept += [(key, name) for key, name in zip(age_keys(names, root_fd), names) if key <= cut]
        if len(self.kept) > 4 * MAX_RESULTS:  # sort now and then, not per batch
            self._trim()

    def _trim(self) -> None:
        self.kept.sort()
        del self.kept[MAX_RESULTS:]
        if len(self.kept) == MAX_RESULTS:
            self.cut = self.kept[-1][0]

    def names(self) -> list[str]:
        """Newest first; equal times by name."""
        self._trim()
        return [os.fsdecode(name) for _, name in self.kept]


def glob_args(pattern: str, root: Path) -> tuple[list[str], Callable[[str], Any] | None]:
    """rg arguments that list candidate files, and the full-path test still to apply (if any).

    rg's own --glob would override .gitignore, so the file-name part of the pattern goes
    into a custom file type (which honours ignore rules) and a pattern with folders is
    matched in Python with gitignore semantics (pathspec).
    """
    if pattern.startswith("**/") and "/" not in pattern[3:].rstrip("/"):
        pattern = pattern[3:]  # "**/*.py" is just "*.py" at any depth: rg's file type does it alone
    name_part = pattern.rstrip("/").rsplit("/", 1)[-1]
    args = [*search_flags(root), "--files", "--null", EXCLUDE_GIT]
    if name_part and name_part != "**" and not name_part.startswith("!"):
        args += [f"--type-add=agentglob:{name_part}", "--type=agentglob"]
        if "/" not in pattern.rstrip("/"):
            return args, None
    pattern_class, pattern_error = _gitignore_pattern()
    try:
        regexes = [pattern_class(p).regex for p in expand_braces(pattern)]
    except (ValueError, TypeError, re.error, pattern_error):
        raise ToolError(f"Invalid glob pattern {pattern!r}; use wildcards like **/*.py or src/**/*.ts.") from None
    found = [r for r in regexes if r is not None]
    if len(found) == 1:
        return args, found[0].match
    return args, lambda name: any(r.match(name) for r in found)


def _gitignore_pattern() -> tuple[Any, type[Exception]]:
    """pathspec's gitignore pattern class and its error (imported on first use: ~15 ms)."""
    try:  # pathspec >= 1.0 (its GitWildMatchPattern is deprecated there)
        from pathspec.patterns.gitignore import GitIgnorePatternError
        from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

        return GitIgnoreBasicPattern, GitIgnorePatternError
    except ImportError:  # pragma: no cover - older pathspec
        from pathspec.patterns.gitwildmatch import GitWildMatchPattern, GitWildMatchPatternError

        return GitWildMatchPattern, GitWildMatchPatternError


def expand_braces(pattern: str, limit: int = 256) -> list[str]:
    """`a/{b,c}/*.{py,pyi}` as the plain globs it stands for (pathspec has no braces)."""
    start = pattern.find("{")
    if start < 0:
        return [pattern]
    depth = 0
    for end in range(start, len(pattern)):
        depth += {"{": 1, "}": -1}.get(pattern[end], 0)
        if depth == 0:
            break
    else:
        return [pattern]
    options: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in pattern[start + 1 : end]:
        if ch == "," and depth == 0:
            options.append("".join(current))
            current = []
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        current.append(ch)
    options.append("".join(current))
    out: list[str] = []
    for option in options:
        out += expand_braces(pattern[:start] + option + pattern[end + 1 :], limit)
        if len(out) >= limit:
            return out[:limit]
    return out
