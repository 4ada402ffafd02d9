"""What one sandboxed command may touch, resolved to real paths in the parent before the fork."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

#: never writable, even inside a writable folder (relative to the project)
PROJECT_PROTECTED = (".git/hooks", ".git/config", ".claude", ".agent-tui", ".mcp.json")
#: never writable either, where a writable folder holds them (the project may be the home folder)
HOME_PROTECTED = (".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv",
                  ".gitconfig", ".config/git", ".config/agent-tui", ".claude", ".ssh")
#: the port the sandbox's own loopback forwards to agent-tui's proxy
PROXY_PORT = 3128


@dataclass
class Plan:
    """Real paths for one run: what is writable, what is bound read-only or hidden, what to sweep after."""

    project: str
    tmpdir: str
    write_roots: list[str]
    write_files: list[str] = field(default_factory=list)
    read_only: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    hide_dirs: list[str] = field(default_factory=list)
    hide_files: list[str] = field(default_factory=list)
    empty_file: str = ""
    proxy_socket: str | None = None
    abi: int = 0


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def protected_paths(project: str, roots: list[str]) -> list[str]:
    """Every protected path (existing or not) that lies under a writable root."""
    out = [os.path.join(project, rel) for rel in PROJECT_PROTECTED]
    git = os.path.join(project, ".git")
    if os.path.isfile(git):  # a worktree: the `.git` file names where hooks and config live
        out.append(git)
    elif not os.path.lexists(git):
        out.append(git)  # a repository made in the sandbox would carry its own hooks and config
    home = os.path.expanduser("~")
    out += [os.path.join(home, rel) for rel in HOME_PROTECTED]
    return [p for p in dict.fromkeys(out) if _inside(os.path.realpath(os.path.dirname(p)), roots)]


def build(project: str, tmpdir: str, allow_write: list[str], deny_read: list[str], *, abi: int,
          empty_file: str, write_files: Sequence[str] = (), proxy_socket: str | None = None,
          extra_projects: Sequence[str] = ()) -> Plan:
    """Resolve the policy's paths: symlinks followed, missing ones left out (or kept for the sweep).

    `extra_projects` (added working directories) are write roots whose `.git` and settings folders are protected as
    the project's are.
    """
    roots = [os.path.realpath(p) for p in [project, *extra_projects, tmpdir, *allow_write] if os.path.exists(p)]
    plan = Plan(project=os.path.realpath(project), tmpdir=tmpdir, write_roots=list(dict.fromkeys(roots)),
                write_files=[os.path.realpath(f) for f in write_files], empty_file=empty_file,
                proxy_socket=proxy_socket, abi=abi)
    protected = [p for folder in (plan.project, *map(os.path.realpath, extra_projects))
                 for p in protected_paths(folder, plan.write_roots)]
    for path in dict.fromkeys(protected):
        if os.path.islink(path) or not os.path.lexists(path):
            plan.missing.append(path)  # a bind would follow the link; the sweep checks it instead
        else:
            plan.read_only.append(path)
    for path in deny_read:
        real = os.path.realpath(os.path.expanduser(path))
        if os.path.isdir(real):
            plan.hide_dirs.append(real)
        elif os.path.exists(real):
            plan.hide_files.append(real)
    return plan


def snapshot_missing(plan: Plan) -> dict[str, tuple[int, int] | None]:
    """The state of each swept path before the run: None when missing, else (inode, mtime)."""
    out: dict[str, tuple[int, int] | None] = {}
    for path in plan.missing:
        try:
            st = os.lstat(path)
            out[path] = (st.st_ino, st.st_mtime_ns)
        except OSError:
            out[path] = None
    return out


def sweep(before: dict[str, tuple[int, int] | None]) -> list[str]:
    """Remove protected paths the command created (or swapped); returns them."""
    import shutil

    removed = []
    for path, was in before.items():
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if was is not None and (st.st_ino, st.st_mtime_ns) == was:
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except OSError:
                continue
        removed.append(path)
    return removed
