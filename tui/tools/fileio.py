"""File helpers shared by Read, Edit and Write: hashing, encodings, errors, saving with backup."""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from tui.config.special_files import SpecialFileError, open_regular, read_regular_bytes, special_kind
from tui.tools.base import FatalToolError, ToolContext, ToolError

CHUNK_SIZE = 1 << 20
# errors no retry can mend: the loop stops instead of going back to the model
FATAL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}


def hash_bytes(data: bytes) -> str:
    """The content hash the freshness guard compares."""
    return hashlib.sha256(data).hexdigest()


def hash_file(path: Path) -> str | None:
    """Content hash of the file at `path`, read in chunks; None when it cannot be read."""
    digest = hashlib.sha256()
    try:
        with os.fdopen(open_regular(path), "rb") as f:  # never blocks on a FIFO put in the file's place
            while chunk := f.read(CHUNK_SIZE):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def os_error(exc: OSError, action: str, display: str) -> ToolError:
    """One actionable sentence for an OS error; disk full and quota errors are fatal."""
    reason = exc.strerror or str(exc)
    if exc.errno in FATAL_ERRNOS:
        return FatalToolError(f"Cannot {action} {display}: {reason}. Free some disk space, then try again.")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return ToolError(f"Permission denied: cannot {action} {display}.")
    if exc.errno == errno.ENAMETOOLONG:
        return ToolError(f"The path is too long to {action}; use a shorter path.")
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        return ToolError(f"Cannot {action} {display}: a part of the path is a file, not a directory.")
    if exc.errno == errno.EROFS:
        return ToolError(f"Cannot {action} {display}: the file system is read-only.")
    return ToolError(f"Cannot {action} {display}: {reason}.")


def close_matches(path: Path, limit: int = 3) -> list[str]:
    """Names next to `path` (or to its nearest existing ancestor) that look like it."""
    target = path
    while True:
        parent = target.parent
        try:
            if parent.is_dir():
                names = sorted(os.listdir(parent))[:5000]
                import difflib

                found = difflib.get_close_matches(target.name, names, n=limit, cutoff=0.6)
                return [str(parent / name) for name in found]
        except OSError:
            return []
        if parent == target:
            return []
        target = parent


def missing_path_error(path: Path, ctx: ToolContext, what: str = "File") -> ToolError:
    """ "File does not exist" plus the closest sibling names, relative to the project."""
    display = ctx.display_path(path)
    matches = [ctx.display_path(m) for m in close_matches(path)]
    hint = f" Did you mean {', '.join(matches)}?" if matches else ""
    return ToolError(f"{what} does not exist: {display} (project directory: {ctx.project_dir}).{hint}")


@dataclass(frozen=True)
class TextFormat:
    """How a text file is stored on disk, so an edit can write it back the same way."""

    encoding: str  # a Python codec name without BOM handling
    bom: bytes = b""
    crlf: bool = False
    # "surrogateescape" keeps stray bytes of a mostly-UTF-8 file exactly as they were
    errors: str = "strict"

    def encode(self, text: str, display: str) -> bytes:
        """`text` in this format; a ToolError when the encoding cannot hold a character."""
        try:
            return self.bom + text.encode(self.encoding, errors=self.errors)
        except UnicodeEncodeError as exc:
            bad = text[exc.start : exc.end]
            raise ToolError(
                f"{display} is stored as {self.encoding} and cannot hold the character {bad!r}; "
                "use only characters that encoding supports."
            ) from None


_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def bom_encoding(head: bytes) -> tuple[str, bytes] | None:
    """The (encoding, BOM) a byte-order mark at the start of `head` announces, if any."""
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return encoding, bom
    return None


_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xf4][\x80-\xbf]")


def decode_text(data: bytes) -> tuple[str, TextFormat]:
    """Decode file bytes so that encoding the text again gives the same bytes.

    BOM encodings first, then UTF-8; a file that is not valid UTF-8 is Latin-1 when it
    holds no UTF-8 sequence at all, else UTF-8 with its stray bytes kept as surrogates.
    """
    found = bom_encoding(data)
    errors = "strict"
    if found:
        encoding, bom = found
        text = data[len(bom) :].decode(encoding, errors="replace")
    else:
        bom = b""
        try:
            encoding, text = "utf-8", data.decode("utf-8")
        except UnicodeDecodeError:
            if _UTF8_SEQUENCE.search(data):
                encoding, errors = "utf-8", "surrogateescape"
                text = data.decode("utf-8", errors="surrogateescape")
            else:
                encoding, text = "latin-1", data.decode("latin-1")
    crlf_count = text.count("\r\n")
    crlf = crlf_count > 0 and crlf_count * 2 >= text.count("\n")
    return text, TextFormat(encoding, bom, crlf=crlf, errors=errors)


