"""What one sandboxed command may touch, resolved to real paths in the parent before the fork."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: never writable, even inside a writable folder (relative to the project)
PROJECT_PROTECTED = (".git/hooks", ".git/config", ".claude", ".agent-tui", ".mcp.json")
#: never writable either, where a writable folder holds them (the project may be the home folder)
HOME_PROTECTED = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".gitconfig",
    ".config/git",
    ".config/agent-tui",
    ".claude",
    ".ssh",
)
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
    #: folders bound onto themselves, writable: a mount point cannot be renamed or removed (git's chain to its config)
    pins: list[str] = field(default_factory=list)
    #: the repositories whose chain to config and hooks is kept (gitdirs.Repo)
    repos: list[Any] = field(default_factory=list)
    empty_file: str = ""
    proxy_socket: str | None = None
    abi: int = 0


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def real_folder(folder: str, cache: dict[str, str]) -> str:
    """`os.path.realpath(folder)`, with one lstat per folder not in `cache` (which keeps the ones resolved)."""
    if folder in cache:
        return cache[folder]
    parent, name = os.path.split(folder)
    if not name or name in (".", "..") or not parent or parent == folder or "/../" in folder + "/":
        result = os.path.realpath(folder)
    else:
        candidate = os.path.join(real_folder(parent, cache), name)
        result = os.path.realpath(candidate) if os.path.islink(candidate) else candidate
    cache[folder] = result
    return result


def _real(path: str, cache: dict[str, str] | None = None) -> str:
    """`path` with links resolved in its folders, not in its last part (`cache`: folders resolved already)."""
    folder = os.path.dirname(path)
    real = os.path.realpath(folder) if cache is None else real_folder(folder, cache)
    return os.path.join(real, os.path.basename(path))


def protected_paths(project: str, roots: list[str], git_paths: Sequence[str] = ()) -> list[str]:
    """Every protected path (existing or not) that lies under a writable root; `git_paths`: git's chain (gitdirs)."""
    out = [os.path.join(project, rel) for rel in PROJECT_PROTECTED]
    home = os.path.expanduser("~")
    out += [os.path.join(home, rel) for rel in HOME_PROTECTED]
    out += git_paths
    cache: dict[str, str] = {}
    reals = (_real(p, cache) for p in dict.fromkeys(out))
    return list(dict.fromkeys(r for r in reals if _inside(os.path.dirname(r), roots)))


def pinned_folders(paths: Sequence[str], folders: Sequence[str], roots: list[str]) -> list[str]:
    """`folders` and every folder between a write root and a path of `paths` (all real paths): renaming one would
    re-point git."""
    out: list[str] = []
    seen: set[str] = set()
    wanted = set(folders)
    for real in [*paths, *folders]:
        root = max((r for r in roots if _inside(real, [r]) and real != r), key=len, default=None)
        if root is None:
            continue
        folder = real if real in wanted else os.path.dirname(real)
        while folder != root and folder not in seen and _inside(folder, [root]):
            seen.add(folder)
            if os.path.isdir(folder) and not os.path.islink(folder):
                out.append(folder)
            folder = os.path.dirname(folder)
    return sorted(out, key=lambda f: (f.count("/"), f))


def build(
    project: str,
    tmpdir: str,
    allow_write: list[str],
    deny_read: list[str],
    *,
    abi: int,
    empty_file: str,
    write_files: Sequence[str] = (),
    proxy_socket: str | None = None,
    extra_projects: Sequence[str] = (),
) -> Plan:
    """Resolve the policy's paths: symlinks followed, missing ones left out (or kept for the sweep).

    `extra_projects` (added working directories) are write roots whose `.git` and settings folders are protected as
    the project's are.
    """
    roots = [os.path.realpath(p) for p in [project, *extra_projects, tmpdir, *allow_write] if os.path.exists(p)]
    plan = Plan(
        project=os.path.realpath(project),
        tmpdir=tmpdir,
        write_roots=list(dict.fromkeys(roots)),
        write_files=[os.path.realpath(f) for f in write_files],
        empty_file=empty_file,
        proxy_socket=proxy_socket,
        abi=abi,
    )
    from tui.sandbox import gitdirs, gitstate

    folders = list(dict.fromkeys([plan.project, *map(os.path.realpath, extra_projects)]))
    plan.repos = [repo for folder in folders for repo in gitdirs.discover(folder, gitstate.gitlinks)]
    git = gitdirs.protection(plan.repos)
    protected = list(
        dict.fromkeys(p for folder in folders for p in protected_paths(folder, plan.write_roots, git.keep))
    )
    plan.pins = pinned_folders(protected, git.pins, plan.write_roots)
    for path in protected:
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


def sweep(before: dict[str, tuple[int, int] | None], since: float | None = None) -> list[str]:
    """Remove protected paths the command created (or swapped), not ones agent-tui wrote after `since`; returns them."""
    import shutil

    from tui.config.own_writes import wrote_under

    removed = []
    for path, was in before.items():
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if was is not None and (st.st_ino, st.st_mtime_ns) == was:
            continue
        if since is not None and wrote_under(path, since):
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
