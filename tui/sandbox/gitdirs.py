"""Where git finds the config and hooks of the project, however it resolves them: what the sandbox keeps.

git reaches a repository's config and hooks through a chain a command could re-point: the
`.git` entry (a folder, a `gitdir:` file, a link), the git dir's `commondir` file, the
common dir's `config` and `hooks/`, `config.worktree`, `include`/`includeIf` files,
`core.hooksPath`, linked worktrees (`worktrees/*`) and submodules (`.gitmodules`,
`modules/*`, gitlinks in the index). `discover` follows every link of that chain for the
project and each submodule and linked worktree, as files only (git itself is run for one
thing: listing gitlinks, with the repository's programs neutralised, and only when the
index changed).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

#: config keys that lead to more config or to hooks (lower case)
INCLUDE_KEY = re.compile(r"(include|includeif\..*)\.path")
HOOKS_KEY = "core.hookspath"
MAX_INCLUDES = 10
MAX_REPOS = 64
MAX_DEPTH = 4


@dataclass
class Repo:
    """What git uses for one work tree."""

    root: str
    dotgit: str
    #: "dir", "file" (a `gitdir:` file), "link" or "none"
    kind: str
    gitdir: str = ""
    commondir: str = ""
    #: files that decide which git dir is used: the `.git` file, `commondir`, worktrees' back-links
    control: list[str] = field(default_factory=list)
    #: config files git reads for it (existing or not), includes followed
    configs: list[str] = field(default_factory=list)
    #: folders git runs hooks from
    hooks: list[str] = field(default_factory=list)


_parsed: dict[str, tuple[tuple[int, int, int], list[tuple[str, str]]]] = {}


def parse_config(path: str) -> list[tuple[str, str]]:
    """(key, value) pairs of a git config file, keys as `section[.subsection].name` in lower case; [] if unreadable.

    Lenient (quotes, escapes and continuations are enough for include paths and hooksPath); cached while
    the file is unchanged.
    """
    try:
        st = os.stat(path)
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        if (hit := _parsed.get(path)) is not None and hit[0] == key:
            return hit[1]
        with open(path, "rb") as f:
            text = f.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return []
    pairs = _parse(text)
    if len(_parsed) > 256:
        _parsed.clear()
    _parsed[path] = (key, pairs)
    return pairs


def _parse(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    section = ""
    for raw in text.replace("\\\n", "").splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            match = re.match(r'\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]', line)
            if match:
                name, sub = match.group(1).lower(), match.group(2)
                section = f"{name}.{sub}" if sub is not None else name
                line = line[match.end() :].strip()
            if not line:
                continue
        key, _, value = line.partition("=")
        out.append((f"{section}.{key.strip().lower()}", _unquote(value.strip())))
    return out


def _unquote(value: str) -> str:
    out, quoted = [], False
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == '"':
            quoted = not quoted
        elif ch == "\\" and i + 1 < len(value):
            i += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(value[i], value[i]))
        elif ch in "#;" and not quoted:
            break
        else:
            out.append(ch)
        i += 1
    return "".join(out).strip()


def _expand(value: str, base: str) -> str:
    path = os.path.expanduser(value)
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(base, path))


def follow_includes(paths: list[str]) -> tuple[list[str], list[str]]:
    """The config files `paths` lead to (themselves and every include, whatever its condition), and hooksPath values."""
    files: list[str] = []
    hooks_values: list[str] = []
    todo = list(paths)
    while todo and len(files) < len(paths) + MAX_INCLUDES:
        path = todo.pop(0)
        if path in files:
            continue
        files.append(path)
        for key, value in parse_config(path):
            if INCLUDE_KEY.fullmatch(key) and value:
                todo.append(_expand(value, os.path.dirname(path)))
            elif key == HOOKS_KEY and value:
                hooks_values.append(value)
    return files, hooks_values


def user_configs(environ: Mapping[str, str] | None = None) -> list[str]:
    """The system and global (or XDG) config files git reads, as the environment names them."""
    env = os.environ if environ is None else environ
    out = []
    if not env.get("GIT_CONFIG_NOSYSTEM"):
        out.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    if env.get("GIT_CONFIG_GLOBAL"):
        out.append(env["GIT_CONFIG_GLOBAL"])
    else:
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
        out += [os.path.join(xdg, "git", "config"), os.path.join(os.path.expanduser("~"), ".gitconfig")]
    return [os.path.abspath(p) for p in out]


def _read_pointer(path: str, prefix: str = "") -> str | None:
    try:
        with open(path, "rb") as f:
            text = f.read(4096).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if prefix:
        if not text.startswith(prefix):
            return None
        text = text[len(prefix) :].strip()
    return text or None


def repo_at(root: str, user: tuple[list[str], list[str]]) -> Repo:
    """What git uses in the work tree `root` (`user`: the user-level config files and their hooksPath values)."""
    dotgit = os.path.join(root, ".git")
    if os.path.islink(dotgit):
        kind = "link"
    elif os.path.isdir(dotgit):
        kind = "dir"
    elif os.path.isfile(dotgit):
        kind = "file"
    else:
        return Repo(root, dotgit, "none")
    repo = Repo(root, dotgit, kind)
    if kind == "file":
        repo.control.append(dotgit)
        target = _read_pointer(dotgit, "gitdir:")
        if target is None:
            return repo
        gitdir = os.path.realpath(os.path.join(root, target))
    else:
        gitdir = os.path.realpath(dotgit)
    if not os.path.isdir(gitdir):
        return repo
    repo.gitdir = gitdir
    commondir_file = os.path.join(gitdir, "commondir")
    repo.control.append(commondir_file)
    pointer = _read_pointer(commondir_file)
    repo.commondir = os.path.realpath(os.path.join(gitdir, pointer)) if pointer else gitdir
    own, hooks_values = follow_includes(
        [os.path.join(repo.commondir, "config"), os.path.join(gitdir, "config.worktree")]
    )
    repo.configs = own + user[0]
    repo.hooks = [os.path.join(repo.commondir, "hooks")]
    repo.hooks += [_expand(v, root) for v in [*user[1], *hooks_values]]
    return repo


def _worktrees(repo: Repo) -> list[str]:
    """Linked worktrees' control files (added to `repo.control`) and their roots."""
    roots = []
    folder = os.path.join(repo.commondir, "worktrees")
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        entry = os.path.join(folder, name)
        repo.control += [os.path.join(entry, n) for n in ("commondir", "config.worktree", "gitdir")]
        back = _read_pointer(os.path.join(entry, "gitdir"))
        if back:
            dotgit = os.path.normpath(os.path.join(entry, back))
            repo.control.append(dotgit)
            roots.append(os.path.dirname(dotgit))
    return roots


