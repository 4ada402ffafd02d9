"""File commands stay inside the project (`ls /`, `cat ~/x`, `cd .. && ls` ask), git stays where it started."""

from __future__ import annotations

import glob
from collections.abc import Sequence
from pathlib import Path

from tui.config.bash_parse import SimpleCommand, resolve_path
from tui.config.readonly import PLAIN
from tui.config.rules import path_variants

#: commands whose arguments are not files they read
PATH_FREE = frozenset(
    {
        "echo",
        "printf",
        "basename",
        "dirname",
        "seq",
        "date",
        "sleep",
        "true",
        "false",
        "which",
        "type",
        "whoami",
        "id",
        "uname",
        "hostname",
        "ps",
        "df",
        "pwd",
        "env",
        "git",
    }
)
FILE_COMMANDS = (
    PLAIN
    | {
        "find",
        "sed",
        "sort",
        "uniq",
        "tree",
        "rg",
        "grep",
        "less",
        "more",
        "mkdir",
        "touch",
        "rm",
        "cp",
        "mv",
        "rmdir",
        "ln",
        "chmod",
        "chown",
    }
) - PATH_FREE
HARMLESS = {"-"}
GLOB_CHARS = set("*?[")


def outside_project(cmd: SimpleCommand, project_dir: Path, extra_dirs: Sequence[Path] = ()) -> str | None:
    """Why this file command reaches outside `project_dir` and `extra_dirs` (a folder or an argument), or None."""
    if cmd.argv[:1] == ["git"] and (cmd.cwds is None or len(cmd.cwds) > 1):
        return "it runs git after changing folder, where another repository's config may run programs"
    if not cmd.argv or cmd.argv[0] not in FILE_COMMANDS:
        return None
    if cmd.cwds is None:
        return "the folder it runs in is not known"
    roots = [root for folder in (project_dir, *extra_dirs) for root in path_variants(Path(folder))]
    for cwd in cmd.cwds:
        if not _inside(cwd, roots):
            return f"it runs in {cwd}, outside the project folder"
        for arg in cmd.argv[1:]:
            value = arg.split("=", 1)[1] if arg.startswith("--") and "=" in arg else arg
            if "$" in value:
                return f"`{arg}` holds `$`, which reads as an expansion"
            if not value or (value.startswith("-") and value != "-") or value in HARMLESS:
                continue
            if not _inside(resolve_path(value, cwd), roots):
                return f"`{arg}` is outside the project folder"
    return None


def file_arguments(cmd: SimpleCommand, project_dir: Path) -> list[Path]:
    """Every file a file command may read, for Read deny rules: each argument from each folder, globs expanded."""
    if not cmd.argv or cmd.argv[0] not in FILE_COMMANDS:
        return []
    found: list[Path] = []
    for cwd in dict.fromkeys([*(cmd.cwds or []), project_dir]):
        for arg in cmd.argv[1:]:
            value = arg.split("=", 1)[1] if arg.startswith("--") and "=" in arg else arg
            if not value or value.startswith("-"):
                continue
            path = resolve_path(value, cwd)
            found.append(path)
            if GLOB_CHARS & set(value):
                found += [Path(p) for p in glob.glob(str(path))]
    return found


def _inside(path: Path, roots: list[Path]) -> bool:
    return all(any(variant == root or root in variant.parents for root in roots) for variant in path_variants(path))
