"""Where /rewind, /undo and a checkpoint restore put a file back: never through a link made since the
checkpoint, anywhere on the path, and never into a protected place.

A command can replace a checkpointed file, or any folder on its path, with a symbolic link (`tools` ->
`.git/hooks`, a file -> `~/.bashrc`); restoring must not write through it. A link that was already there
when the checkpoint was taken (an Edit wrote through it) is followed, since that is where the checkpoint
was taken: a file's path must lead to the same real folder as then, else it is refused, inside the
project or not. A link in the file's own place is replaced itself, never followed. Whatever the links,
nothing is written into or deleted from `.git`, `.claude` or `.agent-tui`, the git dirs git uses for the
project (a `.git` file or link may point elsewhere), their config files or any hooks folder
(`core.hooksPath` included). Each refusal names the path and why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tui.config.paths import PROTECTED_DIRS


@dataclass
class Location:
    """Where restoring `path` writes or deletes, and why it may not."""

    path: str
    dest: str
    #: the path is now a symbolic link to this (made since the checkpoint): restoring replaces the link itself
    link: str = ""
    problem: str = ""


def taken_at(path: str) -> str | None:
    """The real file behind `path` when links lead elsewhere (kept with a checkpoint), else None."""
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    return real if real != os.path.normpath(path) else None


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def protected_places(project_dir: Path | str) -> list[str]:
    """The folders and files a restore never writes: the project's `.git`, `.claude` and `.agent-tui`, and
    every git dir, config file and hooks folder git uses for it (tui/sandbox/gitdirs.py), links resolved."""
    from tui.sandbox.gitdirs import discover

    project = os.path.realpath(project_dir)
    places = [os.path.join(project, name) for name in PROTECTED_DIRS]
    try:
        repos = discover(project)
    except (OSError, ValueError, RecursionError):
        repos = []
    for repo in repos:
        places += [repo.dotgit, repo.gitdir, repo.commondir, *repo.configs, *repo.control, *repo.hooks]
    return sorted({os.path.realpath(p) for p in places if p})


def _protected(dest: str, places: list[str]) -> str | None:
    real = os.path.realpath(dest)
    return next((p for p in places if _inside(dest, p) or _inside(real, p)), None)


def locate(path: str, real_then: str | None, project_dir: Path | str, protected: list[str] | None = None) -> Location:
    """Where restoring `path` (checkpointed with links leading to `real_then`, or to itself) may write.

    `protected`: protected_places(project_dir), computed once by a caller that locates many paths.
    """
    places = protected if protected is not None else protected_places(project_dir)
    try:
        link = os.readlink(path) if os.path.islink(path) else ""
        real_parent = os.path.realpath(os.path.dirname(path))
        if link and real_then and os.path.realpath(path) == real_then:
            where = Location(path, real_then)  # the link was there when the checkpoint was taken
            return _guard(where, places)
    except (OSError, ValueError) as exc:
        return Location(path, path, problem=f"its location cannot be checked ({getattr(exc, 'strerror', None) or exc})")
    dest = os.path.join(real_parent, os.path.basename(path))
    then_parent = os.path.dirname(real_then or os.path.normpath(path))
    if real_parent != then_parent:
        inside = _inside(real_parent, os.path.realpath(project_dir))
        return Location(
            path,
            dest,
            link,
            f"a folder on its path is now a link (made since the checkpoint) leading to {real_parent}"
            f"{'' if inside else ', outside the project'}; nothing was written through it",
        )
    return _guard(Location(path, dest, link), places)


def _guard(where: Location, places: list[str]) -> Location:
    place = _protected(where.dest, places) or _protected(where.path, places)
    if place is not None:
        where.problem = f"it is in {place}, a protected place (git's files and hooks, .claude, .agent-tui); restoring never writes there"
    return where


def _still_there(where: Location) -> None:
    """Refuse (OSError) when a folder on `dest`'s path became a link since `locate` looked."""
    folder = os.path.dirname(where.dest)
    existing = folder
    while existing and not os.path.lexists(existing):
        existing = os.path.dirname(existing)
    if existing and os.path.realpath(existing) != existing:
        raise OSError(f"a folder on its path became a link to {os.path.realpath(existing)} while restoring")


def write_back(where: Location, data: bytes, mode: int | None) -> None:
    """Put `data` (and `mode`) at `where.dest`, replacing a link in the way rather than following it."""
    from tui.tools.fileio import open_for_write

    if where.problem:
        raise OSError(where.problem)
    if where.link:
        os.unlink(where.path)
    _still_there(where)
    os.makedirs(os.path.dirname(where.dest), exist_ok=True)
    _still_there(where)
    with os.fdopen(open_for_write(Path(where.dest), follow=False), "wb") as f:  # `dest` has no link left in it
        f.write(data)
        if mode is not None:
            os.fchmod(f.fileno(), mode)


def remove(where: Location) -> None:
    """Delete the file at `where` (a link: the link itself, never its target)."""
    if where.problem:
        raise OSError(where.problem)
    _still_there(where)
    os.unlink(where.path if where.link else where.dest)


def did(where: Location, verb: str, name: str) -> str:
    """One line naming what a restore did to a path, and to a link in its place."""
    if not where.link:
        return f"{verb} {name}"
    if verb == "removed":
        return f"removed the link {name} (it pointed to {where.link}, which was not touched)"
    return f"{verb} {name} (it had become a link to {where.link}: the link was replaced, its target not touched)"
