"""Facts about where the agent runs, for the environment block of the system prompt."""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Sequence
from pathlib import Path

from tui.config.special_files import read_regular_text


def find_git_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds `.git`."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def git_branch(root: Path) -> str | None:
    """The checked-out branch, read from .git/HEAD without running git (fast)."""
    git = root / ".git"
    try:
        if git.is_file():  # a worktree or submodule: "gitdir: <path>"
            target = read_regular_text(git).split(":", 1)[1].strip()
            git = (root / target).resolve()
        head = read_regular_text(git / "HEAD").strip()  # a FIFO here must not stop the start
    except (OSError, IndexError, UnicodeDecodeError):
        return None
    if head.startswith("ref: refs/heads/"):
        return head[len("ref: refs/heads/") :]
    return f"detached at {head[:12]}"


def environment_text(
    project_dir: Path,
    model: str,
    today: _dt.date | None = None,
    *,
    extra_dirs: Sequence[Path] = (),
    approvals: str = "",
) -> str:
    """The environment block: working directory (and added ones, as Claude Code lists them), platform, date, git
    state, and who approves the model's calls (approvals.py)."""
    root = find_git_root(project_dir)
    if root is None:
        git_line = "Is a git repository: no"
    else:
        branch = git_branch(root) or "unknown"
        git_line = f"Is a git repository: yes (root {root}, branch {branch})"
    day = (today or _dt.date.today()).isoformat()
    added = f"Additional working directories: {', '.join(map(str, extra_dirs))}\n" if extra_dirs else ""
    return (
        "# Environment\n"
        f"Working directory: {project_dir}\n"
        f"{added}"
        f"{git_line}\n"
        f"Platform: {os.uname().sysname.lower()} ({os.uname().release})\n"
        f"Shell: /bin/bash\n"
        f"Today's date: {day}\n"
        f"Model: {model}" + (f"\n{approvals}" if approvals else "")
    )
