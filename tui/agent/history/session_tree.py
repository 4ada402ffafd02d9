"""The saved sessions of a project as a tree: forks under the session they came from, rewind branches under theirs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .checkpoints import MANIFEST_SUFFIX, Branch, Checkpoints
from .resume import SessionInfo


@dataclass
class TreeRow:
    """One line of /resume: a session (with its depth among forks) or a branch a rewind left in it."""

    info: SessionInfo
    depth: int
    branch: Branch | None = None


def branches_of(info: SessionInfo, project_dir: Path) -> list[Branch]:
    """The branches rewinds left in a session (its checkpoint log, beside its transcript)."""
    folder = info.path.parent / "checkpoints"
    if not (folder / f"{info.id}{MANIFEST_SUFFIX}").is_file():
        return []
    return Checkpoints(folder, info.id, project_dir).branches


def session_tree(sessions: list[SessionInfo], project_dir: Path) -> list[TreeRow]:
    """Sessions in the given order (newest first), each followed by its branches and then its forks."""
    ids = {s.id for s in sessions}
    children: dict[str, list[SessionInfo]] = {}
    for s in sessions:
        if s.forked_from in ids and s.forked_from != s.id:
            children.setdefault(s.forked_from, []).append(s)
    rows: list[TreeRow] = []
    seen: set[str] = set()

    def add(info: SessionInfo, depth: int) -> None:
        if info.id in seen:
            return
        seen.add(info.id)
        rows.append(TreeRow(info, depth))
        rows.extend(TreeRow(info, depth + 1, b) for b in branches_of(info, project_dir))
        for child in children.get(info.id, ()):
            add(child, depth + 1)

    for s in sessions:
        if s.forked_from not in ids or s.forked_from == s.id:
            add(s, 0)
    for s in sessions:  # a cycle of forks (hand-edited files): still listed
        add(s, 0)
    return rows
