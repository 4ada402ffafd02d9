"""Memory files: AGENTS.md, CLAUDE.md and `.claude/rules/*.md` that go into the system prompt.

Read from the user's config folder (and Claude Code's `~/.claude/rules/`), then from the
repository root down to the project folder (more specific files come later, so they read as
overriding); in each folder its `.claude/rules/` come after its CLAUDE.md, before the
`*.local.md` files, as Claude Code orders them. Rules with `paths:` wait for a matching file
(tui/config/memory_rules.py). `@path` lines
outside code fences import other files (relative to the importing file, `~/` allowed),
at most five levels deep; a file already loaded is never loaded twice.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from tui.config.memory_rules import RULES_DIR, PathRule, claude_user_dir, read_rule, rule_files, rules_folders
from tui.config.paths import user_config_dir
from tui.config.special_files import is_regular_file, read_regular_bytes

MEMORY_NAMES = ("AGENTS.md", "CLAUDE.md", "AGENTS.local.md", "CLAUDE.local.md")  # *.local.md: `#` lines kept out of git
#: a folder's files read before its `.claude/rules` (Claude Code reads `.claude/CLAUDE.md` too)
SHARED_NAMES = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md")
LOCAL_NAMES = MEMORY_NAMES[2:]
MAX_IMPORT_DEPTH = 5
MAX_FILE_CHARS = 40_000
#: the first line of the memory block in the system prompt (the cost ledger recognises the block by it)
MEMORY_HEADING = "# Memory files"
IMPORT = re.compile(r"(?:^|(?<=\s))@((?:~/|\.{1,2}/|/)?[\w.\-/]+)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`]*`")


@dataclass(frozen=True)
class MemoryFile:
    """One loaded file; `imported_from` is the file whose `@path` pulled it in (None at the top)."""

    path: Path
    text: str
    imported_from: Path | None = None


def repository_root(project_dir: Path) -> Path | None:
    """The nearest folder at or above `project_dir` holding `.git`, or None."""
    for folder in [project_dir, *project_dir.parents]:
        if (folder / ".git").exists():
            return folder
    return None


def _folders(project_dir: Path) -> list[Path]:
    """The project folder and its parents up to the repository root, root first."""
    root = repository_root(project_dir)
    if root is None:
        return [project_dir]
    chain = [project_dir]
    while chain[-1] != root:
        chain.append(chain[-1].parent)
    return list(reversed(chain))


def _imports(text: str) -> list[str]:
    """The `@path` references of `text` outside fenced and inline code."""
    found: list[str] = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            found += IMPORT.findall(INLINE_CODE.sub("", line))
    return found


def _read(path: Path) -> str | None:
    """The text of the regular file `path` (cut at MAX_FILE_CHARS), or None: FIFOs and devices are never opened."""
    try:
        data = read_regular_bytes(path, MAX_FILE_CHARS * 4 + 4)
    except OSError:  # missing, unreadable, or a FIFO, socket or device (SpecialFileError)
        return None
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= MAX_FILE_CHARS else text[:MAX_FILE_CHARS] + "\n[… truncated]"


def _load(path: Path, imported_from: Path | None, depth: int, seen: set[Path], out: list[MemoryFile]) -> None:
    real = Path(os.path.realpath(path))
    if real in seen or not is_regular_file(path):
        return
    text = _read(path)
    if text is None:
        return
    seen.add(real)
    out.append(MemoryFile(path, text, imported_from))
    if depth >= MAX_IMPORT_DEPTH:
        return
    for ref in _imports(text):
        target = Path(os.path.expanduser(ref)) if ref.startswith("~/") else path.parent / ref
        _load(Path(os.path.normpath(target)), path, depth + 1, seen, out)


def load_memory(project_dir: Path) -> list[MemoryFile]:
    """Every memory file for `project_dir`, general first: user config folder, repo root … project."""
    return load_all_memory(project_dir)[0]


def load_all_memory(project_dir: Path) -> tuple[list[MemoryFile], list[PathRule]]:
    """The memory files, and the rules whose `paths:` wait for a matching file."""
    project_dir = Path(os.path.abspath(project_dir))
    seen: set[Path] = set()
    out: list[MemoryFile] = []
    waiting: list[PathRule] = []
    folders = _folders(project_dir)
    (user_rules, user_base), *project_rules = rules_folders(folders)
    for name in MEMORY_NAMES:
        _load(user_config_dir() / name, None, 0, seen, out)
    _load(claude_user_dir() / "CLAUDE.md", None, 0, seen, out)  # Claude Code's user memory
    _load_rules(user_rules, user_base, seen, out, waiting)
    for folder, (rules, base) in zip(folders, project_rules):
        for name in SHARED_NAMES:
            _load(folder / name, None, 0, seen, out)
        _load_rules(rules, base, seen, out, waiting)
        for name in LOCAL_NAMES:
            _load(folder / name, None, 0, seen, out)
    return out, waiting


def load_nested_memory(folder: Path, seen: set[Path]) -> tuple[list[MemoryFile], list[PathRule]]:
    """A subfolder's memory, as Claude Code sends it once a file below it is read: its CLAUDE.md files and
    local ones, then its rules without `paths:`; its rules with `paths:` are returned to wait."""
    out: list[MemoryFile] = []
    waiting: list[PathRule] = []
    for name in (*SHARED_NAMES, *LOCAL_NAMES):
        _load(folder / name, None, 0, seen, out)
    _load_rules(folder.joinpath(*RULES_DIR), folder, seen, out, waiting)
    return out, waiting


def _load_rules(folder: Path, base: Path, seen: set[Path], out: list[MemoryFile], waiting: list[PathRule]) -> None:
    """A rules folder: rules without `paths:` through the memory reader (imports too), the others into `waiting`."""
    if not folder.is_dir():
        return
    for path in rule_files(folder):
        rule = read_rule(path)
        if rule is None:
            continue
        globs, body = rule
        if globs:
            waiting.append(PathRule(path, body, globs, base))
            continue
        at = len(out)
        _load(path, None, 0, seen, out)
        if len(out) > at and out[at].path == path:
            out[at] = MemoryFile(path, body, None)  # the rule's text as sent: its frontmatter left out


def framed(memory: MemoryFile) -> str:
    """One file as the system prompt carries it: its text inside a `<memory_file>` tag naming its path."""
    origin = f' imported_from="{memory.imported_from}"' if memory.imported_from else ""
    return f'<memory_file path="{memory.path}"{origin}>\n{memory.text.rstrip()}\n</memory_file>'


def _intro() -> str:
    return "\n\n".join(
        [
            MEMORY_HEADING,
            "The user's instruction files (AGENTS.md / CLAUDE.md and their imports). Follow them; "
            "later, more specific files take precedence over earlier ones.",
        ]
    )


def memory_layout(files: list[MemoryFile]) -> list[tuple[MemoryFile, str, int]]:
    """Each file, its framed text and the character where that text starts in memory_system_text(files)."""
    out: list[tuple[MemoryFile, str, int]] = []
    at = len(_intro())
    for memory in files:
        at += 2  # the blank line between parts
        text = framed(memory)
        out.append((memory, text, at))
        at += len(text)
    return out


def memory_system_text(files: list[MemoryFile]) -> str:
    """A system-prompt block that introduces each file with its path; '' when there are none."""
    if not files:
        return ""
    return "\n\n".join([_intro(), *(framed(f) for f in files)]) + "\n"
