"""Claude Code's permission rule grammar: `Tool` or `Tool(specifier)`.

Bash specifiers are command patterns with `*` wildcards (a trailing ` *` also matches
the bare command; the legacy `:*` suffix means the same); Read/Edit specifiers are
gitignore patterns anchored by their prefix (`//abs`, `~/home`, `/settings-root`,
`relative`). `Edit` rules cover every editing tool; `Read` rules cover Glob and Grep.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlparse

from tui.config.bash_lexer import Unparseable, lex
from tui.config.lean_dataclass import lean_dataclass

if TYPE_CHECKING:
    import pathspec

RuleKind = Literal["allow", "ask", "deny"]
RULE_KINDS: tuple[RuleKind, ...] = ("allow", "ask", "deny")
FILE_READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
RULE_SHAPE = re.compile(r"^\s*([A-Za-z0-9_*.\-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


@dataclass(frozen=True)
class Rule:
    """A parsed rule: the tool name (may hold `*` for deny/ask) and the optional specifier."""

    tool: str
    specifier: str | None

    @classmethod
    def parse(cls, text: str) -> Rule:
        """Parse `Tool` / `Tool(specifier)`; raises ValueError with a sentence a user can act on."""
        m = RULE_SHAPE.match(text)
        if not m:
            raise ValueError(f"`{text}` is not a rule; write `Tool` or `Tool(specifier)`, e.g. `Bash(npm test *)`.")
        spec = m.group(2)
        if spec is not None:
            spec = spec.strip()
            if spec in ("", "*") and m.group(1) != "WebFetch":
                spec = None  # `Bash()` and `Bash(*)` mean every command
        return cls(m.group(1), spec)

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"


@lean_dataclass
class RuleSource:
    """One rule as loaded: its kind, the file (or flag) it came from, and whether it counts.

    `counts` is False for allow rules of a folder the user has not trusted; such rules are
    listed on /permissions but never allow anything. `base_dir` anchors `/path` specifiers.
    """

    rule: str
    kind: RuleKind
    source: str
    counts: bool = True
    base_dir: Path | None = None
    parsed: Rule | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.parsed is None:
            self.parsed = Rule.parse(self.rule)


def tool_matches(rule: Rule, tool_name: str, tool_kind: str, kind: RuleKind) -> bool:
    """Whether `rule` names this tool (directly, through Edit/Read coverage, or a deny/ask glob)."""
    if rule.tool == tool_name:
        return True
    if rule.tool.startswith("mcp__") and rule.tool.count("__") == 1 and tool_name.startswith(rule.tool + "__"):
        return True  # `mcp__server`: every tool of that server, as Claude Code reads it
    if rule.tool == "Edit" and tool_kind == "edit":
        return True
    if rule.tool == "Read" and tool_name in FILE_READ_TOOLS:
        return True
    if rule.tool == "Read" and kind == "deny" and tool_kind == "edit":
        return True  # a Read deny also keeps edits off that path
    if rule.tool == "Task" and tool_name == "Agent":  # Claude Code's old name for Agent: its rules still count
        return True
    if "*" in rule.tool:
        if kind == "allow" and not rule.tool.startswith("mcp__"):
            return False
        return fnmatch.fnmatchcase(tool_name, rule.tool)
    return False


# -- Bash ---------------------------------------------------------------------------------
@lru_cache(maxsize=512)
def _command_pattern(specifier: str) -> re.Pattern[str]:
    spec = specifier.strip()
    if spec.endswith(":*"):
        spec = spec[:-2].rstrip() + " *"
    try:
        words = [t.value for t in lex(spec).tokens]
        normalized = " ".join(words) if words else spec
    except Unparseable:
        normalized = spec
    optional_tail = normalized.endswith(" *")
    body = normalized[:-2] if optional_tail else normalized
    regex = ".*".join(re.escape(part) for part in body.split("*"))
    if optional_tail:
        regex += "(?: .*)?"
    return re.compile(regex, re.DOTALL)


def command_matches(specifier: str | None, command_text: str) -> bool:
    """Whether a Bash specifier matches one simple command (already unwrapped, words joined)."""
    if specifier is None:
        return True
    return _command_pattern(specifier).fullmatch(command_text) is not None


# -- paths --------------------------------------------------------------------------------
@lru_cache(maxsize=512)
def _spec(pattern: str) -> pathspec.GitIgnoreSpec:
    import pathspec  # ~15-25 ms of imports: only once a path rule is matched, not at start-up

    return pathspec.GitIgnoreSpec.from_lines([pattern])


def _root_and_pattern(specifier: str, base_dir: Path, project_dir: Path) -> tuple[Path, str]:
    if specifier.startswith("//"):
        return Path("/"), "/" + specifier[2:].lstrip("/")
    if specifier.startswith("~/") or specifier == "~":
        return Path.home(), "/" + specifier[2:]
    if specifier.startswith("/"):
        return base_dir, specifier
    if specifier.startswith("./"):
        return project_dir, "/" + specifier[2:]
    return project_dir, specifier


def path_matches(specifier: str | None, path: Path, base_dir: Path, project_dir: Path) -> bool:
    """Whether a gitignore-style path specifier matches the absolute `path`."""
    if specifier is None:
        return True
    root, pattern = _root_and_pattern(specifier, base_dir, project_dir)
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        return False
    if rel in ("", "."):
        candidates = ["./"]
    else:
        candidates = [rel]
        if path.is_dir():
            candidates.append(rel + "/")
    if pattern in ("*", "**", "/**"):
        return True
    spec = _spec(pattern)
    return any(spec.match_file(c) for c in candidates if c != "./")


def path_variants(path: Path) -> list[Path]:
    """The lexical path and, when different, where its symlinks really lead."""
    lexical = Path(os.path.normpath(path))
    real = Path(os.path.realpath(lexical))
    return [lexical] if real == lexical else [lexical, real]


# -- other tools ---------------------------------------------------------------------------
def target_matches(specifier: str | None, target: str | None) -> bool:
    """Generic specifier match for tools without their own grammar (WebFetch domains, globs)."""
    if specifier is None:
        return True
    if target is None:
        return False
    if specifier.startswith("domain:"):
        want = specifier[len("domain:") :].lower()
        host = (urlparse(target).hostname or target).lower()
        if want == "*":
            return True
        if want.startswith("*."):
            return host.endswith(want[1:])
        return host == want
    return fnmatch.fnmatchcase(target, specifier)
