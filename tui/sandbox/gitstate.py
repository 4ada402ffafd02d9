"""After a contained command: would git still read the same config and hooks? Undo what changed, or say so.

The mounts of `launch` keep the chain of `gitdirs` as it was; this is the check behind them.
Before a command each file of the chain is noted (lstat: no content is read); after it, the
chain is found again and compared: a file made is removed, a `.git` link re-pointed is put
back, a new gitlink whose repository would run a program is taken out of the index; anything
else is named so the user can look before running git.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import threading
from dataclasses import dataclass, field

from tui.sandbox.gitdirs import Repo, discover, follow_includes, repo_at, user_configs

#: a file as lstat sees it: inode, size, mtime, mode, link target
Signature = tuple[int, int, int, int, str]
GITLINK_MODE = b"\x00\x00\xe0\x00"  # 0o160000 as the index stores it
_lock = threading.Lock()
_gitlinks_cache: dict[str, tuple[tuple[int, int, int], list[str]]] = {}


@dataclass
class GitState:
    """What git would use, per work tree and per file, at one moment."""

    repos: dict[str, tuple[str, str, str, str]] = field(default_factory=dict)
    #: file -> its signature (None: absent)
    files: dict[str, Signature | None] = field(default_factory=dict)
    gitlinks: dict[str, frozenset[str]] = field(default_factory=dict)
    #: folders git runs hooks from
    hook_dirs: list[str] = field(default_factory=list)
    #: each repository's index -> its signature (a new gitlink changes it)
    indexes: dict[str, Signature | None] = field(default_factory=dict)
    #: each work tree's `.git` -> what it is (type, inode, link target; not its time, which git's writes change)
    dotgits: dict[str, tuple[int, int, str] | None] = field(default_factory=dict)


def gitlinks(repo: Repo) -> list[str]:
    """The gitlinks in `repo`'s index; a look at the index bytes first, git only when one may be there; cached."""
    index = os.path.join(repo.gitdir, "index")
    try:
        st = os.stat(index)
    except OSError:
        return []
    key = (st.st_ino, st.st_size, st.st_mtime_ns)
    with _lock:
        cached = _gitlinks_cache.get(index)
    if cached is not None and cached[0] == key:
        return cached[1]
    links: list[str] = []
    try:
        with open(index, "rb") as f:
            maybe = GITLINK_MODE in f.read()
    except OSError:
        maybe = False
    if maybe:
        from tui.config.git_safety import run_git

        try:
            done = run_git(["ls-files", "--stage", "-z"], repo.root)
            links = [e.split("\t", 1)[1] for e in done.stdout.split("\0") if e.startswith("160000 ") and "\t" in e]
        except (OSError, ValueError):
            links = []
    with _lock:
        _gitlinks_cache[index] = (key, links)
    return links


def _read(path: str) -> Signature | None:
    """What a file of the chain is now, to tell a change: None when absent (lstat only, no content read)."""
    try:
        st = os.lstat(path)
        target = os.readlink(path) if stat.S_ISLNK(st.st_mode) else ""
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode, target)


def _hook_files(folder: str) -> list[str]:
    """The hooks in `folder` (git never runs the `.sample` files `git init` leaves)."""
    try:
        return [os.path.join(folder, name) for name in sorted(os.listdir(folder)) if not name.endswith(".sample")]
    except OSError:
        return []


def state_of(repos: list[Repo]) -> GitState:
    """The state of every file of the repositories' chains (hooks: each file in each hooks folder)."""
    state = GitState()
    for repo in repos:
        link = ""
        if repo.kind == "link":
            try:
                link = os.readlink(repo.dotgit)
            except OSError:
                pass
        state.repos[repo.root] = (repo.kind, link, repo.gitdir, repo.commondir)
        state.dotgits[repo.dotgit] = _identity(repo.dotgit)
        for path in [*repo.control, *repo.configs, *repo.hooks]:
            state.files.setdefault(path, _read(path))
        for folder in repo.hooks:
            state.hook_dirs.append(folder)
            for path in _hook_files(folder):
                state.files.setdefault(path, _read(path))
        if repo.gitdir:
            state.gitlinks[repo.root] = frozenset(gitlinks(repo))
            index = os.path.join(repo.gitdir, "index")
            state.indexes[index] = _read(index)
    return state


def snapshot(project: str) -> GitState:
    """What git would use for the project now."""
    return state_of(discover(project, gitlinks))


