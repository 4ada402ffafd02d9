"""`.claude/rules/*.md`: instruction files Claude Code loads beside CLAUDE.md (as of Claude Code 2.1.332).

Every `.md` file under a `.claude/rules/` folder (subfolders too, symlinks followed) of the project
folder and each folder up to the repository root, and under the user's `~/.claude/rules/`, is a rule.
A rule without `paths:` in its frontmatter is memory from the start (after that folder's CLAUDE.md).
A rule with `paths:` (a glob or a list of globs, relative to the folder holding `.claude/`; the user's
rules: to the project folder) joins when a matching file is first read or edited, sent after that
tool's result as Claude Code sends it: `<system-reminder>Contents of PATH:` … `</system-reminder>`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.config.frontmatter import FrontmatterError, as_text, body_after_frontmatter, split_frontmatter
from tui.config.special_files import read_regular_bytes

RULES_DIR = (".claude", "rules")
#: the tools whose file, once read or changed, brings in the rules whose `paths:` match it
PATH_TOOLS = ("Read", "Edit", "MultiEdit", "Write", "NotebookEdit")
MAX_RULE_FILES = 1000
_BRACES = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True)
class PathRule:
    """A rule that waits for a matching file: its file, its text (without frontmatter), its globs and base."""

    path: Path
    text: str
    globs: tuple[str, ...]
    base: Path


def claude_user_dir() -> Path:
    """Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path.home() / ".claude"


def rule_files(folder: Path) -> list[Path]:
    """The `.md` files under a rules folder, subfolders included, in path order (at most MAX_RULE_FILES)."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder, followlinks=True):
        dirs.sort()
        here = Path(root)
        if len(here.relative_to(folder).parts) > 8:  # a symlink loop is cut here
            dirs.clear()
        found += [here / name for name in sorted(files) if name.endswith(".md")]
        if len(found) >= MAX_RULE_FILES:
            break
    return sorted(found, key=lambda p: p.relative_to(folder).parts)[:MAX_RULE_FILES]


def rule_globs(fields: dict[str, Any]) -> tuple[str, ...]:
    """The globs of `paths:` (a list, or one string of comma-separated globs), braces expanded; () when none."""
    value = fields.get("paths")
    items = value if isinstance(value, list) else _split_commas(as_text(value))
    out: list[str] = []
    for item in items:
        text = as_text(item).strip()
        if text:
            out += expand_braces(text)
    return tuple(out)


def _split_commas(text: str) -> list[str]:
    parts, current, depth = [], "", 0
    for ch in text:
        depth += (ch == "{") - (ch == "}" and depth > 0)
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current]


def expand_braces(glob: str, limit: int = 64) -> list[str]:
    """`src/**/*.{ts,tsx}` as `src/**/*.ts` and `src/**/*.tsx` (gitignore globs have no braces)."""
    match = _BRACES.search(glob)
    if match is None:
        return [glob]
    out: list[str] = []
    for choice in match.group(1).split(","):
        out += expand_braces(glob[: match.start()] + choice + glob[match.end() :], limit)
        if len(out) >= limit:
            break
    return out[:limit]


def read_rule(path: Path) -> tuple[tuple[str, ...], str] | None:
    """(globs, text without frontmatter) of one rule file, or None when it cannot be read as a regular file."""
    try:
        data = read_regular_bytes(path, 400_000)
    except OSError:
        return None
    text = data.decode("utf-8", errors="replace")
    try:
        fields, body = split_frontmatter(text)
    except FrontmatterError:
        return (), body_after_frontmatter(text)
    return rule_globs(fields), body


def rules_folders(folders: list[Path]) -> list[tuple[Path, Path]]:
    """(rules folder, base the globs are relative to) for the user, then each folder root first."""
    project = folders[-1] if folders else Path.cwd()
    user = claude_user_dir() / "rules"
    return [(user, project), *((folder.joinpath(*RULES_DIR), folder) for folder in folders)]


def matches(rule: PathRule, file_path: Path) -> bool:
    """Whether `file_path` (as written, or where its links lead) falls under one of the rule's globs."""
    from tui.config.rules import _spec  # gitignore-style matching, imported only when a rule waits

    lexical = Path(os.path.normpath(file_path))
    candidates = {(lexical, rule.base), (Path(os.path.realpath(lexical)), Path(os.path.realpath(rule.base)))}
    for path, base in candidates:
        try:
            rel = path.relative_to(base).as_posix()
        except ValueError:
            continue
        if rel not in ("", ".") and any(_spec(glob).match_file(rel) for glob in rule.globs):
            return True
    return False


def reminder_text(path: Path, text: str) -> str:
    """A rule or a subfolder's memory file as Claude Code attaches it after a tool result."""
    return f"<system-reminder>\nContents of {path}:\n\n{text.rstrip()}\n\n</system-reminder>\n"