def looks_binary(head: bytes) -> bool:
    """True when the first bytes of a file hold a NUL byte and no UTF-16/32 byte-order mark."""
    return b"\x00" in head and bom_encoding(head) is None


def read_existing(path: Path, ctx: ToolContext) -> bytes | None:
    """The bytes of `path`, None when it does not exist; a ToolError for directories and the like."""
    display = ctx.display_path(path)
    try:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            return None
        if stat.S_ISDIR(mode):
            raise ToolError(f"{display} is a directory, not a file.")
        kind = special_kind(mode)
        if kind is not None:
            raise ToolError(f"{display} is {kind}, not a regular file; it cannot be edited.")
        data = read_regular_bytes(path)  # checks the type again on the open descriptor
        editor = ctx.state.editor
        held = editor.read(path, ctx.cancel) if editor is not None else None
        return data if held is None else held  # an editor's unsaved buffer is what the user sees
    except SpecialFileError as exc:
        raise ToolError(str(exc)) from None
    except OSError as exc:
        raise os_error(exc, "read", display) from None
    except ValueError:
        raise ToolError("The path contains characters the file system cannot use.") from None


def save_file(ctx: ToolContext, path: Path, previous: bytes | None, data: bytes) -> None:
    """Write `data` to `path` after checkpointing its previous content and recording the new hash.

    The hash is recorded before writing so the file watcher never mistakes our own write
    for a change made outside the agent; the checkpoint is on disk before the file is
    touched, so /rewind can restore it even after a write that failed half way or a kill.
    """
    from tui.tools.freshness import forget_read, record_hash

    display = ctx.display_path(path)
    state = ctx.state
    with state.lock:
        old_hash = state.read_hashes.get(str(path))
        record_hash(state, path, hash_bytes(data))
        checkpoint = state.checkpoint
        if checkpoint is not None:
            try:
                checkpoint.before_write(path, previous, data)
            except OSError as exc:
                forget_read(state, path) if old_hash is None else record_hash(state, path, old_hash)
                raise ToolError(
                    f"{display} was not changed: its checkpoint could not be saved ({exc.strerror or exc})."
                ) from None
        try:
            from tui.config.own_writes import note

            note(path)  # a running sandbox's sweep of protected paths leaves it alone
            path.parent.mkdir(parents=True, exist_ok=True)
            editor = state.editor
            if editor is None or not editor.write(path, previous, data, ctx.cancel):
                with os.fdopen(open_for_write(path), "wb") as f:
                    f.write(data)
            if checkpoint is not None:
                checkpoint.wrote(path)
        except WriteRefused as exc:
            if checkpoint is not None:
                checkpoint.write_failed()
            forget_read(state, path) if old_hash is None else record_hash(state, path, old_hash)
            raise ToolError(f"{display} is {exc.kind}, not a regular file; agent-tui does not write to it.") from None
        except OSError as exc:
            if checkpoint is not None:
                checkpoint.write_failed()
            if old_hash is None:
                forget_read(state, path)
            else:
                record_hash(state, path, old_hash)
            raise os_error(exc, "write", display) from None


class WriteRefused(OSError):
    """The path to write is `kind` (a FIFO, a device, …), not a regular file."""

    def __init__(self, kind: str) -> None:
        super().__init__(errno.EINVAL, f"it is {kind}, not a regular file")
        self.kind = kind


def open_for_write(path: Path, follow: bool = True) -> int:
    """A descriptor that truncates and writes the regular file `path` (created 0o666 less umask).

    Opened non-blocking, so a FIFO put in the file's place neither blocks (no reader) nor
    gets the data (a reader waiting): anything but a regular file is refused (WriteRefused).
    `follow=False` refuses a symbolic link as the last part of `path` (ELOOP).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags if follow else flags | os.O_NOFOLLOW, 0o666)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO with no reader
            raise WriteRefused("a FIFO (named pipe)") from None
        if exc.errno == errno.ELOOP and not follow:
            raise OSError(errno.ELOOP, "a symbolic link appeared in its place; it was not followed") from None
        raise
    try:
        kind = special_kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise WriteRefused(kind)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd
