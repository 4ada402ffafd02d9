"""Rules with `paths:` (`.claude/rules/*.md`): sent once, after the result of the first tool that reads or edits
a matching file, as Claude Code 2.1.332 sends them (a `<system-reminder>` text block after the tool results).

The rules waiting are read with the memory files (tui/config/memory.py); the ones sent show in /memory
and the context map beside them. Each one sent fires the `InstructionsLoaded` hook (load_reason
`path_glob_match`), as in Claude Code.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.config.memory import MemoryFile
from tui.config.memory_rules import PATH_TOOLS, PathRule, claude_user_dir, matches, reminder_text

if TYPE_CHECKING:
    from .session import AgentSession


class PathRules:
    """The rules of one session that wait for a file, and those already sent."""

    def __init__(self) -> None:
        self.waiting: list[PathRule] = []
        #: the rules sent so far, in order, as memory files (for /memory and the context map)
        self.sent: list[MemoryFile] = []
        self._lock = threading.Lock()

    def arm(self, waiting: list[PathRule]) -> None:
        """The rules read with the memory files; a rule sent already stays sent (once per session)."""
        done = {m.path for m in self.sent}
        with self._lock:
            self.waiting = [rule for rule in waiting if rule.path not in done]

    def take(self, tool_name: str, file_path: Path) -> list[PathRule]:
        """The waiting rules `file_path` matches when `tool_name` reads or edits files; they leave the queue."""
        if tool_name not in PATH_TOOLS or not self.waiting:
            return []
        with self._lock:
            hit = [rule for rule in self.waiting if matches(rule, file_path)]
            if hit:
                self.waiting = [rule for rule in self.waiting if rule not in hit]
                self.sent += [MemoryFile(rule.path, rule.text) for rule in hit]
        return hit

    @property
    def sent_text(self) -> str:
        """Everything sent so far, for the context map's count."""
        return "".join(m.text for m in self.sent)


def rule_blocks(session: AgentSession, tool_name: str, tool_input: Any, resolve: Any) -> list[dict[str, Any]]:
    """The reminder blocks of the rules a successful call of `tool_name` brings in (fires InstructionsLoaded)."""
    rules: PathRules | None = getattr(session, "path_rules", None)
    if rules is None or not rules.waiting or not isinstance(tool_input, dict):
        return []
    raw = tool_input.get("file_path") or tool_input.get("notebook_path")
    if not isinstance(raw, str) or not raw:
        return []
    try:
        target = Path(resolve(raw))
    except Exception:  # a path the tool refused: nothing was read
        return []
    hit = rules.take(tool_name, target)
    hooks = getattr(session, "hooks", None)
    for rule in hit:
        if hooks is not None:
            fields = {
                "file_path": str(rule.path),
                "memory_type": "User" if rule.path.is_relative_to(claude_user_dir()) else "Project",
                "load_reason": "path_glob_match",
                "globs": list(rule.globs),
                "trigger_file_path": str(target),
            }
            hooks.fire("InstructionsLoaded", "path_glob_match", fields)
    return [{"type": "text", "text": reminder_text(rule)} for rule in hit]