def _submodule_roots(repo: Repo, gitlinks: list[str]) -> list[str]:
    """Work trees of the repository's submodules: `.gitmodules` paths, gitlinks, `modules/*` git dirs' worktrees."""
    roots = [
        os.path.join(repo.root, v)
        for k, v in parse_config(os.path.join(repo.root, ".gitmodules"))
        if k.endswith(".path") and k.startswith("submodule.") and v
    ]
    roots += [os.path.join(repo.root, p) for p in gitlinks]
    stack = [os.path.join(repo.commondir, "modules")]
    while stack and len(roots) < MAX_REPOS:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                continue
            if os.path.isfile(os.path.join(entry.path, "HEAD")):
                worktree = next(
                    (v for k, v in parse_config(os.path.join(entry.path, "config")) if k == "core.worktree"), ""
                )
                if worktree:
                    roots.append(os.path.normpath(os.path.join(entry.path, worktree)))
            else:
                stack.append(entry.path)  # a submodule named `a/b` lives in modules/a/b
    return [os.path.normpath(r) for r in roots]


def discover(project: str, gitlinks: object = None) -> list[Repo]:
    """The project's repository, its linked worktrees and its submodules (nested ones too), each once.

    `gitlinks(repo) -> list[str]` lists a repository's gitlinks (None: `.gitmodules` and `modules/` only).
    """
    user = follow_includes(user_configs())
    repos: list[Repo] = []
    seen: set[str] = set()
    todo = [(os.path.realpath(project), 0)]
    while todo and len(repos) < MAX_REPOS:
        root, depth = todo.pop(0)
        if root in seen:
            continue
        seen.add(root)
        repo = repo_at(root, user)
        repos.append(repo)
        if repo.kind == "none" and depth == 0 and (enclosing := _enclosing_root(root)):
            todo.append((enclosing, 0))  # the project is a folder of a larger repository: git uses that one
        if not repo.gitdir or depth >= MAX_DEPTH:
            continue
        more = _worktrees(repo) if depth == 0 else []
        links = gitlinks(repo) if callable(gitlinks) else []
        # (a submodule listed but not checked out comes back as "none": a `.git` made there is read at once)
        more += _submodule_roots(repo, links or [])
        todo += [(os.path.realpath(r), depth + 1) for r in more if os.path.isdir(r)]
    return repos


def _enclosing_root(folder: str) -> str | None:
    """The nearest folder above `folder` with a `.git` entry (where git finds the repository), if any."""
    parent = os.path.dirname(folder)
    while parent and parent != folder:
        if os.path.lexists(os.path.join(parent, ".git")):
            return parent
        folder, parent = parent, os.path.dirname(parent)
    return None


@dataclass
class Protection:
    """What to keep for git: paths as they are (bound read-only, or swept if made), folders not to be renamed, links."""

    keep: list[str] = field(default_factory=list)
    pins: list[str] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)


def protection(repos: list[Repo]) -> Protection:
    """Every path of the chain git follows to config and hooks, for each repository found."""
    out = Protection()
    for repo in repos:
        if repo.kind == "none":
            out.keep.append(repo.dotgit)
            continue
        if repo.kind == "dir":
            out.pins.append(repo.dotgit)
        elif repo.kind == "link":
            try:
                out.links[repo.dotgit] = os.readlink(repo.dotgit)
            except OSError:
                pass
        out.pins += [d for d in (repo.gitdir, repo.commondir) if d]
        out.keep += repo.control + repo.configs + repo.hooks
    out.keep = list(dict.fromkeys(out.keep))
    out.pins = list(dict.fromkeys(out.pins))
    return out
