"""Undo the file changes of the last turn that changed files (/undo).

Edit and Write push (turn id, path, previous bytes or None) onto
`SessionState.file_backups` before each write. Undo takes the newest turn in that list,
restores each file to what it held before the turn (deleting files the turn created)
and drops those backups, so a second /undo goes one turn further back. Bash commands
change files too, but nothing records what they did: they are listed as not tracked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from tui.wording import plural

from tui.config.special_files import read_regular_bytes

if TYPE_CHECKING:
    from tui.tools.base import SessionState

    from .session import AgentSession

MAX_DIFF_LINES = 400


@dataclass
class FileRestore:
    """One file to put back: `previous` None means the turn created it and undo deletes it."""

    path: str
    previous: bytes | None
    current: bytes | None

    @property
    def action(self) -> str:
        if self.previous is None:
            return "delete" if self.current is not None else "nothing"
        return "restore" if self.current != self.previous else "unchanged"

    def diff(self, project_dir: Path | None = None) -> str:
        """A unified diff from what is on disk now to what undo will write."""
        name = _display(self.path, project_dir)
        old = _text(self.current)
        new = _text(self.previous)
        import difflib

        lines = list(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                          f"{name} (now)", f"{name} (after undo)"))
        if len(lines) > MAX_DIFF_LINES:
            lines = [*lines[:MAX_DIFF_LINES], f"… {plural(len(lines) - MAX_DIFF_LINES, 'more diff line')}\n"]
        return "".join(lines)


@dataclass
class UndoPlan:
    turn_id: int | None
    files: list[FileRestore] = field(default_factory=list)
    #: Bash commands the turn ran: their effects are not tracked
    bash_commands: list[str] = field(default_factory=list)
    state: Any = None
    project_dir: Path | None = None

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


def _read(path: str) -> bytes | None:
    try:
        return read_regular_bytes(path)  # a FIFO put in the file's place must not block the undo
    except OSError:
        return None


def _turn_messages(messages: list[dict[str, Any]], turns_back: int) -> list[dict[str, Any]]:
    """The messages of the turn `turns_back` turns before the newest (0 = the newest)."""
    starts = [i for i, m in enumerate(messages) if m.get("role") == "user" and any(
        isinstance(b, dict) and b.get("type") == "text" for b in (m.get("content") or ()))]
    if len(starts) <= turns_back:
        return []
    begin = starts[-1 - turns_back]
    end = starts[-turns_back] if turns_back else len(messages)
    return messages[begin:end]


def bash_commands(messages: list[dict[str, Any]]) -> list[str]:
    return [str((b.get("input") or {}).get("command", "")) for m in messages if m.get("role") == "assistant"
            for b in m.get("content", ()) if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Bash"]


def plan_undo(session: AgentSession) -> UndoPlan:
    """What /undo would do now: the newest turn's files with their diffs, and its Bash commands."""
    state: SessionState = session.state
    with state.lock:
        backups = list(state.file_backups)
    if not backups:
        return UndoPlan(None, state=state, project_dir=session.options.project_dir,
                        bash_commands=bash_commands(_turn_messages(session.messages, 0)))
    turn_id = max(t for t, _, _ in backups)
    first_by_path: dict[str, bytes | None] = {}
    for t, path, previous in backups:  # oldest first: the first backup of a path is its state before the turn
        if t == turn_id and path not in first_by_path:
            first_by_path[path] = previous
    files = [FileRestore(path, previous, _read(path)) for path, previous in first_by_path.items()]
    turns_back = max(session.turn_count - turn_id, 0)
    return UndoPlan(turn_id, files, bash_commands(_turn_messages(session.messages, turns_back)), state,
                    session.options.project_dir)


def apply_undo(plan: UndoPlan) -> list[str]:
    """Restore the plan's files (newest change first); one line per file saying what happened."""
    from tui.tools.fileio import open_for_write
    from tui.tools.freshness import forget_read

    done: list[str] = []
    for item in plan.files:
        name = _display(item.path, plan.project_dir)
        path = Path(item.path)
        try:
            if item.previous is None:
                if path.exists():
                    path.unlink()
                    done.append(f"deleted {name} (the turn created it)")
            elif item.current != item.previous:
                path.parent.mkdir(parents=True, exist_ok=True)
                with os.fdopen(open_for_write(path), "wb") as f:  # refuses a FIFO instead of blocking
                    f.write(item.previous)
                done.append(f"restored {name}")
            else:
                done.append(f"{name} already held its earlier content")
        except OSError as exc:
            done.append(f"could not restore {name}: {exc.strerror or exc}")
            continue
        if plan.state is not None:
            forget_read(plan.state, item.path)  # the model must Read it again before editing
    if plan.state is not None and plan.turn_id is not None:
        with plan.state.lock:
            plan.state.file_backups[:] = [b for b in plan.state.file_backups if b[0] != plan.turn_id]
    return done
