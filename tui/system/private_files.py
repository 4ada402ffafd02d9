"""Files that can hold prompts, file contents or command output: created 0600 in 0700 folders.

Transcripts, prompt history, MCP server logs, background task output, exported sessions, inspector
dumps, checkpoints and stored keys are opened through `open_private` (or written with
`write_private`): a new file is 0600, a file that was wider is tightened on the next write, the
last path component is never followed if it is a link, and the folder is made 0700 (with the
folders created on the way). A folder agent-tui did not make for itself (an export destination the
user named, the system temp folder) is left as it is; a folder of agent-tui's own that belongs to
another user is refused. Stdlib only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

__all__ = ["DIR_MODE", "FILE_MODE", "open_private", "private_dir", "private_fd", "write_private"]

FILE_MODE = 0o600
DIR_MODE = 0o700
_WIDE = 0o077


def _own_roots() -> list[Path]:
    """agent-tui's own folders (tui.config.paths, repeated: a leaf imports no room): data and config."""
    home = os.path.expanduser("~")
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return [Path(data) / "agent-tui", Path(config) / "agent-tui"]


def private_dir(path: str | os.PathLike[str], *, tighten: bool = True) -> Path:
    """`path` as a folder only its owner can enter: missing folders are created 0700; with `tighten`, an
    existing one is narrowed to 0700, and so is every folder between it and agent-tui's data or config
    folder when it is inside one (OSError if one belongs to another user)."""
    folder = Path(path)
    missing: list[Path] = []
    probe = folder
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for step in reversed(missing):
        try:
            step.mkdir(mode=DIR_MODE)
        except FileExistsError:
            pass
    if tighten or missing:
        _tighten(folder)
    if tighten:
        absolute = folder.absolute()
        for root in _own_roots():
            if absolute.is_relative_to(root) and absolute != root:
                for between in absolute.parents:
                    _tighten(between)
                    if between == root:
                        break
    return folder


def _tighten(folder: Path) -> None:
    info = folder.stat()
    if info.st_uid != os.getuid():
        raise PermissionError(13, "the folder belongs to another user", str(folder))
    if info.st_mode & _WIDE:
        os.chmod(folder, DIR_MODE)


def open_private(
    path: str | os.PathLike[str],
    mode: str = "a",
    *,
    folder: bool = True,
    tighten_folder: bool = True,
    **kwargs: Any,
) -> IO[Any]:
    """Open `path` for appending (`a`, `ab`) or writing (`w`, `wb`) as a 0600 file; `kwargs` go to `open`.

    `folder`: make its folder private too (`tighten_folder=False` creates missing folders 0700 but leaves an
    existing one as it is).
    """
    fd = private_fd(path, append=mode.startswith("a"), folder=folder, tighten_folder=tighten_folder)
    try:
        return os.fdopen(fd, mode, **kwargs)
    except BaseException:
        os.close(fd)
        raise


def private_fd(
    path: str | os.PathLike[str], *, append: bool = True, folder: bool = True, tighten_folder: bool = True
) -> int:
    """A write-only descriptor of `path` as a 0600 file (appending, or truncated); see `open_private`."""
    target = Path(path)
    if folder:
        private_dir(target.parent, tighten=tighten_folder)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    fd = os.open(target, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    try:
        if os.fstat(fd).st_mode & _WIDE:
            os.fchmod(fd, FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_private(
    path: str | os.PathLike[str], data: str | bytes, *, tighten_folder: bool = True, encoding: str = "utf-8"
) -> None:
    """Write the whole of `path` (a 0600 file in a 0700 folder) with `data`."""
    if isinstance(data, bytes):
        with open_private(path, "wb", tighten_folder=tighten_folder) as handle:
            handle.write(data)
    else:
        with open_private(path, "w", tighten_folder=tighten_folder, encoding=encoding) as handle:
            handle.write(data)
