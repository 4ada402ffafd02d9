"""Instructions that join when a file is read or edited, as Claude Code 2.1.332 sends them: once each, as a
`<system-reminder>Contents of PATH:` text block after the tool results.

- `.claude/rules/*.md` with `paths:` globs, once a matching file is read or edited;
- the memory of a subfolder of the project (its CLAUDE.md, `.claude/CLAUDE.md`, CLAUDE.local.md, then its
  `.claude/rules`), once a file below it is, folder by folder from the top.

The rules waiting are read with the memory files (tui/config/memory.py); what was sent shows in /memory
and the context map. Each file sent fires the `InstructionsLoaded` hook (load_reason `path_glob_match` or
`nested_traversal`), as in Claude Code.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.config.memory import MemoryFile, MemoryLoad, load_nested_memory
from tui.config.memory_rules import PATH_TOOLS, PathRule, matches, reminder_text

if TYPE_CHECKING:
    from tui.agent.session import AgentSession


class PathRules:
    """The instructions of one session that wait for a file, and those already sent."""

    def __init__(self) -> None:
        self.waiting: list[PathRule] = []
        #: what was sent so far, in order, as memory files (for /memory and the context map)
        self.sent: list[MemoryFile] = []
        #: how each sent file came: (load_reason, its globs)
        self.reasons: dict[Path, tuple[str, tuple[str, ...]]] = {}
        self.project_dir: Path | None = None
        #: the session's memory load: its check (the Read tool's rules) and what it loaded, for subfolders' files
        self._load: MemoryLoad | None = None
        self._visited: set[Path] = set()
        self._lock = threading.Lock()

    def arm(self, load: MemoryLoad, project_dir: Path) -> None:
        """The rules `load` found waiting; whatever was sent already stays sent (once per session)."""
        done = {m.path for m in self.sent}
        with self._lock:
            self.project_dir = Path(os.path.abspath(project_dir))
            self.waiting = [rule for rule in load.waiting if rule.path not in done]
            load.seen |= {Path(os.path.realpath(m.path)) for m in self.sent}
            self._load = load

    def take(self, tool_name: str, file_path: Path) -> list[MemoryFile]:
        """What reading or editing `file_path` with `tool_name` brings in, in the order Claude Code sends it."""
        if tool_name not in PATH_TOOLS or self.project_dir is None or self._load is None:
            return []
        with self._lock:
            out = self._matching(self.waiting, file_path)
            for folder in self._new_folders(file_path):
                files, waiting = load_nested_memory(folder, self._load)
                out += [self._sent(m, "nested_traversal", ()) for m in files]
                out += self._matching(waiting, file_path)
                self.waiting += [rule for rule in waiting if rule.path not in self.reasons]
            return out

    def _matching(self, rules: list[PathRule], file_path: Path) -> list[MemoryFile]:
        hit = [rule for rule in rules if rule.path not in self.reasons and matches(rule, file_path)]
        self.waiting = [rule for rule in self.waiting if rule not in hit]
        if self._load is not None:
            self._load.seen |= {Path(os.path.realpath(rule.path)) for rule in hit}
        return [self._sent(MemoryFile(rule.path, rule.text), "path_glob_match", rule.globs) for rule in hit]

    def _sent(self, memory: MemoryFile, reason: str, globs: tuple[str, ...]) -> MemoryFile:
        self.sent.append(memory)
        self.reasons[memory.path] = (reason, globs)
        return memory

    def _new_folders(self, file_path: Path) -> list[Path]:
        """The project's subfolders from the top down to `file_path`'s folder not visited yet (none outside it)."""
        assert self.project_dir is not None
        lexical = Path(os.path.normpath(file_path))
        for path, base in (
            (lexical, self.project_dir),
            (Path(os.path.realpath(lexical)), Path(os.path.realpath(self.project_dir))),
        ):
            try:
                parts = path.parent.relative_to(base).parts
            except ValueError:
                continue
            folders = [base.joinpath(*parts[: i + 1]) for i in range(len(parts))]
            fresh = [f for f in folders if f not in self._visited and f.is_dir()]
            self._visited.update(fresh)
            return fresh
        return []


@dataclass(frozen=True)
class LoadedAfterTool:
    """A file sent after a tool result, as the InstructionsLoaded hook describes it (tui/hooks/instructions.py)."""

    path: Path
    imported_from: Path | None
    load_reason: str
    globs: tuple[str, ...]
    trigger_file_path: str


def _loaded(memory: MemoryFile, reason: tuple[str, tuple[str, ...]], target: Path) -> LoadedAfterTool:
    return LoadedAfterTool(memory.path, memory.imported_from, reason[0], reason[1], str(target))


def rule_blocks(session: AgentSession, tool_name: str, tool_input: Any, resolve: Any) -> list[dict[str, Any]]:
    """The reminder blocks a successful call of `tool_name` brings in (each fires InstructionsLoaded)."""
    rules: PathRules | None = getattr(session, "path_rules", None)
    if rules is None or tool_name not in PATH_TOOLS or not isinstance(tool_input, dict):
        return []
    raw = tool_input.get("file_path") or tool_input.get("notebook_path")
    if not isinstance(raw, str) or not raw:
        return []
    try:
        target = Path(resolve(raw))
    except Exception:  # a path the tool refused: nothing was read
        return []
    sent = rules.take(tool_name, target)
    hooks = getattr(session, "hooks", None)
    if sent and hooks is not None and hasattr(hooks, "instructions_loaded"):
        hooks.instructions_loaded([_loaded(m, rules.reasons[m.path], target) for m in sent])
    return [{"type": "text", "text": reminder_text(m.path, m.text)} for m in sent]
