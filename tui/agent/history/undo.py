"""Undo the file changes of the last turn that changed files (/undo).

Undo is a rewind of the code only (rewind.py) to the newest prompt checkpoint whose turn
changed files and was not undone yet: each file goes back to what it held before the
turn (files the turn created are deleted), and the checkpoint is marked undone, so a
second /undo goes one turn further back. Bash changes are undone too, except in a
project too big to scan, where the plan lists the turn's commands as not tracked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.text.wording import plural

from .rewind import FileStep, apply_code, code_steps

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

MAX_DIFF_LINES = 400


@dataclass
class FileRestore:
    """One file to put back: `previous` None means the turn created it and undo deletes it."""

    path: str
    previous: bytes | None
    current: bytes | None
    #: the path is now a symbolic link to this: undo replaces the link itself, never writes through it
    link: str = ""
    #: why undo will not touch the file (a folder that now leads outside the project through a link)
    problem: str = ""

    @property
    def action(self) -> str:
        if self.problem:
            return "refuse"
        if self.link:
            return "unlink" if self.previous is None else "replace link"
        if self.previous is None:
            return "delete" if self.current is not None else "nothing"
        return "restore" if self.current != self.previous else "unchanged"

    def diff(self, project_dir: Path | None = None) -> str:
        """A unified diff from what is on disk now to what undo will write."""
        name = _display(self.path, project_dir)
        old = _text(self.current)
        new = _text(self.previous)
        import difflib

        lines = list(
            difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True), f"{name} (now)", f"{name} (after undo)"
            )
        )
        if len(lines) > MAX_DIFF_LINES:
            lines = [*lines[:MAX_DIFF_LINES], f"… {plural(len(lines) - MAX_DIFF_LINES, 'more diff line')}\n"]
        return "".join(lines)


@dataclass
class UndoPlan:
    turn_id: int | None
    files: list[FileRestore] = field(default_factory=list)
    #: Bash commands the turn ran whose effects were not tracked (a project too big to scan)
    bash_commands: list[str] = field(default_factory=list)
    state: Any = None
    project_dir: Path | None = None
    checkpoints: Any = None
    steps: list[FileStep] = field(default_factory=list)
    checkpoint: int = 0

    @property
    def empty(self) -> bool:
        return not self.files


def _text(data: bytes | None) -> str:
    if data is None:
        return ""
    if b"\0" in data[:8192]:
        return f"(binary, {plural(len(data), 'byte')})\n"
    return data.decode("utf-8", errors="replace")


def _display(path: str, project_dir: Path | None) -> str:
    if project_dir is not None:
        try:
            return os.path.relpath(path, project_dir) if Path(path).is_relative_to(project_dir) else path
        except ValueError:
            return path
    return path


def _turn_messages(messages: list[dict[str, Any]], turns_back: int) -> list[dict[str, Any]]:
    """The messages of the turn `turns_back` turns before the newest (0 = the newest)."""
    starts = [
        i
        for i, m in enumerate(messages)
        if m.get("role") == "user"
        and any(isinstance(b, dict) and b.get("type") == "text" for b in (m.get("content") or ()))
    ]
    if len(starts) <= turns_back:
        return []
    begin = starts[-1 - turns_back]
    end = starts[-turns_back] if turns_back else len(messages)
    return messages[begin:end]


def bash_commands(messages: list[dict[str, Any]]) -> list[str]:
    return [
        str((b.get("input") or {}).get("command", ""))
        for m in messages
        if m.get("role") == "assistant"
        for b in m.get("content", ())
        if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Bash"
    ]


def plan_undo(session: AgentSession) -> UndoPlan:
    """What /undo would do now: the newest changed turn's files with their diffs (and untracked Bash)."""
    cps = session.checkpoints
    project = session.options.project_dir
    own = {c.checkpoint for c in cps.changes if c.by != "rewind"}
    points = [p for p in cps.all_prompts() if p.id in own and p.id not in cps.undone]
    if not points:
        untracked = bash_commands(_turn_messages(session.messages, 0)) if cps.current in cps.untracked else []
        return UndoPlan(None, state=session.state, project_dir=project, bash_commands=untracked, checkpoints=cps)
    point = points[-1]
    steps = code_steps(cps, point.pos)
    files = [
        FileRestore(s.path, s.data if s.target is not None else None, s.current, s.link, s.blocked)
        for s in steps
        if not s.problem
    ]
    turns_back = max(session.turn_count - point.turn, 0)
    untracked = bash_commands(_turn_messages(session.messages, turns_back)) if point.id in cps.untracked else []
    return UndoPlan(point.turn, files, untracked, session.state, project, cps, steps, point.id)


def apply_undo(plan: UndoPlan) -> list[str]:
    """Restore the plan's files; one line per file saying what happened."""
    if plan.checkpoints is None:
        return []
    created = {s.path for s in plan.steps if s.target is None}
    result = apply_code(plan.checkpoints, plan.steps, overwrite=True, state=plan.state)
    plan.checkpoints.mark_undone(plan.checkpoint)
    lines = []
    for line, step in zip(result.lines, list(plan.steps), strict=False):
        if step.path in created and line.startswith("removed ") and not line.startswith("removed the link "):
            line = f"deleted {line[len('removed ') :]} (the turn created it)"
        lines.append(line)
    return lines
