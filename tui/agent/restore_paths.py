"""Where /rewind and /undo put a file back: never through a link made since the checkpoint, never outside unless taken there.

A command can replace a checkpointed file (or one of its folders) with a symbolic link to
`~/.bashrc` or anything else; restoring must not write through it. A link that was already
there when the checkpoint was taken (an Edit wrote through it) is followed, since that is
where the checkpoint was taken; any other link is replaced itself, and a folder that now
leads outside the project is refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


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


def locate(path: str, real_then: str | None, project_dir: Path | str) -> Location:
    """Where restoring `path` (checkpointed with links leading to `real_then`, or to itself) may write."""
    try:
        link = os.readlink(path) if os.path.islink(path) else ""
        real_parent = os.path.realpath(os.path.dirname(path))
        project = os.path.realpath(project_dir)
        if link and real_then and os.path.realpath(path) == real_then:
            return Location(path, real_then)  # the link was there when the checkpoint was taken
    except (OSError, ValueError) as exc:
        return Location(path, path, problem=f"its location cannot be checked ({getattr(exc, 'strerror', None) or exc})")
    dest = os.path.join(real_parent, os.path.basename(path))
    then_parent = os.path.dirname(real_then or os.path.normpath(path))
    if not _inside(real_parent, project) and real_parent != then_parent:
        return Location(
            path,
            dest,
            link,
            f"its folder now leads to {real_parent}, outside the project, through a "
            "link made since the checkpoint; nothing was written there",
        )
    return Location(path, dest, link)


def write_back(where: Location, data: bytes, mode: int | None) -> None:
    """Put `data` (and `mode`) at `where.dest`, replacing a link in the way rather than following it."""
    from tui.tools.fileio import open_for_write

    if where.link:
        os.unlink(where.path)
    os.makedirs(os.path.dirname(where.dest), exist_ok=True)
    with os.fdopen(open_for_write(Path(where.dest), follow=False), "wb") as f:  # `dest` has no link left in it
        f.write(data)
        if mode is not None:
            os.fchmod(f.fileno(), mode)


def remove(where: Location) -> None:
    """Delete the file at `where` (a link: the link itself, never its target)."""
    os.unlink(where.path if where.link else where.dest)


def did(where: Location, verb: str, name: str) -> str:
    """One line naming what a restore did to a path, and to a link in its place."""
    if not where.link:
        return f"{verb} {name}"
    if verb == "removed":
        return f"removed the link {name} (it pointed to {where.link}, which was not touched)"
    return f"{verb} {name} (it had become a link to {where.link}: the link was replaced, its target not touched)"
