"""Memory files: AGENTS.md, CLAUDE.md and `.claude/rules/*.md` that go into the system prompt.

Read from the user's config folder (then Claude Code's `~/.claude/CLAUDE.md` and `~/.claude/rules/`),
then from the repository root down to the project folder (more specific files come later, so they
read as overriding); in each folder its `.claude/CLAUDE.md` and `.claude/rules/` come after its
CLAUDE.md, before the `*.local.md` files, as Claude Code 2.1.332 orders them. Rules with `paths:`
and a subfolder's memory wait for a matching file (tui/config/memory_rules.py). `@path` lines
outside code fences import other files (relative to the importing file, `~/` allowed),
at most five levels deep; a file already loaded is never loaded twice.

Every file, the ones found in the folders and the imported ones, first passes an `ImportCheck`: the
session's follows the Read tool's rules (tui/tools/attachments.py: deny rules and `sandbox.deny_read`
after links are resolved, nothing outside the project from an untrusted folder, an outside file only
after the per-project yes, never in `-p`). Without one, nothing is read from outside the project (the
user config folder counts for the user's own files). A file kept out is a `SkippedImport` with its
sentence.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tui.config.memory_rules import RULES_DIR, PathRule, claude_user_dir, read_rule, rule_files, rules_folders
from tui.config.paths import user_config_dir, user_settings_file
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


@dataclass(frozen=True)
class SkippedImport:
    """A memory file or `@path` import that was kept out, and the sentence saying why.

    `external`: outside the project, and the project's yes to outside imports would let it in.
    """

    path: Path
    imported_from: Path | None
    reason: str
    external: bool = False

    @property
    def notice(self) -> str:
        """One sentence for the user."""
        origin = f" (imported by {self.imported_from})" if self.imported_from else ""
        return f"Memory file {self.path}{origin} was not loaded: {self.reason}"


#: decides one memory file before it is read: (path as written, the file importing it or None, the folder
#: whose memory file started the chain) -> None to load it, else why not. That folder counts as inside
#: besides the project (a repository root above it); the user config folder's files are the user's own.
ImportCheck = Callable[[Path, "Path | None", Path], "SkippedImport | None"]


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def inside_only(project_dir: Path) -> ImportCheck:
    """The check without a session: a file loads only when it and where its links lead are in the project
    or the folder that started the chain (the user config folder for the user's own files)."""

    def check(path: Path, imported_from: Path | None, origin: Path) -> SkippedImport | None:
        roots = [project_dir, origin]
        roots += [Path(os.path.realpath(r)) for r in roots]
        real = Path(os.path.realpath(path))
        if any(_inside(path, r) for r in roots) and any(_inside(real, r) for r in roots):
            return None
        where = f"{path} is outside the project" + (f" (it links to {real})" if real != path else "")
        return SkippedImport(path, imported_from, f"{where}.", external=True)

    return check


def external_imports_answer(project_dir: Path) -> bool | None:
    """The user's answer to "allow memory imports from outside this project?" (None: not asked yet).

    Kept in the user settings as `[projects."<dir>"] memory_external_imports`, where a folder cannot set it.
    """
    from tui.config.rule_files import read_settings_file

    try:
        projects = read_settings_file(user_settings_file()).get("projects")
    except (OSError, ValueError):
        return None
    if not isinstance(projects, dict):
        return None
    for key in dict.fromkeys([str(project_dir), os.path.realpath(project_dir)]):
        table = projects.get(key)
        if isinstance(table, dict) and isinstance(table.get(EXTERNAL_KEY), bool):
            return bool(table[EXTERNAL_KEY])
    return None


def save_external_imports_answer(project_dir: Path, allowed: bool) -> Path:
    """Remember the answer for `project_dir` in the user settings; returns the file written."""
    from tui.config.rule_files import set_project_value

    return set_project_value(user_settings_file(), Path(os.path.realpath(project_dir)), EXTERNAL_KEY, allowed)


EXTERNAL_KEY = "memory_external_imports"


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


@dataclass
class MemoryLoad:
    """What one load found: the files loaded, the ones kept out, and the check every file passes first."""

    check: ImportCheck
    files: list[MemoryFile]
    skipped: list[SkippedImport]
    #: where the loaded files' links lead, and the paths (as written) kept out
    seen: set[Path] = field(default_factory=set)
    refused: set[Path] = field(default_factory=set)
    #: `.claude/rules` files with `paths:`, waiting for a matching file
    waiting: list[PathRule] = field(default_factory=list)


def load_file(path: Path, imported_from: Path | None, depth: int, load: MemoryLoad, origin: Path) -> None:
    """Load `path` (a memory or rules file, or an import) and what it imports, each through `load.check`;
    `origin` is the folder whose file started the chain.

    Every loader of memory files goes through here, so the import rules hold for all of them.
    """
    real = Path(os.path.realpath(path))
    if real in load.seen or path in load.refused or not is_regular_file(path):
        return
    skipped = load.check(path, imported_from, origin)
    if skipped is not None:
        load.refused.add(path)
        load.skipped.append(skipped)
        return
    text = _read(path)
    if text is None:
        return
    load.seen.add(real)
    load.files.append(MemoryFile(path, text, imported_from))
    if depth >= MAX_IMPORT_DEPTH:
        return
    for ref in _imports(text):
        target = Path(os.path.expanduser(ref)) if ref.startswith("~/") else path.parent / ref
        load_file(Path(os.path.normpath(target)), path, depth + 1, load, origin)


def load_memory_checked(project_dir: Path, check: ImportCheck | None = None) -> MemoryLoad:
    """Every memory file for `project_dir`, general first (user config folder, Claude Code's user folder, repo
    root … project), each passing `check` (inside_only when None), with the ones it kept out and the rules
    with `paths:` that wait."""
    project_dir = Path(os.path.abspath(project_dir))
    load = MemoryLoad(check or inside_only(project_dir), [], [])
    folders = _folders(project_dir)
    (user_rules, user_base), *project_rules = rules_folders(folders)
    for name in MEMORY_NAMES:
        load_file(user_config_dir() / name, None, 0, load, user_config_dir())
    claude_dir = claude_user_dir()
    load_file(claude_dir / "CLAUDE.md", None, 0, load, claude_dir)  # Claude Code's user memory
    _load_rules(user_rules, user_base, load, claude_dir)
    for folder, (rules, base) in zip(folders, project_rules):
        for name in SHARED_NAMES:
            load_file(folder / name, None, 0, load, folder)
        _load_rules(rules, base, load, folder)
        for name in LOCAL_NAMES:
            load_file(folder / name, None, 0, load, folder)
    return load


def load_memory(project_dir: Path, check: ImportCheck | None = None) -> list[MemoryFile]:
    """The memory files load_memory_checked loads."""
    return load_memory_checked(project_dir, check).files


def load_nested_memory(folder: Path, load: MemoryLoad) -> tuple[list[MemoryFile], list[PathRule]]:
    """A subfolder's memory, as Claude Code sends it once a file below it is read: its CLAUDE.md files and
    local ones, then its rules without `paths:`; its rules with `paths:` are returned to wait. Each file
    passes `load`'s check; what `load` loaded already is never loaded again."""
    at, waiting_at = len(load.files), len(load.waiting)
    for name in (*SHARED_NAMES, *LOCAL_NAMES):
        load_file(folder / name, None, 0, load, folder)
    _load_rules(folder.joinpath(*RULES_DIR), folder, load, folder)
    return load.files[at:], load.waiting[waiting_at:]


def _load_rules(folder: Path, base: Path, load: MemoryLoad, origin: Path) -> None:
    """A rules folder: each rule passes the check first; those without `paths:` load through load_file (imports
    too, frontmatter left out of the text sent), the others wait in `load.waiting`."""
    if not folder.is_dir():
        return
    for path in rule_files(folder):
        if Path(os.path.realpath(path)) in load.seen or path in load.refused:
            continue
        skipped = load.check(path, None, origin)
        if skipped is not None:
            load.refused.add(path)
            load.skipped.append(skipped)
            continue
        rule = read_rule(path)
        if rule is None:
            continue
        globs, body = rule
        if globs:
            load.waiting.append(PathRule(path, body, globs, base))
            continue
        at = len(load.files)
        load_file(path, None, 0, load, origin)
        if len(load.files) > at and load.files[at].path == path:
            load.files[at] = MemoryFile(path, body, None)  # the rule's text as sent: its frontmatter left out


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