def check(before: GitState, project: str, kept: list[str], writable: list[str], since: float) -> list[str]:
    """Compare with `before`: undo what the command changed where it can; one phrase for each change.

    `kept`: paths bound read-only for the command (a change there came from outside it: the user's own
    `git push -u` while it ran); `writable`: its write roots; `since`: when it started (agent-tui's own
    writes after it stay).
    """
    from tui.config.own_writes import wrote_under

    if _unchanged(before):
        return []  # every file of the chain, every hooks folder's listing and every index as they were
    repos = discover(project, gitlinks)
    found = {r.root for r in repos}
    user = follow_includes(user_configs())
    repos += [repo_at(root, user) for root in before.repos if root not in found]
    after = state_of(repos)
    phrases: list[str] = []
    for root, was in before.repos.items():
        now = after.repos.get(root)
        if now != was:
            phrases.append(_repo_changed(root, was, now))
    hook_dirs = {os.path.dirname(p) for p in before.files if before.files[p] is not None} & set(before.hook_dirs)
    created = [(p, None) for p in after.files if p not in before.files and os.path.dirname(p) in hook_dirs]
    for path, was_file in [*before.files.items(), *created]:
        now_file = after.files.get(path, _read(path))
        if now_file == was_file or wrote_under(path, since):
            continue
        real_dir = os.path.realpath(os.path.dirname(path))
        if was_file is not None and (
            _under(os.path.join(real_dir, os.path.basename(path)), kept) or not _under(real_dir, writable)
        ):
            continue  # the command could not write there: the change is someone else's
        phrases.append(_undo(path, was_file))
    for root, links in after.gitlinks.items():
        taken_out = set()
        for rel in sorted(links - before.gitlinks.get(root, frozenset())):
            if phrase := _new_gitlink(root, rel):
                phrases.append(phrase)
                taken_out.add(rel)
        # a background task is checked every second: a gitlink judged harmless here is not judged again
        before.gitlinks[root] = frozenset(links - taken_out)
    return phrases


def _unchanged(before: GitState) -> bool:
    """Whether nothing of the chain changed: no new chain can have been made (a hooks folder's time shows a new
    hook, a config's a new include, an index's a new gitlink)."""
    return (
        all(_read(path) == was for path, was in before.files.items())
        and all(_read(index) == was for index, was in before.indexes.items())
        and all(_identity(dotgit) == was for dotgit, was in before.dotgits.items())
    )


def _identity(path: str) -> tuple[int, int, str] | None:
    sig = _read(path)
    return None if sig is None else (stat.S_IFMT(sig[3]), sig[0], sig[4])


def _under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _repo_changed(root: str, was: tuple[str, str, str, str], now: tuple[str, str, str, str] | None) -> str:
    dotgit = os.path.join(root, ".git")
    if was[0] == "link" and was[1] and (now is None or now[0] in ("link", "none")):
        try:
            temp = dotgit + ".agent-tui-restore"
            os.symlink(was[1], temp)
            os.replace(temp, dotgit)
            return f"re-pointing {dotgit} (a protected path git reads; put back)"
        except OSError:
            pass
    then = was[2] or "no git dir"
    later = (now[2] if now else "") or "no git dir"
    return (
        f"changing which git dir {dotgit} leads to ({then}, now {later}; a protected path; check it before using git)"
    )


def _undo(path: str, was: Signature | None) -> str:
    """Remove a file of the chain the command made; name one it changed (bound read-only, it cannot have)."""
    if was is not None:
        return f"changing {path} (a protected path git reads; check it before using git)"
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except OSError as exc:
        return f"creating {path} (a protected path git reads; could not remove it: {exc.strerror or exc})"
    return f"creating {path} (a protected path git reads; removed)"


def _new_gitlink(root: str, rel: str) -> str | None:
    """A gitlink the command added: out of the index again when git would run a program in it."""
    from pathlib import Path

    from tui.config.git_reads import git_runs_programs
    from tui.config.git_safety import run_git

    sub = os.path.join(root, rel)
    if not os.path.lexists(os.path.join(sub, ".git")):
        return None
    why = git_runs_programs(Path(sub), own_only=True)
    if why is None:
        return None
    try:
        done = run_git(["rm", "--cached", "-f", "-q", "--", rel], Path(root))  # the index entry only, never the files
    except (OSError, ValueError, subprocess.SubprocessError):
        done = None
    if done is None or done.returncode != 0:
        return f"adding submodule {sub} (a protected path: in it {why}; check it before using git)"
    return f"adding submodule {sub} (a protected path: in it {why}; taken out of the index, its files left)"
