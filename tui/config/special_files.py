"""Open files without hanging on FIFOs, sockets or devices.

`open()` on a FIFO blocks until a writer appears and a read of `/dev/zero` never ends, so
every file agent-tui reads on its own (tools, memory files, settings, ignore files,
transcripts) goes through here: the file is opened with `O_NONBLOCK` (which never blocks,
even on a FIFO), its type checked with `fstat` on that same descriptor (no race between
the check and the open), and anything but a regular file is refused with one sentence.
Standard library only, so tools, config and the engine can all use it.
"""

from __future__ import annotations

import os
import stat

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)


class SpecialFileError(OSError):
    """The path exists but is not a regular file; `str()` is the sentence to show."""


def special_kind(mode: int) -> str | None:
    """What kind of non-regular file `mode` describes ("a FIFO (named pipe)", …), or None."""
    if stat.S_ISREG(mode):
        return None
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def refusal(path: str | os.PathLike[str], kind: str) -> str:
    """The one sentence said when `path` is `kind` instead of a regular file."""
    return f"{os.fspath(path)} is {kind}, not a regular file; agent-tui does not read it."


def check_regular(path: str | os.PathLike[str]) -> None:
    """Raise SpecialFileError unless `path` (symlinks followed) is a regular file.

    Uses `os.stat`, so it never opens anything; OSError (missing, no permission) passes up.
    """
    kind = special_kind(os.stat(path).st_mode)
    if kind is not None:
        raise SpecialFileError(refusal(path, kind))


def open_regular(path: str | os.PathLike[str], flags: int = os.O_RDONLY) -> int:
    """A descriptor for `path` opened with `flags`, refusing anything but a regular file.

    The open itself is non-blocking (a FIFO without a writer opens at once); the flag is
    cleared again once the type is known, so reads on the regular file behave normally.
    """
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        kind = special_kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise SpecialFileError(refusal(path, kind))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_bytes(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of the regular file `path` (at most `limit`), never blocking on special files."""
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as handle:
        return handle.read() if limit is None else handle.read(limit)


def read_regular_text(path: str | os.PathLike[str], encoding: str = "utf-8", errors: str = "strict") -> str:
    """`read_regular_bytes` decoded: the FIFO-safe `Path.read_text`."""
    return read_regular_bytes(path).decode(encoding, errors)


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """True when `path` exists and is a regular file (symlinks followed); never opens it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


__all__ = [
    "SpecialFileError",
    "check_regular",
    "is_regular_file",
    "open_regular",
    "read_regular_bytes",
    "read_regular_text",
    "refusal",
    "special_kind",
]
