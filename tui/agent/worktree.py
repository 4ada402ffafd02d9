"""`isolation: "worktree"`: a subagent works in a temporary git worktree of the project.

Every git call goes through `run_git` (the repository's own programs neutralised). When the
subagent ends, its changes are committed on the worktree's branch and the diff is returned;
a worktree with no change is removed together with its branch.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tui.agent.api.environment import find_git_root
from tui.config.git_safety import run_git

#: the largest diff kept for the tool result and the screen (the branch keeps all of it)
MAX_DIFF_CHARS = 20_000
IDENTITY = ["-c", "user.name=agent-tui", "-c", "user.email=agent-tui@localhost", "-c", "commit.gpgsign=false"]


class WorktreeError(RuntimeError):
    """The worktree could not be made; `str()` is the sentence for the model."""


@dataclass
class Worktree:
    """A temporary worktree on its own branch; `project_dir` is the project's folder inside it."""

    repo: Path
    path: Path
    branch: str
    project_dir: Path


@dataclass
class WorktreeResult:
    diff: str
    kept: bool
    branch: str | None
    path: str | None


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        done = run_git(args, cwd, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        raise WorktreeError(f"git {args[0]} failed: {exc}") from None
    if done.returncode != 0:
        raise WorktreeError(f"git {args[0]} failed: {(done.stderr or done.stdout).strip()[:300]}")
    return done


def create_worktree(project_dir: Path, agent_id: str) -> Worktree:
    """A new worktree of the repository holding `project_dir`, checked out at HEAD on `agent-tui/<agent_id>`."""
    repo = find_git_root(project_dir)
    if repo is None:
        raise WorktreeError('isolation "worktree" needs a git repository, and the project is not in one.')
    _git(["rev-parse", "--verify", "HEAD"], repo)  # a repository without a commit has nothing to check out
    path = Path(tempfile.mkdtemp(prefix=f"agent-tui-{agent_id}-"))
    branch = f"agent-tui/{agent_id}"
    try:
        _git(["worktree", "add", "-b", branch, str(path), "HEAD"], repo)
    except WorktreeError:
        shutil.rmtree(path, ignore_errors=True)
        raise
    return Worktree(repo, path, branch, path / project_dir.resolve().relative_to(repo.resolve()))


def finish_worktree(tree: Worktree, message: str) -> WorktreeResult:
    """Commit what the subagent changed on its branch and return the diff; remove the worktree if unchanged."""
    try:
        _git(["add", "-A"], tree.path)
        diff = _git(["diff", "--cached", "--no-color", "HEAD"], tree.path).stdout
        if diff.strip():
            _git([*IDENTITY, "commit", "-q", "--no-verify", "-m", message], tree.path)
            return WorktreeResult(_cut(diff), True, tree.branch, str(tree.path))
    except WorktreeError as exc:
        return WorktreeResult(f"(the worktree's changes could not be read: {exc})", True, tree.branch, str(tree.path))
    remove_worktree(tree)
    return WorktreeResult("", False, None, None)


def remove_worktree(tree: Worktree) -> None:
    """Remove the worktree and its branch (best effort: a leftover is harmless, never fatal)."""
    for args in (["worktree", "remove", "--force", str(tree.path)], ["branch", "-D", tree.branch]):
        try:
            _git(args, tree.repo)
        except WorktreeError:
            pass
    shutil.rmtree(tree.path, ignore_errors=True)


def _cut(diff: str) -> str:
    if len(diff) <= MAX_DIFF_CHARS:
        return diff
    return diff[:MAX_DIFF_CHARS] + f"\n… (diff cut at {MAX_DIFF_CHARS:,} characters; the branch holds all of it)"
